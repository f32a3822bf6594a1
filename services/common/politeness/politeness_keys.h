// The politeness keys of a crawling process's configuration (services/common/config/key_table.h)
// over lib/politeness's PolitenessOptions: a collection's politeness, and a fetcher service's
// per-host budget (docs/configuration.md). Defaults are those of the struct.
#ifndef CRAWLER_SERVICES_COMMON_POLITENESS_POLITENESS_KEYS_H_
#define CRAWLER_SERVICES_COMMON_POLITENESS_POLITENESS_KEYS_H_

#include "lib/politeness/politeness_options.h"
#include "services/common/config/key_table.h"

namespace crawler::politeness {

// min_delay, max_delay, delay_factor, max_crawl_delay, max_connections_per_host.
const config::KeyTable<PolitenessOptions>& PolitenessKeys();

}  // namespace crawler::politeness

#endif  // CRAWLER_SERVICES_COMMON_POLITENESS_POLITENESS_KEYS_H_
