// InMemoryKvStore: a KvStore held in ordered maps, one per column family. Nothing survives the
// object: use it for tests of the cores (the fake of RocksDbKvStore, run against the same
// contract tests) and for ephemeral crawls that need no resume.
//
// Memory grows with the data: it is not meant for large crawls.
//
// Thread-safety: all methods are thread-safe (one mutex). Iterators re-find their position on
// every step, so they stay valid while the store is written (they observe the writes).
#ifndef CRAWLER_SERVICES_COMMON_KV_IN_MEMORY_KV_STORE_H_
#define CRAWLER_SERVICES_COMMON_KV_IN_MEMORY_KV_STORE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"

namespace crawler::kv {

class InMemoryKvStore final : public KvStore {
 public:
  // Declares the column families; duplicates are merged.
  explicit InMemoryKvStore(const std::vector<ColumnFamilySpec>& column_families);

  bool HasColumnFamily(std::string_view cf) const override;
  absl::StatusOr<std::string> Get(std::string_view cf, std::string_view key) const override;
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      std::string_view cf, const std::vector<std::string>& keys) const override;
  absl::Status Write(const WriteBatch& batch) override;
  absl::StatusOr<std::unique_ptr<KvIterator>> NewIterator(std::string_view cf,
                                                          std::string_view begin,
                                                          std::string_view end) const override;
  absl::StatusOr<std::unique_ptr<KvIterator>> NewPrefixIterator(std::string_view cf) const override;

  // Number of keys in `cf` (0 for an unknown family). For tests and diagnostics.
  size_t CountKeys(std::string_view cf) const;

 private:
  class Iterator;
  using Table = std::map<std::string, std::string, std::less<>>;

  // Declared scan_prefix_bytes per family; constant after construction.
  absl::flat_hash_map<std::string, size_t> scan_prefix_bytes_;
  mutable absl::Mutex mu_;
  // Node-based map: Table addresses stay stable, so iterators may keep a pointer.
  absl::flat_hash_map<std::string, std::unique_ptr<Table>> tables_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::kv

#endif  // CRAWLER_SERVICES_COMMON_KV_IN_MEMORY_KV_STORE_H_
