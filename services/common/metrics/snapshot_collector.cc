#include "services/common/metrics/snapshot_collector.h"

#include <limits>

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

SnapshotFamily& SnapshotFamily::AddHistogram(const std::map<std::string, std::string>& labels,
                                             std::span<const double> bounds,
                                             std::span<const uint64_t> counts, double sum) {
  prometheus::ClientMetric metric;
  for (const auto& [name, label_value] : labels) metric.label.push_back({name, label_value});
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    cumulative += i < counts.size() ? counts[i] : 0;
    metric.histogram.bucket.push_back({.cumulative_count = cumulative, .upper_bound = bounds[i]});
  }
  for (size_t i = bounds.size(); i < counts.size(); ++i) cumulative += counts[i];
  metric.histogram.bucket.push_back(
      {.cumulative_count = cumulative, .upper_bound = std::numeric_limits<double>::infinity()});
  metric.histogram.sample_count = cumulative;
  metric.histogram.sample_sum = sum;
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

SnapshotFamily SnapshotFamilies::Histogram(std::string name, std::string help) {
  return Make(std::move(name), std::move(help), prometheus::MetricType::Histogram);
}

SnapshotFamily SnapshotFamilies::Counter(std::string name, std::string help) {
  return Make(std::move(name), std::move(help), prometheus::MetricType::Counter);
}

}  // namespace crawler::metrics
