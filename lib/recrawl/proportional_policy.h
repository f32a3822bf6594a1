// ProportionalPolicy: each page is re-visited in proportion to its change rate,
// f_i = budget * lambda_i / sum_j lambda_j (the "proportional allocation" of Cho &
// Garcia-Molina, TODS 2003, §5, which they show is worse than uniform: it spends most of the
// budget on pages that change too often to be kept fresh anyway). lambda_i is the page's
// PageRate() estimate (revisit_policy.h), or its true rate in oracle runs; the sum comes from the fleet's
// RateHistogram. Uses PolicyState::rate_per_day.
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_PROPORTIONAL_POLICY_H_
#define CRAWLER_LIB_RECRAWL_PROPORTIONAL_POLICY_H_

#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

struct ProportionalOptions {
  // Shape of the Gamma prior of the rate estimator (> 1); see GammaPrior.
  double prior_shape = 2.0;

  friend bool operator==(const ProportionalOptions&, const ProportionalOptions&) = default;
};

class ProportionalPolicy final : public RevisitPolicy {
 public:
  explicit ProportionalPolicy(ProportionalOptions options = {});
  std::string_view name() const override { return "proportional"; }
  void Retune(const FleetSummary& fleet) override;
  // Until Retune() has seen rates, pages get the uniform interval (1 day before any Retune()).
  Decision Decide(const PageView& page, const PolicyState& previous) const override;

 private:
  ProportionalOptions options_;
  PagePrior prior_;
  double budget_visits_per_day_ = 0;
  double total_rate_per_day_ = 0;
  double uniform_interval_days_ = 1.0;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_PROPORTIONAL_POLICY_H_
