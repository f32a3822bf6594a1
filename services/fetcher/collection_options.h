// How a collection becomes a fetcher's options: the process's own settings (transfers, workers,
// timeouts) with the collection's user agent, what to store and fingerprint, and the lease
// depths that fit its politeness. The standalone crawl and the fetcher service both build their
// Fetchers' options here (services/collections/shares.h has what the frontier side shares).
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_FETCHER_COLLECTION_OPTIONS_H_
#define CRAWLER_SERVICES_FETCHER_COLLECTION_OPTIONS_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "lib/politeness/politeness_options.h"
#include "services/collections/collection.h"
#include "services/fetcher/fetcher.h"

namespace crawler::fetcher {

// Leased URLs the fetcher may hold (FetcherOptions::max_buffered_tasks): enough for each host
// its max_in_flight transfers can keep busy to hold its lease_ahead, or the crawl runs fewer
// transfers than allowed. Without a delay that is max_in_flight / max_connections_per_host
// hosts; with one, a transfer slot serves another host while one rests, up to 1 + min_delay /
// 5 ms hosts per slot (so a polite crawl of many hosts is not held to a few hundred of them). At
// least the fetcher's default (4,096), at most 65,536 (a few tens of MB); the frontier leases
// at most lease_ahead per host, so a crawl of few hosts holds far less.
size_t BufferedTasksFor(size_t lease_ahead, size_t max_in_flight,
                        const politeness::PolitenessOptions& politeness);

// A fetcher's options for `collection`: `base` (the fetcher's own settings: transfers, workers,
// timeouts) with the collection's user agent, what to store and fingerprint, and the lease
// depths that fit its politeness. `partition_header` >= 0 adds "X-Crawler-Partition: N" to every
// request (to check partitioning against a test web).
FetcherOptions FetcherOptionsFor(const FetcherOptions& base,
                                 const collections::Collection& collection,
                                 const std::string& user_agent, int partition_header);

// The robots.txt product token of a User-Agent: its first token, lowercased ("examplebot" for
// "ExampleBot/1.0 (+https://example.org/bot)").
std::string RobotsProductToken(std::string_view user_agent);

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_COLLECTION_OPTIONS_H_
