// OptimalFrequency: the per-page half of the freshness optimiser (docs/architecture.md §7). Given a
// page's change rate lambda, its importance weight w and the fleet's Lagrange multiplier mu (the
// value of one visit per day, solved by AllocationSolver), it returns the visit frequency f that
// maximises w F(lambda, f) - mu f, with F the fixed-order freshness (1 - e^-r) / r, r = lambda/f
// (Cho & Garcia-Molina, "Effective Page Refresh Policies for Web Crawlers", TODS 2003, §5).
//
// Derivation. w dF/df = (w / lambda) g(r) with g(r) = 1 - e^-r (1 + r). g rises from 0 (r -> 0,
// f -> infinity) to 1 (r -> infinity, f -> 0), so the marginal value of visits falls as f grows
// and the optimum is where it meets mu:
//   g(r) = c,  c = mu lambda / w,   f = lambda / r.
// When c >= 1, i.e. mu >= w / lambda (the marginal value of the very first visit), even one visit
// is worth less than it costs and f = 0: such pages change too fast for the budget to keep them
// fresh. The inverse r = g^-1(c) depends on c alone, so it is tabulated once (over logit c) and
// each query costs a table lookup plus two Newton steps: O(1), accurate to ~1e-13.
//
// Thread-safety: immutable after construction; share one instance freely.
#ifndef CRAWLER_LIB_RECRAWL_OPTIMAL_FREQUENCY_H_
#define CRAWLER_LIB_RECRAWL_OPTIMAL_FREQUENCY_H_

#include <vector>

namespace crawler::recrawl {

class OptimalFrequency {
 public:
  // Builds the table (8,193 entries, a few milliseconds).
  OptimalFrequency();

  // The optimal visits per day. 0 when the page never changes (rate 0), has no weight, or
  // mu >= weight / rate; +infinity when mu <= 0 (visits are free).
  // REQUIRES: rate_per_day >= 0, weight >= 0.
  double VisitsPerDay(double rate_per_day, double weight, double mu) const;

  // g^-1(c): the r = lambda / f at which (1 - e^-r (1 + r)) equals c. REQUIRES: 0 < c < 1.
  double SolveRatio(double c) const;

 private:
  std::vector<double> log_ratio_;  // ln g^-1(c) on a uniform grid of logit(c)
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_OPTIMAL_FREQUENCY_H_
