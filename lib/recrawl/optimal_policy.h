// OptimalPolicy: the freshness-optimal allocation of Cho & Garcia-Molina (TODS 2003, §5) driven
// by estimated rates (docs/architecture.md §7). Retune() solves the multiplier mu over the fleet's
// histogram of rate estimates (AllocationSolver); Decide() re-estimates the page's rate from its
// history (PageRate(): the posterior under the fleet's fitted prior when the fleet summary carries
// one, else BayesianRate() with a Gamma prior centred on the fleet's mean rate; the true rate in
// oracle runs) and returns 1 / f with f = OptimalFrequency(lambda, weight, mu), O(1) per page;
// under a fitted prior, pages with a change dated by Last-Modified get the f of the
// posterior-expected freshness instead (OptimalPolicyOptions::expected_freshness_when_dated). Pages
// too fast for the budget get f = 0 unless min_visits_per_day keeps them explored. Uses
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
  // optimum, for every page. Off: in crawlsim, without Last-Modified, it did not capture more of
  // the oracle's gain, and fell below uniform on a narrow rate distribution (docs/recrawl.md §9).
  bool expected_freshness = false;
  // The same decision for the pages whose evidence has a change dated by Last-Modified (the
  // log-mean plug-in for the others). A dated change makes the page's likelihood sharp, so its
  // posterior is set by what the page did rather than by the fitted prior's shape; the plug-in
  // then abandons pages whose first few changes happened to fall just before a visit (a high,
  // confident estimate above the abandon line) and, abandoned, they are never corrected, while
  // the posterior-expected value keeps the visits the remaining doubt is worth. On in crawlsim
  // with Last-Modified on every page it roughly doubles the captured share of the oracle's gain
  // (docs/recrawl.md §9); without Last-Modified it changes nothing.
  bool expected_freshness_when_dated = true;
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
  // Exploration by irregular intervals. While a page has fewer than explore_visits visits, its
  // intervals alternate between explore_short_share and 2 - explore_short_share times the
  // interval the policy chose (short after an odd number of visits): the same visits on average,
  // but a short interval tells fast rates apart that the regular interval cannot. 0 (default)
  // turns it off: in crawlsim it lowered the captured share of the oracle's gain on every rate
  // distribution, since fixed-order freshness is concave in the interval and an irregular pair
  // costs more than its information returns (docs/recrawl.md §9). REQUIRES: share in (0, 1].
  int explore_visits = 0;
  double explore_short_share = 0.3;

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
  // Decide() before the exploration's irregular intervals.
  Decision DecideRegular(const PageView& page, const PolicyState& previous) const;

  OptimalPolicyOptions options_;
  AllocationSolver solver_;
  PagePrior prior_;
  Allocation allocation_;
  double uniform_interval_days_ = 1.0;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_OPTIMAL_POLICY_H_
