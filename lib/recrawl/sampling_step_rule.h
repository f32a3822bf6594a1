// SamplingStepRule: the sampling-frequency step rule of a 2004 sampling-frequency tuning report
// (docs/architecture.md §7): after every visit, lengthen the page's sampling interval by 2 days
// when the page changes more slowly than it is sampled, shorten it by 4 days when it changes
// faster, keep it otherwise, and clamp it to [1, 30] days.
//
// The report is not available to us; this is our reading of that description, documented in
// docs/recrawl.md:
//   - no change since the previous visit: the page changes more slowly than sampled (+2);
//   - a change: compare the page's latest change interval D with the sampling interval I:
//     D < I - tolerance is faster (-4), D > I + tolerance is slower (+2), else keep. D is the
//     time between the last two Last-Modified dates when the server sends them, otherwise the
//     time since the previous visit that detected a change; with neither, keep.
// A page changing every 5 days and sampled first after 1 day goes 1 -> 3 -> 5 days and stays.
// Uses PolicyState::interval_days.
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_SAMPLING_STEP_RULE_H_
#define CRAWLER_LIB_RECRAWL_SAMPLING_STEP_RULE_H_

#include <optional>

#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

struct SamplingStepRuleOptions {
  double increase_days = 2.0;
  double decrease_days = 4.0;
  double min_interval_days = 1.0;
  double max_interval_days = 30.0;
  // The interval after a page's first visit (clamped to [min, max]).
  double initial_interval_days = 1.0;
  // |D - I| within this counts as "as fast as sampled": the report worked in whole days.
  double tolerance_days = 0.5;

  friend bool operator==(const SamplingStepRuleOptions&, const SamplingStepRuleOptions&) = default;
};

class SamplingStepRule final : public RevisitPolicy {
 public:
  explicit SamplingStepRule(SamplingStepRuleOptions options = {});
  std::string_view name() const override { return "step"; }
  Decision Decide(const PageView& page, const PolicyState& previous) const override;

  // The page's latest change interval D in days as defined above, if known. Exposed for tests.
  static std::optional<double> LatestChangeIntervalDays(const VisitHistory& history);

 private:
  SamplingStepRuleOptions options_;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_SAMPLING_STEP_RULE_H_
