#include "services/common/metrics/snapshot_collector.h"

namespace crawler::metrics {

SnapshotFamily& SnapshotFamily::Add(const std::map<std::string, std::string>& labels,
                                    double value) {
  prometheus::ClientMetric metric;
  for (const auto& [name, label_value] : labels) metric.label.push_back({name, label_value});
  if (family_.type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family_.metric.push_back(std::move(metric));
  return *this;
}

SnapshotFamily SnapshotFamilies::Make(std::string name, std::string help,
                                      prometheus::MetricType type) {
  families_.push_back(prometheus::MetricFamily{
      .name = std::move(name), .help = std::move(help), .type = type, .metric = {}});
  return SnapshotFamily(families_.back());
}

SnapshotFamily SnapshotFamilies::Gauge(std::string name, std::string help) {
  return Make(std::move(name), std::move(help), prometheus::MetricType::Gauge);
}

SnapshotFamily SnapshotFamilies::Counter(std::string name, std::string help) {
  return Make(std::move(name), std::move(help), prometheus::MetricType::Counter);
}

}  // namespace crawler::metrics
