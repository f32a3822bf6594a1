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
};

struct PosteriorAllocation {
  // The multiplier: +infinity when the floor alone spends the budget (or no page changes).
  double mu = 0;
  // The planned visits per day of the pages solved over, were each re-decided now: the
  // target, to ~1e-9, unless mu is +infinity.
  double visits_per_day = 0;
  // What the plan aims at: the budget plus the lag of the pages' commitments (below).
  double target_visits_per_day = 0;
  // The commitments of the pages that report one (FleetEvidence::Add), visits per day.
  double committed_visits_per_day = 0;
  // The posterior-expected freshness of those pages under the plan (unweighted mean).
  double expected_freshness = 0;

  // Solves mu so that the posterior decisions of the pages in `evidence` (unit weights) sum to
  // `budget_visits_per_day`, corrected by the lag of their commitments: with a previous mu
  // (options.mu_hint), the pages that report a commitment (FleetEvidence::Add) would be decided
  // sum_c (pages x f_c(previous mu)) on today's evidence and are committed to less (or more);
  // the target is the budget plus half that difference, within [0.5, 1.5] x the budget, so
  // that the commitments, which follow only as pages are visited, move towards the budget
  // without swinging around it (posterior_allocation.cc).
  // kInvalidArgument for a budget that is not a positive number or a negative floor;
  // kFailedPrecondition for evidence without pages.
  static absl::StatusOr<PosteriorAllocation> Solve(const FleetEvidence& evidence,
                                                   const RatePrior& prior,
                                                   double budget_visits_per_day,
                                                   const PosteriorAllocationOptions& options = {});
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_POSTERIOR_ALLOCATION_H_
