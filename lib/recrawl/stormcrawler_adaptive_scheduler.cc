#include "lib/recrawl/stormcrawler_adaptive_scheduler.h"

#include <cmath>

namespace crawler::recrawl {
namespace {

constexpr double kMinutesPerDay = 1440.0;

}  // namespace

StormCrawlerAdaptiveScheduler::StormCrawlerAdaptiveScheduler(StormCrawlerAdaptiveOptions options)
    : options_(options) {}

Decision StormCrawlerAdaptiveScheduler::Decide(const PageView& page,
                                               const PolicyState& previous) const {
  Decision decision{previous, 0};
  int interval = static_cast<int>(std::lround(previous.interval_days * kMinutesPerDay));
  if (page.history.empty() || interval <= 0) {
    interval = options_.default_interval_minutes;
  } else if (page.history.latest().changed) {
    interval = static_cast<int>((1.0f - options_.dec_rate) * static_cast<float>(interval) +
                                options_.dec_rate * static_cast<float>(options_.min_interval_minutes));
  } else {
    interval = static_cast<int>(static_cast<float>(interval) * (1.0f + options_.inc_rate));
    if (interval > options_.max_interval_minutes) interval = options_.max_interval_minutes;
  }
  decision.state.interval_days = interval / kMinutesPerDay;
  decision.next_visit_in_days = decision.state.interval_days;
  return decision;
}

}  // namespace crawler::recrawl
