#include "lib/recrawl/nutch_adaptive_schedule.h"

#include <algorithm>

namespace crawler::recrawl {

NutchAdaptiveSchedule::NutchAdaptiveSchedule(NutchAdaptiveOptions options) : options_(options) {}

Decision NutchAdaptiveSchedule::Decide(const PageView& page, const PolicyState& previous) const {
  Decision decision{previous, 0};
  PolicyState& state = decision.state;
  if (page.history.empty() || previous.interval_days <= 0) {
    state.interval_days = options_.initial_interval_days;
    state.reference_days = page.now_days;
    decision.next_visit_in_days = state.interval_days;
    return decision;
  }
  double interval = previous.interval_days;
  double modified = previous.reference_days;
  if (page.history.latest().changed) {
    interval *= 1.0 - options_.dec_rate;
    modified = page.now_days;
  } else {
    interval *= 1.0 + options_.inc_rate;
  }
  double reference = page.now_days;
  if (options_.sync_delta) {
    const double delta = page.now_days - modified;
    if (delta > interval) interval = delta;
    reference = page.now_days - delta * options_.sync_delta_rate;
  }
  interval = std::clamp(interval, options_.min_interval_days, options_.max_interval_days);
  state.interval_days = interval;
  state.reference_days = modified;
  decision.next_visit_in_days = reference + interval - page.now_days;
  return decision;
}

}  // namespace crawler::recrawl
