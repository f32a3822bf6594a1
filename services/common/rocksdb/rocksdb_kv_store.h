// RocksDbKvStore: the durable KvStore, one RocksDB database in a local directory.
//
// Every declared column family gets a full-key Bloom filter (so "is this key new?" lookups of
// absent keys usually cost no disk read) and, when ColumnFamilySpec::scan_prefix_bytes is set, a
// fixed-length prefix Bloom filter that range scans within one prefix use automatically. Index
// and filter blocks live in the shared block cache, so RAM stays bounded by
// `block_cache_bytes` + memtables however large the data grows.
//
// Durability: the write-ahead log is always on. Without `sync_writes` a write returns once it is
// in the OS page cache: killing the process (even kill -9) loses nothing, a power loss or kernel
// crash may lose the last writes. With `sync_writes` each Write() also fsyncs the log
// (survives power loss, costs one fsync per batch: a few ms on disks, ~0.1 ms on NVMe). Batches
// are atomic in both modes. Column families found on disk but not declared are kept open
// untouched, so several cores can share one directory.
//
// Library errors are translated by ToAbslStatus (rocksdb_status.h); a failed Write is
// kFailedPrecondition ("cannot write <path>: <cause>", see kv_store.h). After a write failed on
// the disk (full, say), RocksDB takes no write until it recovers: each later Write asks it to
// (DB::Resume, at most twice a second) and is applied once it has, so a store whose disk gets
// space again is written again without being reopened. RocksDB's info log
// (<path>/LOG, the previous run's as LOG.old) is written so that a full disk drops its lines
// instead of aborting the process.
//
// Thread-safety: all methods are thread-safe. Iterators read a consistent snapshot taken at
// their creation. Only one process may open a directory at a time (RocksDB's LOCK file): a
// second Open fails with kUnavailable.
#ifndef CRAWLER_SERVICES_COMMON_ROCKSDB_ROCKSDB_KV_STORE_H_
#define CRAWLER_SERVICES_COMMON_ROCKSDB_ROCKSDB_KV_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"

namespace rocksdb {
class Cache;
class ColumnFamilyHandle;
class DB;
class Statistics;
class WriteBufferManager;
}  // namespace rocksdb

namespace crawler::kv {

// Memory that several stores of one process share: one block cache and one memtable budget
// charged to it, so a process holding many stores (a frontier serving many collections) is
// bounded once, not once per store. Given to each store through
// RocksDbKvStoreOptions::shared_memory; stores hold it, so it lives as long as the last.
class RocksDbMemory {
 public:
  // `block_cache_bytes` as RocksDbKvStoreOptions::block_cache_bytes, for all the stores;
  // `memtable_budget_bytes` likewise (0: each family alone, no shared budget).
  // kInvalidArgument when the cache is under 1 MiB.
  static absl::StatusOr<std::shared_ptr<RocksDbMemory>> Create(size_t block_cache_bytes,
                                                               size_t memtable_budget_bytes);

  size_t memtable_budget_bytes() const { return memtable_budget_bytes_; }
  // Bytes the cache holds now (blocks and the memtables charged to it), over every store.
  size_t CacheUsage() const;

 private:
  friend class RocksDbKvStore;
  RocksDbMemory(size_t block_cache_bytes, size_t memtable_budget_bytes);

  size_t memtable_budget_bytes_;
  std::shared_ptr<rocksdb::Cache> cache_;
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers_;  // null without a budget
};

struct RocksDbKvStoreOptions {
  // Directory of the database. Required.
  std::string path;
  // Create the directory and database when absent; otherwise Open fails with kInvalidArgument.
  bool create_if_missing = true;
  // Filter bits per key on every column family (full keys and, where declared, prefixes), as
  // for a Bloom filter: 10 bits give ~1% false positives; 0 disables filters. Range [0, 40].
  // Files below level 0 get Ribbon filters of the same false-positive rate (~30% less memory
  // than Bloom's, more CPU to build: they are built once per compaction, read at every lookup).
  int bloom_bits_per_key = 10;
  // Shared LRU cache for data, index and filter blocks, in bytes, memtables included (they are
  // charged to it, see memtable_budget_bytes): with the indexes and filters partitioned into
  // cache-sized blocks, this bounds the store's memory however large its data grows. Index and
  // filter blocks are kept at high priority, so a scan of data does not push them out.
  size_t block_cache_bytes = size_t{256} << 20;
  // When set, the store uses this process-wide cache and memtable budget (shared with the
  // other stores given it) in place of block_cache_bytes and memtable_budget_bytes.
  std::shared_ptr<RocksDbMemory> shared_memory;
  // Memtable size per column family, in bytes: larger absorbs more writes before a flush but
  // costs more RAM and a longer WAL replay on restart.
  size_t write_buffer_bytes = size_t{32} << 20;
  // All memtables together, charged to the block cache: when they pass it the largest is
  // flushed. Bounds RAM and the log replayed after a crash whatever the number of families.
  // 0: each family alone (up to two memtables of write_buffer_bytes each).
  size_t memtable_budget_bytes = size_t{128} << 20;
  // fsync the write-ahead log on every Write (see the header comment for the trade-off).
  bool sync_writes = false;
  // Background flush + compaction threads.
  int max_background_jobs = 2;
  // Block compression. kAuto: LZ4 for upper levels and ZSTD for the bottom level when this
  // RocksDB build has them, else Snappy, else none. An explicit choice missing from the build
  // makes Open fail with kInvalidArgument.
  enum class Compression { kAuto, kNone, kSnappy, kLz4, kZstd };
  Compression compression = Compression::kAuto;
  // With ZSTD at the bottom level (kAuto, kZstd): a dictionary of this many bytes trained per
  // file from its own data, so that small blocks share what their keys and values have in
  // common (URLs' hosts and paths). 0: none.
  size_t dictionary_bytes = 16 << 10;
  // Collect RocksDB's counters (Tickers()): for benchmarks and diagnosis; costs a little CPU
  // on every operation.
  bool statistics = false;
};

// What RocksDB counted (RocksDbKvStore::Tickers): where reads were answered and what writes
// cost.
struct RocksDbTickers {
  uint64_t user_bytes_written = 0;     // keys and values of the batches written
  uint64_t wal_bytes = 0;              // written to the write-ahead log
  uint64_t flush_bytes = 0;            // memtables written to files
  uint64_t compaction_bytes = 0;       // files rewritten by compactions
  uint64_t bloom_useful = 0;           // lookups a Bloom filter answered "absent" without a read
  uint64_t bloom_positive = 0;         // lookups a filter let through ...
  uint64_t bloom_true_positive = 0;    // ... of which the key was really there
  uint64_t block_cache_data_miss = 0;  // data blocks read from files
  uint64_t block_cache_data_hit = 0;
  uint64_t block_cache_filter_miss = 0;
  uint64_t block_cache_index_miss = 0;
};

class RocksDbKvStore final : public KvStore {
 public:
  // Opens (or creates) the database with `column_families`; missing families are created.
  static absl::StatusOr<std::unique_ptr<RocksDbKvStore>> Open(
      const RocksDbKvStoreOptions& options, const std::vector<ColumnFamilySpec>& column_families);

  // Flushes the memtables (so the next Open replays no log) and closes the database; writes
  // already returned by Write() are in the log whatever happens to the flush.
  ~RocksDbKvStore() override;
  RocksDbKvStore(const RocksDbKvStore&) = delete;
  RocksDbKvStore& operator=(const RocksDbKvStore&) = delete;

  bool HasColumnFamily(std::string_view cf) const override;
  absl::StatusOr<std::string> Get(std::string_view cf, std::string_view key) const override;
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      std::string_view cf, const std::vector<std::string>& keys) const override;
  absl::Status Write(const WriteBatch& batch) override;
  absl::StatusOr<std::unique_ptr<KvIterator>> NewIterator(std::string_view cf,
                                                          std::string_view begin,
                                                          std::string_view end) const override;
  absl::StatusOr<std::unique_ptr<KvIterator>> NewPrefixIterator(std::string_view cf) const override;

  // Flushes memtables to files (the log stays the durability guarantee; this only shortens the
  // replay after a restart). Used by tests to exercise the on-file read path.
  absl::Status Flush();

  // Compacts every declared family down to its last level, dropping deleted and overwritten
  // entries: the store's size then is what its live data costs (bench/frontier-scale measures
  // disk bytes per URL this way). Takes as long as rewriting the whole store.
  absl::Status CompactAll();

  // RocksDB's counters since Open; all zero unless RocksDbKvStoreOptions::statistics.
  RocksDbTickers Tickers() const;

  // Bytes of the live files of each declared family (what its data takes on disk, log and
  // obsolete files aside), by family name.
  std::vector<std::pair<std::string, uint64_t>> FamilyBytes() const;

 private:
  struct Family {
    rocksdb::ColumnFamilyHandle* handle = nullptr;
    size_t scan_prefix_bytes = 0;  // as declared (the family's prefix extractor length)
  };

  RocksDbKvStore(const RocksDbKvStoreOptions& options, std::unique_ptr<rocksdb::DB> db,
                 std::vector<rocksdb::ColumnFamilyHandle*> handles,
                 absl::flat_hash_map<std::string, Family> declared);

  absl::StatusOr<const Family*> FindFamily(std::string_view cf) const;
  // Asks RocksDB to recover from a background error (at most every 500 ms); true if it did.
  bool Resume() const;
  absl::StatusOr<rocksdb::ColumnFamilyHandle*> Handle(std::string_view cf) const;

  // Constant after construction.
  const RocksDbKvStoreOptions options_;
  std::unique_ptr<rocksdb::DB> db_;
  // Every open family, declared or found on disk; destroyed before db_ closes.
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  absl::flat_hash_map<std::string, Family> declared_;
  std::shared_ptr<rocksdb::Statistics> statistics_;  // null unless options_.statistics
  mutable absl::Mutex resume_mu_;
  mutable absl::Time last_resume_ ABSL_GUARDED_BY(resume_mu_) = absl::InfinitePast();
};

}  // namespace crawler::kv

#endif  // CRAWLER_SERVICES_COMMON_ROCKSDB_ROCKSDB_KV_STORE_H_
