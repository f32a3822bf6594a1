// How a collection (services/scheduler/collection.h) becomes the options of the cores that crawl
// it: each frontier partition's share of its limits and its lease depth per host, and each
// fetcher's options. The one mapping the standalone crawl (all partitions in one process) and
// the services (the scheduler opening a collection on a partition, a fetcher starting to crawl
// it) share, so both crawl a collection alike.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_WIRING_COLLECTION_OPTIONS_H_
#define CRAWLER_SERVICES_WIRING_COLLECTION_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "lib/politeness/politeness_options.h"
#include "services/fetcher/fetcher.h"
#include "services/frontier/frontier_options.h"
#include "services/scheduler/collection.h"

namespace crawler::wiring {

// URLs of one host the fetcher holds on lease at once (its lease_max_per_host, and the
// frontier's max_in_flight_per_host). A host whose URLs are used up idles until its next lease
// arrives, `refill` after its last completion (the completion's trip to the frontier and the next
// lease's trip back), so the lease must cover what the host fetches meanwhile: one URL per
// connection every min_delay, or every ~5 ms (a fast server nearby) with no delay. At least 4
// (what a polite host needs: its next URLs are here when the delay ends), at most 64 unless
// max_connections_per_host is higher; a kill -9 can refetch at most these URLs per host.
size_t LeaseAheadPerHost(const politeness::PolitenessOptions& politeness, absl::Duration refill);

// Leased URLs the fetcher may hold (FetcherOptions::max_buffered_tasks): enough for each host
// its max_in_flight transfers can keep busy to hold its lease_ahead, or the crawl runs fewer
// transfers than allowed. Without a delay that is max_in_flight / max_connections_per_host
// hosts; with one, a transfer slot serves another host while one rests, up to 1 + min_delay /
// 5 ms hosts per slot (so a polite crawl of many hosts is not held to a few hundred of them). At
// least the fetcher's default (4,096), at most 65,536 (a few tens of MB); the frontier leases
// at most lease_ahead per host, so a crawl of few hosts holds far less.
size_t BufferedTasksFor(size_t lease_ahead, size_t max_in_flight,
                        const politeness::PolitenessOptions& politeness);

// Partition k's share of `total` over n partitions: the shares add up to it exactly (unlimited,
// FrontierOptions::kUnlimited, stays unlimited in every partition).
uint64_t ShareOf(uint64_t total, uint32_t k, uint32_t n);

// The refill time of a fetcher that hands its completions over every `flush_interval`.
inline absl::Duration RefillTime(absl::Duration flush_interval) { return 2 * flush_interval; }

// Partition k of n's frontier options for `collection`: `base` (the frontier's own settings)
// with the collection's page limits (max_pages shared out by ShareOf), re-visit options and lease
// depth per host (LeaseAheadPerHost over `refill`), and the partition's index and count.
frontier::FrontierOptions FrontierOptionsFor(const frontier::FrontierOptions& base,
                                             const scheduler::Collection& collection, uint32_t k,
                                             uint32_t n, absl::Duration refill);

// A fetcher's options for `collection`: `base` (the fetcher's own settings: transfers, workers,
// timeouts) with the collection's user agent, what to store and fingerprint, and the lease
// depths that fit its politeness. `partition_header` >= 0 adds "X-Crawler-Partition: N" to every
// request (to check partitioning against a test web).
fetcher::FetcherOptions FetcherOptionsFor(const fetcher::FetcherOptions& base,
                                          const scheduler::Collection& collection,
                                          const std::string& user_agent, int partition_header);

// The robots.txt product token of a User-Agent: its first token, lowercased ("examplebot" for
// "ExampleBot/1.0 (+https://example.org/bot)").
std::string RobotsProductToken(std::string_view user_agent);

}  // namespace crawler::wiring

#endif  // CRAWLER_SERVICES_WIRING_COLLECTION_OPTIONS_H_
