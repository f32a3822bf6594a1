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

#include "absl/types/span.h"
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
  // With a fitted prior: choose f to maximise the posterior-expected E[w F(lambda, f)] - mu f
  // (ExpectedOptimalVisitsPerDay()) instead of plugging the posterior log-mean rate into the
  // optimum. Off: in crawlsim it did not capture more of the oracle's gain (docs/recrawl.md §9).
  bool expected_freshness = false;
  // Probing (with a fitted prior). A page visited at intervals much longer than 1 / lambda sees a
  // change at every visit whether it changes a little or a lot faster than visited, so its
  // posterior cannot tell a page worth visiting from one the budget should abandon (rate above
  // weight / mu). The policy then considers one extra visit after probe_ratio / (weight / mu)
  // days, the interval at which one visit tells rates near that line apart best (a Bernoulli
  // visit's Fisher information t^2 e^{-lambda t} / (1 - e^{-lambda t}) peaks at lambda t = 1.59),
  // and makes it when the expected gain in the decision's value per day, over
  // probe_horizon_days, exceeds the visit's cost mu. A probe never follows a probe. 0 (default)
  // turns probing off: in crawlsim it did not capture more of the oracle's gain (§9).
  double probe_horizon_days = 0;
  double probe_ratio = 1.6;

  friend bool operator==(const OptimalPolicyOptions&, const OptimalPolicyOptions&) = default;
};

// The f >= 0 that maximises sum_k p_k w F(lambda_k, f) - mu f for a belief that the page's rate
// is rates[k] with probability probabilities[k] (summing to 1), F the fixed-order freshness: the
// optimum of OptimalFrequency under uncertainty. f = 0 when w E[1 / lambda] <= mu; otherwise the
// root of sum_k p_k w g(lambda_k / f) / lambda_k = mu (g as in optimal_frequency.h), ~1e-15
// relative. REQUIRES: equal sizes, rates > 0, weight >= 0, mu > 0.
double ExpectedOptimalVisitsPerDay(absl::Span<const double> rates,
                                   absl::Span<const double> probabilities, double weight,
                                   double mu);

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
