// RevisitBudget: the token bucket that makes a partition's share of the collection's re-visit
// budget a hard cap (DESIGN.md §7). Whatever the re-visit policy asks, at most
// visits_per_day x elapsed days + burst re-visits are released over any stretch of time.
// First visits and retries never take a token: only a page's re-visit does.
//
// Tokens accrue continuously at visits_per_day, up to a capacity of one burst's worth
// (visits_per_day x burst, at least one token so a small budget still releases whole visits).
// A new rate keeps the tokens already saved (up to the new capacity). Unlimited until the first
// SetRate: before the scheduler's first tuning there is no budget to split. The first SetRate
// starts with one token; tokens saved beyond it come only from spending less than the budget.
//
// Thread-safety: none; the Frontier holds it under its mutex. Time comes from the caller.
#ifndef CRAWLER_SERVICES_FRONTIER_REVISIT_BUDGET_H_
#define CRAWLER_SERVICES_FRONTIER_REVISIT_BUDGET_H_

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

 private:
  void Refill(absl::Time now);

  double visits_per_day_ = 0;
  double capacity_ = 0;
  double tokens_ = 0;
  absl::Time refilled_ = absl::InfinitePast();
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_REVISIT_BUDGET_H_
