#include "services/frontier/frontier_config.h"

namespace crawler::frontier {

const config::KeyTable<FrontierOptions>& FrontierKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<FrontierOptions>;
    t->Add({"max_attempts", "--max-attempts", "Fetches per URL at most when they fail transiently"},
           &FrontierOptions::max_attempts)
        .Add({"retry_backoff", "--retry-backoff",
              "Wait before the first retry, doubling after each"},
             &FrontierOptions::retry_backoff_initial)
        .Add({"retry_backoff_max", "--retry-backoff-max", "Longest wait between retries"},
             &FrontierOptions::retry_backoff_max)
        .Add({"max_urls_per_host", "--max-urls-per-host",
              "URLs accepted per host at most (spider traps: calendars, session ids)"},
             &FrontierOptions::max_urls_per_host)
        .Add({"seen_cache_entries", "--seen-cache-entries",
              "URLs the in-memory seen cache holds, 8 bytes each (0: off)"},
             &FrontierOptions::seen_cache_entries);
    return t;
  }();
  return *table;
}

absl::Status StoreMemoryConfig::Validate() const {
  if (block_cache_bytes < (size_t{1} << 20)) {
    return absl::InvalidArgumentError("block_cache_bytes must be at least 1 MiB (1048576)");
  }
  if (memtable_budget_bytes >= block_cache_bytes) {
    return absl::InvalidArgumentError(
        "memtable_budget_bytes must be below block_cache_bytes (memtables are charged to it)");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<kv::RocksDbMemory>> StoreMemoryConfig::Create() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  return kv::RocksDbMemory::Create(block_cache_bytes, memtable_budget_bytes);
}

const config::KeyTable<StoreMemoryConfig>& StoreMemoryKeys() {
  using C = StoreMemoryConfig;
  static const auto* const table = [] {
    auto* t = new config::KeyTable<C>;
    t->Add({"block_cache_bytes", "--block-cache-bytes",
            "RocksDB block cache of the process, shared by all its frontier stores"},
           &C::block_cache_bytes)
        .Add({"memtable_budget_bytes", "--memtable-budget-bytes",
              "Memtables of all the process's frontier stores together, within the cache "
              "(0: none)"},
             &C::memtable_budget_bytes);
    return t;
  }();
  return *table;
}

}  // namespace crawler::frontier
