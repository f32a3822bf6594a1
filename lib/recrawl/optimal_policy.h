// OptimalPolicy: the freshness-optimal allocation of Cho & Garcia-Molina (TODS 2003, §5) driven
// by estimated rates (DESIGN.md §7). Retune() solves the multiplier mu over the fleet's histogram
// of rate estimates (AllocationSolver); Decide() re-estimates the page's rate from its history
// (PageRate(): the posterior under the fleet's fitted prior when the fleet summary carries one,
// else BayesianRate() with a Gamma prior centred on the fleet's mean rate; the true rate in oracle
// runs) and returns 1 / f with f = OptimalFrequency(lambda, weight, mu), O(1) per page. Pages too
// fast for the budget get f = 0 unless min_visits_per_day keeps them explored. Uses
// PolicyState::rate_per_day.
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_OPTIMAL_POLICY_H_
#define CRAWLER_LIB_RECRAWL_OPTIMAL_POLICY_H_

#include "lib/recrawl/allocation_solver.h"
#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

struct OptimalPolicyOptions {
  // Exploration floor, visits per day (>= 0): no page waits longer than 1 / floor. 0 is the pure
  // optimum, right for known rates; with estimated rates a small floor lets a page whose estimate
  // was too high be looked at again. Its cost comes out of the budget.
  double min_visits_per_day = 0;
  // Shape of the Gamma prior of the rate estimator (> 1); see GammaPrior. Larger trusts the
  // fleet mean longer.
  double prior_shape = 2.0;

  friend bool operator==(const OptimalPolicyOptions&, const OptimalPolicyOptions&) = default;
};

class OptimalPolicy final : public RevisitPolicy {
 public:
  explicit OptimalPolicy(OptimalPolicyOptions options = {});
  std::string_view name() const override { return "optimal"; }
  // Solves mu. Without rates (null or empty histogram) pages get the uniform interval.
  void Retune(const FleetSummary& fleet) override;
  Decision Decide(const PageView& page, const PolicyState& previous) const override;

  // The current allocation (mu = 0 until Retune() has solved one).
  const Allocation& allocation() const { return allocation_; }

 private:
  OptimalPolicyOptions options_;
  AllocationSolver solver_;
  PagePrior prior_;
  Allocation allocation_;
  double uniform_interval_days_ = 1.0;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_OPTIMAL_POLICY_H_
