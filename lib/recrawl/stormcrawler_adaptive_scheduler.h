// StormCrawlerAdaptiveScheduler: StormCrawler's AdaptiveScheduler
// (core/src/main/java/org/apache/stormcrawler/persistence/AdaptiveScheduler.java) with its
// defaults: scheduler.adaptive.fetchInterval.min 60 min, .max 20160 min (14 days),
// .rate.incr 0.5, .rate.decr 0.5, and fetchInterval.default 1440 min for a new page. After each
// fetch whose signature could be compared:
//
//   changed:    interval = (int)((1 - decr) * interval + decr * min)   (slows near the minimum)
//   unchanged:  interval = (int)(interval * (1 + incr)), capped at max
//
// in whole minutes with Java float arithmetic, as the original. The first fetch of a page has no
// signature to compare and gets the default interval. Uses PolicyState::interval_days (holding a
// whole number of minutes).
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_STORMCRAWLER_ADAPTIVE_SCHEDULER_H_
#define CRAWLER_LIB_RECRAWL_STORMCRAWLER_ADAPTIVE_SCHEDULER_H_

#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

struct StormCrawlerAdaptiveOptions {
  int min_interval_minutes = 60;        // scheduler.adaptive.fetchInterval.min
  int max_interval_minutes = 20160;     // scheduler.adaptive.fetchInterval.max
  float inc_rate = 0.5f;                // scheduler.adaptive.fetchInterval.rate.incr
  float dec_rate = 0.5f;                // scheduler.adaptive.fetchInterval.rate.decr
  int default_interval_minutes = 1440;  // fetchInterval.default

  friend bool operator==(const StormCrawlerAdaptiveOptions&, const StormCrawlerAdaptiveOptions&) = default;
};

class StormCrawlerAdaptiveScheduler final : public RevisitPolicy {
 public:
  explicit StormCrawlerAdaptiveScheduler(StormCrawlerAdaptiveOptions options = {});
  std::string_view name() const override { return "stormcrawler"; }
  Decision Decide(const PageView& page, const PolicyState& previous) const override;

 private:
  StormCrawlerAdaptiveOptions options_;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_STORMCRAWLER_ADAPTIVE_SCHEDULER_H_
