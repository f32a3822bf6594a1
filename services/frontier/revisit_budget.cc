#include "services/frontier/revisit_budget.h"

#include <algorithm>

namespace crawler::frontier {

void RevisitBudget::SetRate(double visits_per_day, absl::Duration burst, absl::Time now) {
  const bool first = !limited();
  if (!first) Refill(now);
  visits_per_day_ = visits_per_day;
  capacity_ = std::max(1.0, visits_per_day * absl::ToDoubleHours(burst) / 24);
  // The first budget starts with one token, not a full burst: a burst is only what was saved
  // by spending less than the budget, so spend over any stretch stays within budget + burst.
  tokens_ = first ? 1.0 : std::min(tokens_, capacity_);
  refilled_ = now;
}

void RevisitBudget::Refill(absl::Time now) {
  if (now <= refilled_) return;
  tokens_ = std::min(capacity_,
                     tokens_ + visits_per_day_ * absl::ToDoubleHours(now - refilled_) / 24);
  refilled_ = now;
}

bool RevisitBudget::Available(absl::Time now) {
  if (!limited()) return true;
  Refill(now);
  return tokens_ >= 1;
}

bool RevisitBudget::TryTake(absl::Time now) {
  if (!Available(now)) return false;
  if (limited()) tokens_ -= 1;
  return true;
}

}  // namespace crawler::frontier
