// How a collection's limits are shared out: each frontier partition's share of its page budget,
// and the URLs of one host on lease at once, which the frontier caps (max_in_flight_per_host)
// and the fetcher asks for (lease_max_per_host). Both sides of a crawl compute them here, so
// they agree in the standalone crawl and in the services alike.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_COLLECTIONS_SHARES_H_
#define CRAWLER_SERVICES_COLLECTIONS_SHARES_H_

#include <cstddef>
#include <cstdint>

#include "absl/time/time.h"
#include "lib/politeness/politeness_options.h"

namespace crawler::collections {

// URLs of one host the fetcher holds on lease at once (its lease_max_per_host, and the
// frontier's max_in_flight_per_host). A host whose URLs are used up idles until its next lease
// arrives, `refill` after its last completion (the completion's trip to the frontier and the next
// lease's trip back), so the lease must cover what the host fetches meanwhile: one URL per
// connection every min_delay, or every ~5 ms (a fast server nearby) with no delay. At least 4
// (what a polite host needs: its next URLs are here when the delay ends), at most 64 unless
// max_connections_per_host is higher; a kill -9 can refetch at most these URLs per host.
size_t LeaseAheadPerHost(const politeness::PolitenessOptions& politeness, absl::Duration refill);

// The least a request takes (a fast server nearby): a host with no delay takes a URL about this
// often per connection, and a transfer slot freed by a polite host serves others meanwhile.
inline constexpr absl::Duration kFastResponse = absl::Milliseconds(5);

// Partition k's share of `total` over n partitions: the shares add up to it exactly (unlimited,
// CollectionLimits::kUnlimited, stays unlimited in every partition).
uint64_t ShareOf(uint64_t total, uint32_t k, uint32_t n);

// The refill time of a fetcher that hands its completions over every `flush_interval`.
inline absl::Duration RefillTime(absl::Duration flush_interval) { return 2 * flush_interval; }

}  // namespace crawler::collections

#endif  // CRAWLER_SERVICES_COLLECTIONS_SHARES_H_
