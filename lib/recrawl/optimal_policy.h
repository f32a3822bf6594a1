// OptimalPolicy: the freshness-optimal allocation of Cho & Garcia-Molina (TODS 2003, §5) driven
// by estimated rates (docs/architecture.md §7), decided on each page's posterior.
//
// The rule. Under the fleet's fitted prior (FleetSummary::prior, with the fleet's evidence
// FleetSummary::evidence), every page with a history is given the f that maximises its
// posterior-expected value E[w F(lambda, f)] - mu f (posterior_allocation.h), with mu solved
// over the fleet's posteriors so that these decisions spend the budget (PosteriorAllocation).
// This is the Bayes decision for the evidence at hand: where the evidence cannot tell pages
// apart their posteriors, and so their visits, are alike, and the allocation falls back toward
// uniform by itself; where it can, budget moves to the pages worth it. Retune() solves mu;
// Decide() computes the page's posterior from its pooled evidence and its f, O(grid points).
//
// Without a fitted prior (before the first fit, with the fleet-mean prior, for oracle runs) the
// page's rate estimate (PageRate(): the posterior log-mean under the fitted prior, else
// BayesianRate() with a Gamma prior centred on the fleet's mean rate; the true rate in oracle
// runs) is plugged into OptimalFrequency(lambda, weight, mu), mu solved over the fleet's
// histogram of estimates (AllocationSolver). Pages too fast for the budget get f = 0 unless
// min_visits_per_day keeps them explored. Sets PolicyState::rate_per_day (the posterior
// log-mean under the rule), which callers keep in the fleet's RateHistogram, and
// PolicyState::interval_days (the interval decided), which callers keep in the fleet's evidence
// as the page's commitment (CommittedVisitsPerDay()).
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_OPTIMAL_POLICY_H_
#define CRAWLER_LIB_RECRAWL_OPTIMAL_POLICY_H_

#include <cstdint>

#include "absl/types/span.h"
#include "lib/recrawl/allocation_solver.h"
#include "lib/recrawl/posterior_allocation.h"
#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

struct OptimalPolicyOptions {
  // Exploration floor, visits per day (>= 0): no page waits longer than 1 / floor. 0 is the pure
  // optimum, right for known rates; with estimated rates a small floor lets a page whose estimate
  // was too high be looked at again. Its cost comes out of the budget.
  double min_visits_per_day = 0;
  // With the posterior rule (below): no page with a history waits longer than this many uniform
  // intervals (pages / budget) for its next visit, a floor of budget / (pages x this) visits a
  // day when that is above min_visits_per_day, paid from the budget the same way. A page the
  // rule parks (too fast to be worth a visit) is parked on evidence that can go stale: its rate
  // may drift, or a burst of changes may have made it look fast; looked at again, it is
  // re-decided on fresh evidence and under the plan of the day, which moves as the fleet is
  // learnt. In crawlsim, parking for 30 uniform intervals left the fast log-normal web with
  // Last-Modified at 0.93 of uniform's freshness when rates drift and at 0.96 when changes come
  // in bursts; at 4 both are at uniform or above, and on constant rates the pages near the
  // abandon line, re-decided sooner, capture more of the oracle's gain; at 8 bursts still
  // misled it, at 3 the floor's visits to pages rightly parked cost capture on fast webs
  // (docs/recrawl.md §9). 0 turns it off (oracle runs: known rates do not go stale).
  double max_uniform_intervals = 4;
  // Shape of the Gamma prior of the rate estimator (> 1); see GammaPrior. Larger trusts the
  // fleet mean longer.
  double prior_shape = 2.0;
  // With a fitted prior and the fleet's evidence: decide every page on its posterior, mu solved
  // over the fleet's posteriors (the rule above). Off: the posterior log-mean is plugged into
  // the optimum, mu solved over the histogram of log-means; in crawlsim that fell below
  // uniform on webs it was not tuned on and left budget unspent (docs/recrawl.md §9).
  bool expected_freshness = true;
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
// optimum of OptimalFrequency under uncertainty (PosteriorVisitsPerDay() for any rates). f = 0
// when w E[1 / lambda] <= mu; otherwise the root of sum_k p_k w g(lambda_k / f) / lambda_k = mu
// (g as in optimal_frequency.h), ~1e-12 relative. REQUIRES: equal sizes, at most
// RatePrior::kPoints, rates > 0 and increasing, weight >= 0, mu > 0.
double ExpectedOptimalVisitsPerDay(absl::Span<const double> rates,
                                   absl::Span<const double> probabilities, double weight,
                                   double mu);

// The floor of the posterior rule (visits per day) for a fleet of `page_count` pages sharing
// `budget_visits_per_day`: options.min_visits_per_day, raised to one visit per
// options.max_uniform_intervals uniform intervals (pages / budget). What OptimalPolicy::Retune
// solves with; a caller that repeats the solve (a scheduler's report) passes the same floor.
double PosteriorRuleFloor(const OptimalPolicyOptions& options, double budget_visits_per_day,
                          int64_t page_count);

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

  // The rule's decision for a page with a history under the fitted prior.
  Decision DecideOnPosterior(const PageView& page, Decision decision) const;

  OptimalPolicyOptions options_;
  AllocationSolver solver_;
  PagePrior prior_;
  Allocation allocation_;
  // mu of the posterior allocation (+infinity: only the floor), once solved; 0 otherwise.
  double posterior_mu_ = 0;
  // The floor of the posterior rule: min_visits_per_day or the max_uniform_intervals floor.
  double posterior_floor_ = 0;
  double uniform_interval_days_ = 1.0;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_OPTIMAL_POLICY_H_
