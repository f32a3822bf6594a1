// The fetcher's configuration keys (services/common/config/key_table.h) over FetcherOptions:
// the settings a crawl's operator chooses, with FetcherOptions' own defaults. The rest is derived
// by the process that creates the fetcher (User-Agent and robots.txt token, lease sizes, what the
// collection stores) or left at its default.
#ifndef CRAWLER_SERVICES_FETCHER_FETCHER_CONFIG_H_
#define CRAWLER_SERVICES_FETCHER_FETCHER_CONFIG_H_

#include "services/common/config/key_table.h"
#include "services/fetcher/fetcher.h"

namespace crawler::fetcher {

// max_in_flight, workers, timeout, max_body_bytes, connect_to, obey_robots, follow_embeds,
// robots_retry_after; and queue_sitemaps, retired (the collection key sitemap_discovery
// replaced it).
const config::KeyTable<FetcherOptions>& FetcherKeys();

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_FETCHER_CONFIG_H_
