// How a collection becomes what a frontier partition runs: partition k of n's share of its page
// budget, its lease depth per host, depth limit, re-visit and focus options. The scheduler
// pushes these settings to each partition (Frontier.OpenCollection); the standalone crawl
// composes them with its frontier options (WithCollection). One mapping, so both crawl a
// collection alike.
//
// Thread-safety: pure function.
#ifndef CRAWLER_SERVICES_FRONTIER_COLLECTION_SETTINGS_H_
#define CRAWLER_SERVICES_FRONTIER_COLLECTION_SETTINGS_H_

#include <cstdint>
#include <optional>

#include "absl/time/time.h"
#include "services/collections/collection.h"
#include "services/frontier/frontier_api.h"

namespace crawler::frontier {

// Partition k of n's settings for `collection`. The page budget is `max_pages` when given (a
// focused collection's split by reward), else the partition's even share
// (collections::ShareOf); the URLs of a host on lease at once cover a fetcher's `lease_refill`
// (collections::LeaseAheadPerHost).
CollectionSettings SettingsFor(const collections::Collection& collection, uint32_t k, uint32_t n,
                               absl::Duration lease_refill,
                               std::optional<uint64_t> max_pages = std::nullopt);

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_COLLECTION_SETTINGS_H_
