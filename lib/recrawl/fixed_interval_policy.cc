#include "lib/recrawl/fixed_interval_policy.h"

namespace crawler::recrawl {

FixedIntervalPolicy::FixedIntervalPolicy(FixedIntervalOptions options)
    : options_(options),
      interval_days_(options.interval_days > 0 ? options.interval_days : 1.0) {}

void FixedIntervalPolicy::Retune(const FleetSummary& fleet) {
  if (options_.interval_days > 0) return;
  if (fleet.budget_visits_per_day > 0 && fleet.page_count > 0) {
    interval_days_ = static_cast<double>(fleet.page_count) / fleet.budget_visits_per_day;
  }
}

Decision FixedIntervalPolicy::Decide(const PageView& /*page*/, const PolicyState& previous) const {
  return Decision{previous, interval_days_};
}

}  // namespace crawler::recrawl
