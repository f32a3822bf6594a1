#include "services/fetcher/fetcher_stats.h"

#include <algorithm>

namespace crawler::fetcher {

void DurationHistogram::Observe(absl::Duration d) {
  const double seconds = absl::ToDoubleSeconds(d);
  const size_t i =
      static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), seconds) - bounds.begin());
  ++counts[i];
  sum_seconds += seconds;
  ++count;
}

void DurationHistogram::Add(const DurationHistogram& other) {
  for (size_t i = 0; i < counts.size() && i < other.counts.size(); ++i) {
    counts[i] += other.counts[i];
  }
  sum_seconds += other.sum_seconds;
  count += other.count;
}

}  // namespace crawler::fetcher
