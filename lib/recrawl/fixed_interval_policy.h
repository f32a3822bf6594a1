// FixedIntervalPolicy: every page is re-visited a fixed interval after its previous visit,
// whatever it was seen to do: Nutch's DefaultFetchSchedule (db.fetch.interval.default, 30 days)
// and StormCrawler's DefaultScheduler (fetchInterval.default, 1 day). With interval_days = 0 the
// interval is budget-matched (pages / budget), which makes it the uniform allocation scheduled
// from each page's own last visit rather than as a round robin. Uses no PolicyState field.
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_FIXED_INTERVAL_POLICY_H_
#define CRAWLER_LIB_RECRAWL_FIXED_INTERVAL_POLICY_H_

#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

struct FixedIntervalOptions {
  // Days between visits; 0 = pages / budget (set by Retune), 1 day before the first Retune.
  double interval_days = 0;

  friend bool operator==(const FixedIntervalOptions&, const FixedIntervalOptions&) = default;
};

class FixedIntervalPolicy final : public RevisitPolicy {
 public:
  explicit FixedIntervalPolicy(FixedIntervalOptions options = {});
  std::string_view name() const override { return "fixed"; }
  void Retune(const FleetSummary& fleet) override;
  Decision Decide(const PageView& page, const PolicyState& previous) const override;

 private:
  FixedIntervalOptions options_;
  double interval_days_;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_FIXED_INTERVAL_POLICY_H_
