// The content index's configuration keys (services/common/config/key_table.h) over DedupOptions,
// with DedupOptions' own defaults. Included by the configurations of the processes that run a
// Dedup core (`crawlerd dedup`).
#ifndef CRAWLER_SERVICES_DEDUP_DEDUP_CONFIG_H_
#define CRAWLER_SERVICES_DEDUP_DEDUP_CONFIG_H_

#include "services/common/config/key_table.h"
#include "services/dedup/dedup.h"

namespace crawler::dedup {

// near_duplicate_bits.
const config::KeyTable<DedupOptions>& DedupKeys();

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_DEDUP_CONFIG_H_
