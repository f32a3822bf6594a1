#include "lib/recrawl/proportional_policy.h"

#include <limits>

namespace crawler::recrawl {

ProportionalPolicy::ProportionalPolicy(ProportionalOptions options)
    : options_(options), prior_(FleetPagePrior(FleetSummary{}, options.prior_shape)) {}

void ProportionalPolicy::Retune(const FleetSummary& fleet) {
  prior_ = FleetPagePrior(fleet, options_.prior_shape);
  budget_visits_per_day_ = fleet.budget_visits_per_day;
  total_rate_per_day_ = fleet.rates != nullptr ? fleet.rates->total_rate() : 0.0;
  if (fleet.budget_visits_per_day > 0 && fleet.page_count > 0) {
    uniform_interval_days_ = static_cast<double>(fleet.page_count) / fleet.budget_visits_per_day;
  }
}

Decision ProportionalPolicy::Decide(const PageView& page, const PolicyState& previous) const {
  Decision decision{previous, uniform_interval_days_};
  decision.state.rate_per_day = PageRate(page, previous, prior_);
  if (total_rate_per_day_ > 0 && budget_visits_per_day_ > 0) {
    const double visits_per_day =
        budget_visits_per_day_ * decision.state.rate_per_day / total_rate_per_day_;
    decision.next_visit_in_days =
        visits_per_day > 0 ? 1.0 / visits_per_day : std::numeric_limits<double>::infinity();
  }
  return decision;
}

}  // namespace crawler::recrawl
