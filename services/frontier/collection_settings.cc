#include "services/frontier/collection_settings.h"

#include "services/collections/shares.h"

namespace crawler::frontier {

CollectionSettings SettingsFor(const collections::Collection& collection, uint32_t k, uint32_t n,
                               absl::Duration lease_refill, std::optional<uint64_t> max_pages) {
  CollectionSettings settings;
  settings.name = collection.name;
  const uint64_t share =
      max_pages.value_or(collections::ShareOf(collection.limits.max_pages, k, n));
  if (share != collections::CollectionLimits::kUnlimited) settings.max_pages = share;
  if (collection.limits.max_pages_per_host != collections::CollectionLimits::kUnlimited) {
    settings.max_pages_per_host = collection.limits.max_pages_per_host;
  }
  settings.max_in_flight_per_host =
      static_cast<uint32_t>(collections::LeaseAheadPerHost(collection.politeness, lease_refill));
  settings.max_depth = collection.scope.max_depth;
  settings.revisit = collection.revisit.options;
  settings.focus = collection.focus.FrontierOptions();
  return settings;
}

}  // namespace crawler::frontier
