// The frontier's configuration keys (services/common/config/key_table.h) over FrontierOptions:
// the settings a crawl's operator chooses. The rest of FrontierOptions is derived by the process
// that opens the frontier (page limits and the re-visit policy from the collection, the per-host
// lease cap from the fetcher's lease size) or left at its default.
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_CONFIG_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_CONFIG_H_

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/common/config/key_table.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/frontier/frontier_options.h"

namespace crawler::frontier {

// max_attempts, retry_backoff, retry_backoff_max, seen_cache_entries.
const config::KeyTable<FrontierOptions>& FrontierKeys();

// The RocksDB memory of a process, shared by every frontier store it opens (one per collection
// in the frontier service, one per partition in the standalone crawl): kv::RocksDbMemory.
struct StoreMemoryConfig {
  // The block cache (data, index and filter blocks), memtables charged to it.
  size_t block_cache_bytes = size_t{256} << 20;
  // All memtables together, within the cache; 0: no shared budget (each family alone).
  size_t memtable_budget_bytes = size_t{128} << 20;

  // kInvalidArgument naming the key: a cache under 1 MiB, a budget not below the cache.
  absl::Status Validate() const;
  // The process's shared memory (Validate first).
  absl::StatusOr<std::shared_ptr<kv::RocksDbMemory>> Create() const;
};

// block_cache_bytes, memtable_budget_bytes.
const config::KeyTable<StoreMemoryConfig>& StoreMemoryKeys();

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_CONFIG_H_
