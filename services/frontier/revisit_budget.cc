#include "services/frontier/revisit_budget.h"

#include <algorithm>
#include <cmath>

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
  if (spend_since_ == absl::InfiniteFuture()) spend_since_ = spend_updated_ = now;
}

double RevisitBudget::SpendWindowDays() const {
  constexpr double kUnlimitedWindowDays = 10.0 / (24 * 60);
  return limited() ? kSpendWindowVisits / visits_per_day_ : kUnlimitedWindowDays;
}

void RevisitBudget::RecordSpend(uint64_t visits, absl::Time now) {
  if (spend_since_ == absl::InfiniteFuture()) spend_since_ = spend_updated_ = now;
  now = std::max(now, spend_updated_);
  const double window = SpendWindowDays();
  const double elapsed = absl::ToDoubleHours(now - spend_updated_) / 24;
  spend_rate_ = spend_rate_ * std::exp(-elapsed / window) + static_cast<double>(visits) / window;
  spend_updated_ = now;
}

double RevisitBudget::spent_visits_per_day(absl::Time now) const {
  if (spend_since_ == absl::InfiniteFuture() || now <= spend_since_) return 0;
  now = std::max(now, spend_updated_);
  const double window = SpendWindowDays();
  const double rate =
      spend_rate_ * std::exp(-absl::ToDoubleHours(now - spend_updated_) / 24 / window);
  // The weights of an average that began at spend_since_ add up to 1 - e^(-age/window), not 1:
  // dividing by them makes the early figure the mean since the start instead of a low one.
  const double weight = -std::expm1(-absl::ToDoubleHours(now - spend_since_) / 24 / window);
  return weight > 0 ? rate / weight : 0;
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
