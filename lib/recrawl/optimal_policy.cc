#include "lib/recrawl/optimal_policy.h"

#include <limits>

namespace crawler::recrawl {

OptimalPolicy::OptimalPolicy(OptimalPolicyOptions options)
    : options_(options),
      solver_(AllocationOptions{options.min_visits_per_day}),
      prior_(FleetPagePrior(FleetSummary{}, options.prior_shape)) {}

void OptimalPolicy::Retune(const FleetSummary& fleet) {
  prior_ = FleetPagePrior(fleet, options_.prior_shape);
  if (fleet.budget_visits_per_day > 0 && fleet.page_count > 0) {
    uniform_interval_days_ = static_cast<double>(fleet.page_count) / fleet.budget_visits_per_day;
  }
  allocation_ = Allocation{};
  if (fleet.rates == nullptr || fleet.rates->page_count() <= 0) return;
  absl::StatusOr<Allocation> allocation = solver_.Solve(*fleet.rates, fleet.budget_visits_per_day);
  if (allocation.ok()) allocation_ = *allocation;
}

Decision OptimalPolicy::Decide(const PageView& page, const PolicyState& previous) const {
  Decision decision{previous, uniform_interval_days_};
  decision.state.rate_per_day = PageRate(page, previous, prior_);
  if (allocation_.mu > 0) {
    const double visits_per_day =
        solver_.VisitsPerDay(decision.state.rate_per_day, page.weight, allocation_);
    decision.next_visit_in_days =
        visits_per_day > 0 ? 1.0 / visits_per_day : std::numeric_limits<double>::infinity();
  }
  return decision;
}

}  // namespace crawler::recrawl
