// The frontier's configuration keys (services/common/config/key_table.h) over FrontierOptions:
// the settings a crawl's operator chooses. The rest of FrontierOptions is derived by the process
// that opens the frontier (page limits and the re-visit policy from the collection, the per-host
// lease cap from the fetcher's lease size) or left at its default.
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_CONFIG_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_CONFIG_H_

#include "services/common/config/key_table.h"
#include "services/frontier/frontier_options.h"

namespace crawler::frontier {

// max_attempts, retry_backoff, retry_backoff_max.
const config::KeyTable<FrontierOptions>& FrontierKeys();

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_CONFIG_H_
