// KvStore: the storage interface the service cores (frontier, dedup, scheduler) are written
// against: an ordered key-value store with named column families declared up front, point and
// batched lookups, atomic multi-family write batches and forward range iteration.
//
// Keys and values are arbitrary bytes; keys within a column family are ordered bytewise
// (memcmp order, shorter key first on a common prefix), so a core that encodes integers
// big-endian gets numeric order for free.
//
// Implementations: InMemoryKvStore (services/common/kv/in_memory_kv_store.h: tests and ephemeral
// crawls) and RocksDbKvStore (services/common/rocksdb/rocksdb_kv_store.h: durable). A core only
// includes this header, never a storage library's.
//
// Errors are absl::Status with the canonical codes: kNotFound for an absent key (Get only),
// kInvalidArgument for an undeclared column family, kDataLoss for corruption, kUnavailable or
// kResourceExhausted for storage that cannot currently be read. A Write that fails on the
// storage (I/O error, disk full) returns kFailedPrecondition with a message naming the store's
// path and the cause: the store refuses every write after it until it is opened again, so the
// writer must stop rather than retry.
//
// Thread-safety: implementations are safe to call from several threads. A write batch is applied
// atomically: after a crash either all of it is visible or none.
#ifndef CRAWLER_SERVICES_COMMON_KV_KV_STORE_H_
#define CRAWLER_SERVICES_COMMON_KV_KV_STORE_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/common/kv/write_batch.h"

namespace crawler::kv {

// A column family the store must provide. Names are shared by every core using one store, so
// cores prefix theirs ("frontier.urls").
struct ColumnFamilySpec {
  std::string name;
  // Number of leading key bytes that every range scan of this family stays within (0: scans
  // cross prefixes, or the family is only used for point lookups). Lets the RocksDB adapter keep
  // a prefix Bloom filter so a scan of one prefix skips files holding no key with it.
  // REQUIRES: every key of the family is at least this long (shorter keys could be skipped by
  // such scans). Changing it for an existing store is safe: filters follow as files are
  // rewritten.
  size_t scan_prefix_bytes = 0;
  // Bytes of data per block in the store's files (0: the store's default, 4 KiB). Larger
  // blocks compress better (neighbouring keys share more) and cost more to read for a point
  // lookup that misses the block cache. A storage hint only: files written with another size
  // stay readable.
  size_t block_bytes = 0;
};

// Forward cursor over a key range of one column family. Obtain from KvStore::NewIterator (one
// fixed range) or KvStore::NewPrefixIterator (a prefix chosen per Seek).
// Usage: for (; it->Valid(); it->Next()) {...}  then check it->status().
class KvIterator {
 public:
  virtual ~KvIterator() = default;
  // Repositions the cursor on the first key >= `target` of its range (a target before the range
  // start seeks to the start). For a prefix cursor the range becomes the keys starting with
  // `target`. Clears an earlier end-of-range; cheaper than a new cursor (RocksDB: no new
  // snapshot or per-file cursors).
  virtual void Seek(std::string_view target) = 0;
  // A prefix cursor's seek into the middle of a prefix: the range becomes the keys starting
  // with `prefix`, and the cursor is positioned on the first of them >= `target` (a queue
  // resumed from where it was last read). REQUIRES: `target` starts with `prefix`, and `prefix`
  // is at least the family's scan_prefix_bytes long (else status() reports kInvalidArgument).
  // On a range cursor (NewIterator) it is Seek(target) limited to the keys starting with
  // `prefix`.
  virtual void SeekWithin(std::string_view prefix, std::string_view target) = 0;
  // True while positioned on an entry inside the range.
  virtual bool Valid() const = 0;
  // REQUIRES: Valid().
  virtual void Next() = 0;
  // REQUIRES: Valid(). The views stay valid until the next call to Next() or destruction.
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  // OK if iteration ended because the range was exhausted; the error otherwise.
  virtual absl::Status status() const = 0;
};

class KvStore {
 public:
  virtual ~KvStore() = default;

  // True if `cf` was declared when the store was opened.
  virtual bool HasColumnFamily(std::string_view cf) const = 0;

  // The value stored under `key`; kNotFound if there is none.
  virtual absl::StatusOr<std::string> Get(std::string_view cf, std::string_view key) const = 0;

  // Looks up all `keys` of one family at once (cheaper than single Gets on RocksDB: one pass
  // through the memtables and files). Result i is the value of keys[i], or nullopt if absent.
  // Any other per-key error fails the whole call.
  virtual absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      std::string_view cf, const std::vector<std::string>& keys) const = 0;

  // Applies every operation of `batch` atomically, in order. An empty batch is a no-op.
  virtual absl::Status Write(const WriteBatch& batch) = 0;

  // A cursor over the keys k of `cf` with begin <= k < end, in key order. An empty `end` means
  // "to the end of the family". The cursor may or may not observe writes made after its
  // creation (RocksDB: it does not; in-memory: it does); callers must not depend on either.
  virtual absl::StatusOr<std::unique_ptr<KvIterator>> NewIterator(std::string_view cf,
                                                                  std::string_view begin,
                                                                  std::string_view end) const = 0;

  // A cursor for scanning many prefixes of `cf` in a row, each with Seek(prefix): after it, the
  // cursor visits the keys starting with `prefix` in key order, then becomes !Valid(). It is
  // !Valid() until the first Seek. On RocksDB one such cursor costs one snapshot and one set of
  // file cursors however many Seeks follow, and each Seek consults the family's prefix Bloom
  // filters (ColumnFamilySpec::scan_prefix_bytes). Observing later writes: as NewIterator.
  // REQUIRES: every Seek target is at least `cf`'s scan_prefix_bytes long (else the cursor
  // reports kInvalidArgument in status()).
  virtual absl::StatusOr<std::unique_ptr<KvIterator>> NewPrefixIterator(
      std::string_view cf) const = 0;
};

// The smallest key greater than every key starting with `prefix` (the exclusive end of a prefix
// range): `prefix` with trailing 0xff bytes dropped and the last remaining byte incremented.
// Empty when no such key exists (prefix empty or all 0xff): then the range runs to the end.
std::string PrefixSuccessor(std::string_view prefix);

}  // namespace crawler::kv

#endif  // CRAWLER_SERVICES_COMMON_KV_KV_STORE_H_
