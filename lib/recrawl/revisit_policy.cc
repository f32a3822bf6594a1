#include "lib/recrawl/revisit_policy.h"

#include <algorithm>

namespace crawler::recrawl {

double PageRate(const PageView& page, const PolicyState& previous, const PagePrior& prior) {
  if (page.known_rate_per_day >= 0) return page.known_rate_per_day;
  if (prior.fitted.has_value()) return prior.fitted->PosteriorRate(page.history);
  return BayesianRate(page.history, prior.gamma, previous.rate_per_day);
}

PagePrior FleetPagePrior(const FleetSummary& fleet, double shape) {
  PagePrior prior{FleetPrior(fleet, shape), std::nullopt};
  if (fleet.prior != nullptr) prior.fitted = *fleet.prior;
  return prior;
}

GammaPrior FleetPrior(const FleetSummary& fleet, double shape) {
  double mode = fleet.mean_rate_per_day;
  if (!(mode > 0) && fleet.page_count > 0 && fleet.budget_visits_per_day > 0) {
    mode = fleet.budget_visits_per_day / static_cast<double>(fleet.page_count);
  }
  if (!(mode > 0)) mode = 1.0;  // nothing known at all: daily
  return GammaPrior::WithMode(mode, std::max(shape, 1.0 + 1e-6));
}

}  // namespace crawler::recrawl
