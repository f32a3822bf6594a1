// Closed forms for the time-averaged freshness and age of one page whose content changes as a
// Poisson process with rate lambda and which is re-visited f times per unit time, from J. Cho and
// H. Garcia-Molina, "Effective Page Refresh Policies for Web Crawlers", ACM TODS 28(4), 2003
// (§4, synchronization order). With r = lambda / f and I = 1 / f:
//
//   fixed order     (every I exactly)         F = (1 - e^-r) / r
//                                             A = I (1/2 - 1/r + (1 - e^-r) / r^2)
//   random order    (once per cycle of I, at  F = (1/r) (1 - q^2),  q = (1 - e^-r) / r
//                    a uniform random point)  A = I (7/12 - 1/r + (1 - q^2) / r^2)
//   purely random   (Poisson visits, rate f)  F = 1 / (1 + r)
//                                             A = I r / (1 + r)
//
// Freshness is the fraction of time the copy equals the live page; age is the expected time
// since the live page first changed after the copy was taken (0 while fresh). Units: rates and
// frequencies per day, ages in days (any unit works if used consistently). Small r uses series
// expansions so the results stay accurate where the formulas cancel. docs/recrawl.md derives the
// random-order forms (visit gaps are triangular on [0, 2I]).
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_RECRAWL_FRESHNESS_H_
#define CRAWLER_LIB_RECRAWL_FRESHNESS_H_

namespace crawler::recrawl {

enum class VisitOrder {
  kFixed,         // the same order every cycle: page visited at exact intervals I
  kRandom,        // a fresh random order every cycle
  kPurelyRandom,  // each visit picks a page at random: exponential gaps
};

// Time-averaged freshness in [0, 1]. rate_per_day == 0 gives 1 (the copy never goes stale);
// visits_per_day == 0 with a positive rate gives 0 (the long-run limit).
// REQUIRES: both arguments >= 0.
double ExpectedFreshness(VisitOrder order, double rate_per_day, double visits_per_day);

// Time-averaged age in days; 0 for a page that never changes, +infinity for one never visited.
// REQUIRES: both arguments >= 0.
double ExpectedAgeDays(VisitOrder order, double rate_per_day, double visits_per_day);

// dF/df for the fixed order, the marginal freshness of one more visit per day:
//   dF/df = (1 - e^-r (1 + r)) / lambda.
// Decreasing in f (F is concave), tending to 1 / lambda as f -> 0. Used by the optimiser
// (optimal_frequency.h). 0 when rate_per_day == 0. REQUIRES: both arguments >= 0.
double FixedOrderFreshnessDerivative(double rate_per_day, double visits_per_day);

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_FRESHNESS_H_
