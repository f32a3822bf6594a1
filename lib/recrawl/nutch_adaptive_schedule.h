// NutchAdaptiveSchedule: Apache Nutch's AdaptiveFetchSchedule
// (src/java/org/apache/nutch/crawl/AdaptiveFetchSchedule.java) with the defaults shipped in
// conf/nutch-default.xml (db.fetch.schedule.adaptive.*: inc_rate 0.4, dec_rate 0.2,
// min_interval 60 s, max_interval 365 days, sync_delta true, sync_delta_rate 0.3; note the Java
// fallbacks in setConf() differ: inc_rate 0.2, sync_delta_rate 0.2). After each fetch:
//
//   modified:      interval *= 1 - dec_rate;  last-modified := fetch time
//   not modified:  interval *= 1 + inc_rate
//   sync_delta:    delta = fetch time - last-modified; if delta > interval, interval = delta;
//                  the next fetch is counted from fetch time - delta * sync_delta_rate
//   clamp interval to [min_interval, max_interval]; next fetch = reference + interval
//
// "Modified" is our change detection (Nutch compares signatures the same way); "last-modified" is
// Nutch's modifiedTime, which it sets to the fetch time whenever it detects a modification. The
// sync shift is kept as shipped, including NUTCH-1564: for a page unchanged for longer than
// max_interval / sync_delta_rate the next fetch lands in the past (due immediately).
// Uses PolicyState::interval_days and ::reference_days (the last-modified time).
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_NUTCH_ADAPTIVE_SCHEDULE_H_
#define CRAWLER_LIB_RECRAWL_NUTCH_ADAPTIVE_SCHEDULE_H_

#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

struct NutchAdaptiveOptions {
  double inc_rate = 0.4;                            // db.fetch.schedule.adaptive.inc_rate
  double dec_rate = 0.2;                            // db.fetch.schedule.adaptive.dec_rate
  double min_interval_days = 60.0 / kSecondsPerDay;  // db.fetch.schedule.adaptive.min_interval
  double max_interval_days = 365.0;                 // db.fetch.schedule.adaptive.max_interval
  bool sync_delta = true;                           // db.fetch.schedule.adaptive.sync_delta
  double sync_delta_rate = 0.3;                     // db.fetch.schedule.adaptive.sync_delta_rate
  // The interval of a newly injected page: db.fetch.interval.default, 2,592,000 s = 30 days.
  double initial_interval_days = 30.0;

  friend bool operator==(const NutchAdaptiveOptions&, const NutchAdaptiveOptions&) = default;
};

class NutchAdaptiveSchedule final : public RevisitPolicy {
 public:
  explicit NutchAdaptiveSchedule(NutchAdaptiveOptions options = {});
  std::string_view name() const override { return "nutch"; }
  Decision Decide(const PageView& page, const PolicyState& previous) const override;

 private:
  NutchAdaptiveOptions options_;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_NUTCH_ADAPTIVE_SCHEDULE_H_
