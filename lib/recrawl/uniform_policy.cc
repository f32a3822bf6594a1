#include "lib/recrawl/uniform_policy.h"

namespace crawler::recrawl {

void UniformPolicy::Retune(const FleetSummary& fleet) {
  if (fleet.budget_visits_per_day > 0 && fleet.page_count > 0) {
    interval_days_ = static_cast<double>(fleet.page_count) / fleet.budget_visits_per_day;
  }
}

Decision UniformPolicy::Decide(const PageView& /*page*/, const PolicyState& previous) const {
  return Decision{previous, interval_days_};
}

}  // namespace crawler::recrawl
