// The freshness optimum decided on each page's posterior rather than on a point estimate
// (docs/architecture.md §7). A page's rate is uncertain; its posterior under the fleet's fitted
// prior (RatePrior) says how uncertain. The visit frequency that maximises the page's
// posterior-expected value, E[w F(lambda, f)] - mu f with F the fixed-order freshness, is the
// Bayes decision for that evidence; the budget is the only link between pages, so the
// Lagrangian separates and the allocation of these decisions with mu solved to the budget is
// the best any rule can make from the same evidence and prior. Where the evidence cannot tell
// pages apart, their posteriors are alike, so are their decisions, and budget does not move on
// noise; a censored page (changed at every visit) is weighed by everything its posterior keeps
// possible, not by one number inside that range.
//
// PosteriorVisitsPerDay() is the per-page decision, O(grid points) per Newton step.
// PosteriorAllocation::Solve() finds mu over a FleetEvidence: every evidence cell stands for its
// pages with one posterior, so a solve costs O(cells x points) per step whatever the number of
// pages, and the frontier applies the same decision to each page's exact evidence.
//
// Thread-safety: pure functions and immutable values.
#ifndef CRAWLER_LIB_RECRAWL_POSTERIOR_ALLOCATION_H_
#define CRAWLER_LIB_RECRAWL_POSTERIOR_ALLOCATION_H_

#include <array>

#include "absl/status/statusor.h"
#include "lib/recrawl/rate_prior.h"

namespace crawler::recrawl {

// A posterior over RatePrior's grid, restricted to the points that carry probability (> 1e-10).
struct Belief {
  std::array<double, RatePrior::kPoints> rates{};
  std::array<double, RatePrior::kPoints> probabilities{};
  int size = 0;

  static Belief Of(const std::array<double, RatePrior::kPoints>& posterior);
  // E[1 / lambda], days: w E[1 / lambda] is the value of a page's very first visit per day.
  double InverseMean() const;
  // exp(E[ln lambda]), changes per day.
  double LogMeanRate() const;
};

// The f >= 0 that maximises sum_k p_k w F(lambda_k, f) - mu f: 0 when w E[1 / lambda] <= mu,
// otherwise the root of sum_k p_k w g(lambda_k / f) / lambda_k = mu (g as in
// optimal_frequency.h), found by a safeguarded Newton iteration on ln f to ~1e-12 relative.
// `start` (> 0) is a guess that saves steps, e.g. the previous answer. REQUIRES: weight >= 0,
// mu > 0.
double PosteriorVisitsPerDay(const Belief& belief, double weight, double mu, double start = 0);

// sum_k p_k w F(lambda_k, f): the expected freshness of visiting f times a day, weighted.
double PosteriorFreshness(const Belief& belief, double weight, double visits_per_day);

struct PosteriorAllocationOptions {
  // Every page gets at least this many visits per day (AllocationOptions::min_visits_per_day).
  double min_visits_per_day = 0;
  // The previous solve's mu, if any: the solve starts there (mu moves little between tunings).
  double mu_hint = 0;
  // A page is reconsidered only at its next visit, so the fleet's commitments (each page's
  // last decided f, FleetEvidence::Add) lag behind what mu decides today. With a horizon
  // (days, > 0) the solve counts on the commitments that will still stand by then as they
  // are: a page committed to c visits a day is still waiting for its next visit after the
  // horizon with probability max(0, 1 - c horizon) (its pages parked at the floor wholly), and
  // mu is solved so that the pages re-decided within the horizon, at today's decisions, and
  // those that will not be, at their commitments, spend the budget together. The shorter the
  // horizon, the fewer pages carry the correction and the harder it pushes them. 0: every page
  // counted at today's decision, as if all were re-decided now.
  double commitment_horizon_days = 0;
};

struct PosteriorAllocation {
  // The multiplier: +infinity when the floor alone spends the budget (or no page changes).
  double mu = 0;
  // The planned visits per day of the pages solved over, were each re-decided now: the
  // target, to ~1e-9, unless mu is +infinity.
  double visits_per_day = 0;
  // What the plan aims at: the budget plus the lag of the commitments that stand (the plan's
  // decisions for those pages minus their commitments); the budget without a horizon.
  double target_visits_per_day = 0;
  // The commitments of the pages that report one (FleetEvidence::Add), visits per day.
  double committed_visits_per_day = 0;
  // The posterior-expected freshness of those pages under the plan (unweighted mean).
  double expected_freshness = 0;

  // Solves mu so that the posterior decisions of the pages in `evidence` (unit weights) spend
  // `budget_visits_per_day`: sum over the cells of (pages - standing committed pages) x
  // max(f_c(mu), floor) + standing commitments = the budget, the standing share of each cell
  // as options.commitment_horizon_days says (none without a horizon). When the floor and the
  // standing commitments alone spend the budget, mu is +infinity.
  // kInvalidArgument for a budget that is not a positive number or a negative floor;
  // kFailedPrecondition for evidence without pages.
  static absl::StatusOr<PosteriorAllocation> Solve(const FleetEvidence& evidence,
                                                   const RatePrior& prior,
                                                   double budget_visits_per_day,
                                                   const PosteriorAllocationOptions& options = {});
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_POSTERIOR_ALLOCATION_H_
