// The re-visit tuning's Prometheus gauges (docs/metrics.md, "Scheduler"), for the scheduler
// service and for `crawler crawl` alike: crawler_scheduler_estimated_freshness_ratio{collection}
// (RevisitTuning::expected_freshness) and crawler_scheduler_revisit_spend_ratio{collection}
// (RevisitTuning::planned_spend_ratio) and crawler_scheduler_revisit_prior_mean_rate_per_day
// {collection} (RevisitTuning::prior_mean_rate_per_day), from each re-visiting collection's
// latest tuning. A
// collection whose tuning has no such figure (its policy, or nothing scheduled yet) has no sample.
//
// Pure function over its arguments; thread-safe.
#ifndef CRAWLER_SERVICES_SCHEDULER_SCHEDULER_METRICS_H_
#define CRAWLER_SERVICES_SCHEDULER_SCHEDULER_METRICS_H_

#include <string>
#include <vector>

#include "services/common/metrics/snapshot_collector.h"
#include "services/scheduler/scheduler.h"

namespace crawler::scheduler {

struct CollectionTuning {
  std::string collection;
  RevisitTuning tuning;
};
void AppendRevisitMetrics(const std::vector<CollectionTuning>& tunings,
                          metrics::SnapshotFamilies& out);

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_SCHEDULER_METRICS_H_
