// The frontier's Prometheus metrics (docs/metrics.md, "Frontier"), read when /metrics is scraped
// from FrontierStats (kept by the core as it goes: no scan of the store per scrape) and from
// statvfs of the data directory's filesystem. Used by the frontier service (one partition) and
// `crawler crawl` (every partition in one process), so the same dashboards serve both.
//
// Thread-safety: a plain function; its callers pass figures they have taken.
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_METRICS_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_METRICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "services/common/metrics/snapshot_collector.h"
#include "services/frontier/frontier_api.h"

namespace crawler::frontier {

struct PartitionFigures {
  std::string collection;  // "" when the process serves more than one collection
  uint32_t partition = 0;
  FrontierStats stats;
};

// Appends the partitions' gauges and counters (one family per metric, a sample per partition)
// and, when `data_dir` is not empty, the disk gauges of its filesystem.
void AppendFrontierSnapshot(const std::vector<PartitionFigures>& partitions,
                            const std::string& data_dir, metrics::SnapshotFamilies& out);

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_METRICS_H_
