#include "services/collections/shares.h"

#include <algorithm>
#include <cmath>

#include "services/collections/collection.h"

namespace crawler::collections {

size_t LeaseAheadPerHost(const politeness::PolitenessOptions& politeness, absl::Duration refill) {
  const size_t connections = static_cast<size_t>(std::max(1, politeness.max_connections_per_host));
  const absl::Duration per_url = std::max(politeness.min_delay, kFastResponse);
  // The URLs in flight, plus those the host takes while the refill is on its way.
  const auto rounds = static_cast<size_t>(1 + std::ceil(absl::FDivDuration(refill, per_url)));
  return std::clamp(connections * rounds, std::max<size_t>(4, connections),
                    std::max<size_t>(64, connections));
}

uint64_t ShareOf(uint64_t total, uint32_t k, uint32_t n) {
  if (total == CollectionLimits::kUnlimited || n <= 1) return total;
  return total / n + (k < total % n ? 1 : 0);
}

}  // namespace crawler::collections
