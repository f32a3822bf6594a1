#include "lib/recrawl/sampling_step_rule.h"

#include <algorithm>

namespace crawler::recrawl {
namespace {

// A Last-Modified that dates a change inside the visit's interval (see change_rate_estimator.cc
// for why a zero age or one before the previous visit is not used).
bool DatesChange(const Visit& visit) {
  return visit.has_last_modified && visit.since_last_modified_seconds > 0 &&
         visit.since_last_modified_seconds <= visit.interval_seconds;
}

}  // namespace

SamplingStepRule::SamplingStepRule(SamplingStepRuleOptions options) : options_(options) {}

std::optional<double> SamplingStepRule::LatestChangeIntervalDays(const VisitHistory& history) {
  if (history.empty() || !history.latest().changed) return std::nullopt;
  // Times are in seconds before the latest visit.
  const Visit& latest = history.latest();
  double visit_age = 0;  // how long before the latest visit visit i was made
  if (DatesChange(latest)) {
    const double latest_change = latest.since_last_modified_seconds;
    visit_age = latest.interval_seconds;
    for (int i = history.size() - 2; i >= 0; --i) {
      const Visit& visit = history[i];
      if (visit.has_last_modified) {
        const double change = visit_age + visit.since_last_modified_seconds;
        if (change > latest_change) return (change - latest_change) / kSecondsPerDay;
      }
      visit_age += visit.interval_seconds;
    }
  }
  visit_age = latest.interval_seconds;
  for (int i = history.size() - 2; i >= 0; --i) {
    if (history[i].changed) return visit_age / kSecondsPerDay;
    visit_age += history[i].interval_seconds;
  }
  return std::nullopt;
}

Decision SamplingStepRule::Decide(const PageView& page, const PolicyState& previous) const {
  Decision decision{previous, 0};
  double interval = previous.interval_days;
  if (page.history.empty() || interval <= 0) {
    interval = options_.initial_interval_days;
  } else if (!page.history.latest().changed) {
    interval += options_.increase_days;
  } else if (const std::optional<double> change = LatestChangeIntervalDays(page.history)) {
    if (*change < interval - options_.tolerance_days) {
      interval -= options_.decrease_days;
    } else if (*change > interval + options_.tolerance_days) {
      interval += options_.increase_days;
    }
  }
  interval = std::clamp(interval, options_.min_interval_days, options_.max_interval_days);
  decision.state.interval_days = interval;
  decision.next_visit_in_days = interval;
  return decision;
}

}  // namespace crawler::recrawl
