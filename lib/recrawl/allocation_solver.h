// AllocationSolver: the fleet half of the freshness optimiser (docs/architecture.md §7). Given the
// pages' change rates lambda_i, importance weights w_i and a budget B of visits per day, it finds
// the Lagrange multiplier mu of
//   maximise sum_i w_i F(lambda_i, f_i)  subject to  sum_i f_i = B,  f_i >= 0,
// with F the fixed-order freshness (Cho & Garcia-Molina, TODS 2003, §5). F is concave in f, so
// the optimum is where w_i dF/df_i = mu for every visited page, and pages whose first visit is
// worth less than mu get f_i = 0 (optimal_frequency.h has the derivation). Each page's f_i then
// follows from its own lambda_i and the one number mu: the scheduler solves mu, the frontier
// applies OptimalFrequency per URL.
//
// sum_i f_i(mu) is continuous and decreasing in mu, so mu is found by bisection on ln mu.
// Solving over a RateHistogram costs O(bins) per step whatever the number of pages; the exact
// per-page solve is for small collections and tests.
//
// An optional floor min_visits_per_day gives every page at least that frequency (exploration: a
// page whose estimate says "too fast to bother" is still re-checked now and then, so a wrong
// estimate can heal). The floor's cost comes out of the budget before the optimum is computed.
//
// Thread-safety: immutable after construction.
#ifndef CRAWLER_LIB_RECRAWL_ALLOCATION_SOLVER_H_
#define CRAWLER_LIB_RECRAWL_ALLOCATION_SOLVER_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lib/recrawl/optimal_frequency.h"
#include "lib/recrawl/rate_histogram.h"

namespace crawler::recrawl {

struct WeightedRate {
  double rate_per_day = 0;  // >= 0
  double weight = 1.0;      // >= 0
};

struct AllocationOptions {
  // Every page gets at least this many visits per day, even when its optimum is 0.
  // 0 (default) is the pure optimum. Must be >= 0.
  double min_visits_per_day = 0;
};

struct Allocation {
  // The multiplier: the freshness one more visit per day buys at the optimum (weighted).
  // +infinity when no page is worth more than the floor (the floor uses the whole budget, or
  // there is no changing page).
  double mu = 0;
  // For pages with mu * rate / weight just below 1 (r = lambda / f above ~35) F is linear in f
  // to 1e-15, and f_i(mu) varies so steeply that sum_i f_i(mu) can step over the budget between
  // two adjacent doubles mu and mu_upper (Cho's two-page example, 1 and 9 changes/day with 2
  // visits/day, sits on such a step). The optimum then mixes the two: f_i = (1 - upper_share)
  // f_i(mu) + upper_share f_i(mu_upper), both equally good to 1e-15, meeting the budget exactly.
  // Normally upper_share = 0 and mu_upper = mu.
  double mu_upper = 0;
  double upper_share = 0;
  // sum_i f_i at this allocation, visits per day: the budget, to ~1e-9 relative, unless mu is
  // +infinity.
  double visits_per_day = 0;
};

class AllocationSolver {
 public:
  explicit AllocationSolver(AllocationOptions options = {});

  // kInvalidArgument for a budget that is not a positive finite number or a negative floor.
  absl::StatusOr<Allocation> Solve(const RateHistogram& rates, double budget_visits_per_day) const;
  absl::StatusOr<Allocation> Solve(absl::Span<const WeightedRate> pages,
                                   double budget_visits_per_day) const;

  // f_i for one page under a solved allocation, including the floor: O(1).
  double VisitsPerDay(double rate_per_day, double weight, const Allocation& allocation) const;

  const OptimalFrequency& frequency() const { return frequency_; }

 private:
  // Pages grouped by key = rate / weight (one group per page for the exact solve).
  struct Group {
    double key;
    double rate_sum;
    double pages;
  };
  absl::StatusOr<Allocation> SolveGroups(absl::Span<const Group> groups, double static_pages,
                                         double budget) const;
  double TotalVisitsPerDay(absl::Span<const Group> groups, double static_pages,
                           const Allocation& allocation) const;

  AllocationOptions options_;
  OptimalFrequency frequency_;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_ALLOCATION_SOLVER_H_
