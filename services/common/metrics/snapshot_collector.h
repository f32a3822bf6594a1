// SnapshotCollector: metrics read from a component's own counters when /metrics is scraped,
// for values the component already keeps (queue sizes, disk space, counters behind a Stats()
// call): nothing is added to its hot path, and a scrape costs one Stats() call.
//
// Usage:
//   server.AddCollectable(std::make_shared<SnapshotCollector>([&core] {
//     const Stats s = core.Stats();
//     SnapshotFamilies out;
//     out.Gauge("crawler_frontier_leases_active", "Leases not yet completed.")
//         .Add({{"partition", "0"}}, s.leased);
//     return out.Take();
//   }));
//
// Thread-safety: the callback runs on the exposer's threads, one scrape at a time or several at
// once; it must be thread-safe and must not block for long.
#ifndef CRAWLER_SERVICES_COMMON_METRICS_SNAPSHOT_COLLECTOR_H_
#define CRAWLER_SERVICES_COMMON_METRICS_SNAPSHOT_COLLECTOR_H_

#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace crawler::metrics {

// One metric family being filled by a snapshot callback.
class SnapshotFamily {
 public:
  explicit SnapshotFamily(prometheus::MetricFamily& family) : family_(family) {}
  SnapshotFamily& Add(const std::map<std::string, std::string>& labels, double value);
  // A histogram's sample (the family made by SnapshotFamilies::Histogram): `counts[i]` values in
  // (bounds[i-1], bounds[i]], not cumulative, and counts.back() above the last bound.
  SnapshotFamily& AddHistogram(const std::map<std::string, std::string>& labels,
                               std::span<const double> bounds, std::span<const uint64_t> counts,
                               double sum);

 private:
  prometheus::MetricFamily& family_;
};

// The families of one snapshot.
class SnapshotFamilies {
 public:
  SnapshotFamily Gauge(std::string name, std::string help);
  SnapshotFamily Counter(std::string name, std::string help);
  SnapshotFamily Histogram(std::string name, std::string help);
  std::vector<prometheus::MetricFamily> Take() {
    return {std::make_move_iterator(families_.begin()), std::make_move_iterator(families_.end())};
  }

 private:
  SnapshotFamily Make(std::string name, std::string help, prometheus::MetricType type);
  // A deque: a SnapshotFamily stays valid while later families are added.
  std::deque<prometheus::MetricFamily> families_;
};

class SnapshotCollector final : public prometheus::Collectable {
 public:
  using Callback = std::function<std::vector<prometheus::MetricFamily>()>;
  explicit SnapshotCollector(Callback callback) : callback_(std::move(callback)) {}
  std::vector<prometheus::MetricFamily> Collect() const override { return callback_(); }

 private:
  const Callback callback_;
};

}  // namespace crawler::metrics

#endif  // CRAWLER_SERVICES_COMMON_METRICS_SNAPSHOT_COLLECTOR_H_
