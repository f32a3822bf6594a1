// RevisitBudget: the token bucket that makes a partition's share of the collection's re-visit
// budget a hard cap (docs/architecture.md §7). Whatever the re-visit policy asks, at most
// visits_per_day x elapsed days + burst re-visits are released over any stretch of time.
// First visits and retries never take a token: only a page's re-visit does.
//
// Tokens accrue continuously at visits_per_day, up to a capacity of one burst's worth
// (visits_per_day x burst, at least one token so a small budget still releases whole visits).
// A new rate keeps the tokens already saved (up to the new capacity). Unlimited until the first
// SetRate: before the scheduler's first tuning there is no budget to split. The first SetRate
// starts with one token; tokens saved beyond it come only from spending less than the budget.
//
// It also measures what is spent (RecordSpend: the re-visits actually made), as a rate next to
// the budget: an exponentially weighted mean whose time constant is the time the budget takes
// to pay for kSpendWindowVisits visits (5 s at 20 visits/s, 1.2 h at 2,000 a day; 10 min
// while unlimited), so the figure follows changes in spend yet counts enough visits to be
// steady (~7% relative noise for Poisson-like spend). Before one time constant has passed since
// the measurement began (the first SetRate or RecordSpend) it is the mean since then.
//
// Thread-safety: none; the Frontier holds it under its mutex. Time comes from the caller.
#ifndef CRAWLER_SERVICES_FRONTIER_REVISIT_BUDGET_H_
#define CRAWLER_SERVICES_FRONTIER_REVISIT_BUDGET_H_

#include <cstdint>

#include "absl/time/time.h"

namespace crawler::frontier {

class RevisitBudget {
 public:
  // REQUIRES: visits_per_day > 0 and finite, burst >= 0.
  void SetRate(double visits_per_day, absl::Duration burst, absl::Time now);

  // True once SetRate was called.
  bool limited() const { return visits_per_day_ > 0; }
  // 0 while unlimited.
  double visits_per_day() const { return visits_per_day_; }

  // Takes one token if one is available at `now`; always true while unlimited.
  bool TryTake(absl::Time now);
  // True if TryTake(now) would succeed, without taking.
  bool Available(absl::Time now);

  // Counts `visits` re-visits made at `now` (measured spend). Times must not go backwards by
  // more than the clock's jitter; an earlier `now` counts as the latest time seen.
  void RecordSpend(uint64_t visits, absl::Time now);
  // Measured spend at `now`, re-visits per day (see above); 0 before anything was measured.
  double spent_visits_per_day(absl::Time now) const;

  static constexpr double kSpendWindowVisits = 100;

 private:
  void Refill(absl::Time now);
  // The measurement's time constant, days.
  double SpendWindowDays() const;

  double visits_per_day_ = 0;
  double capacity_ = 0;
  double tokens_ = 0;
  absl::Time refilled_ = absl::InfinitePast();

  // Measured spend: an exponentially weighted rate (visits per day) as of spend_updated_.
  double spend_rate_ = 0;
  absl::Time spend_since_ = absl::InfiniteFuture();  // when the measurement began
  absl::Time spend_updated_ = absl::InfiniteFuture();
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_REVISIT_BUDGET_H_
