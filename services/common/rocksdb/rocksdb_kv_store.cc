#include "services/common/rocksdb/rocksdb_kv_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/encoding/absl_view.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/write_batch.h"
#include "rocksdb/write_buffer_manager.h"
#include "services/common/rocksdb/rocksdb_status.h"

namespace crawler::kv {
namespace {

using Compression = RocksDbKvStoreOptions::Compression;

rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

// Debian's abseil keeps its own string_view type; hashed lookups and StrCat need it.
using encoding::AsAbsl;

bool Supported(rocksdb::CompressionType type) {
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  return type == rocksdb::kNoCompression ||
         std::find(supported.begin(), supported.end(), type) != supported.end();
}

// Sets the compression of `cf` per `choice`; kInvalidArgument if the build lacks it.
absl::Status ApplyCompression(Compression choice, size_t dictionary_bytes,
                              rocksdb::ColumnFamilyOptions& cf) {
  if (dictionary_bytes > 0) {
    // Trained on up to 100 dictionaries' worth of the file's data (ZSTD's advice), bottom level
    // only: the upper levels are rewritten too often to pay for training.
    cf.bottommost_compression_opts.max_dict_bytes = static_cast<uint32_t>(dictionary_bytes);
    cf.bottommost_compression_opts.zstd_max_train_bytes =
        static_cast<uint32_t>(100 * dictionary_bytes);
    cf.bottommost_compression_opts.enabled = true;
  }
  switch (choice) {
    case Compression::kAuto:
      if (Supported(rocksdb::kLZ4Compression)) {
        cf.compression = rocksdb::kLZ4Compression;
      } else if (Supported(rocksdb::kSnappyCompression)) {
        cf.compression = rocksdb::kSnappyCompression;
      } else {
        cf.compression = rocksdb::kNoCompression;
      }
      // The bottom level holds ~90% of the data and is rewritten least often: spend CPU there.
      cf.bottommost_compression = Supported(rocksdb::kZSTD) ? rocksdb::kZSTD : cf.compression;
      if (cf.bottommost_compression != rocksdb::kZSTD) {
        cf.bottommost_compression_opts.enabled = false;
      }
      return absl::OkStatus();
    case Compression::kNone:
      cf.compression = rocksdb::kNoCompression;
      break;
    case Compression::kSnappy:
      cf.compression = rocksdb::kSnappyCompression;
      break;
    case Compression::kLz4:
      cf.compression = rocksdb::kLZ4Compression;
      break;
    case Compression::kZstd:
      cf.compression = rocksdb::kZSTD;
      break;
  }
  if (!Supported(cf.compression)) {
    return absl::InvalidArgumentError("the requested compression is not built into RocksDB");
  }
  cf.bottommost_compression = cf.compression;
  if (cf.compression != rocksdb::kZSTD) cf.bottommost_compression_opts.enabled = false;
  return absl::OkStatus();
}

absl::StatusOr<rocksdb::ColumnFamilyOptions> MakeColumnFamilyOptions(
    const RocksDbKvStoreOptions& options, const std::shared_ptr<rocksdb::Cache>& cache,
    const ColumnFamilySpec& spec) {
  const size_t scan_prefix_bytes = spec.scan_prefix_bytes;
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = options.write_buffer_bytes;
  cf.level_compaction_dynamic_level_bytes = true;
  if (absl::Status status = ApplyCompression(options.compression, options.dictionary_bytes, cf);
      !status.ok()) {
    return status;
  }

  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  if (spec.block_bytes > 0) table.block_size = spec.block_bytes;
  // Keeps filter and index memory inside the cache bound instead of growing with the data: the
  // index and the filter of a file are cut into blocks of about 4 KiB that come and go with
  // use, under a small top-level index (pinned). Whole per-file filters of a large store would
  // not fit the cache and would be read again and again (a 64 MiB file's filter is ~1 MiB).
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.metadata_block_size = 4096;
  table.cache_index_and_filter_blocks = true;
  table.cache_index_and_filter_blocks_with_high_priority = true;
  table.pin_top_level_index_and_filter = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.optimize_filters_for_memory = true;
  if (options.bloom_bits_per_key > 0) {
    // Bloom for level 0 (flushed often, cheap to build), Ribbon below it.
    table.filter_policy.reset(
        rocksdb::NewRibbonFilterPolicy(options.bloom_bits_per_key, /*bloom_before_level=*/1));
    table.whole_key_filtering = true;
  }
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));

  if (scan_prefix_bytes > 0) {
    cf.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(scan_prefix_bytes));
    // Prefix Bloom in the memtable too, so a scan of an absent prefix skips it.
    cf.memtable_prefix_bloom_size_ratio = 0.02;
  }
  if (options.bloom_bits_per_key > 0) {
    // Whole keys in the memtable's Bloom filter as well: a point lookup of a key the memtable
    // lacks (most of them: a seen check of a new URL, the record of a URL leased long ago)
    // skips the skip-list search, which at hundreds of thousands of entries is a chain of
    // cache misses. The filter is 2% of the memtable (0.64 MiB of 32 MiB), in its arena.
    cf.memtable_whole_key_filtering = true;
    cf.memtable_prefix_bloom_size_ratio = 0.02;
  }
  // No memtable insert hints (memtable_insert_with_hint_prefix_extractor): each prefix would
  // cost a splice in the memtable's arena and an entry in a hash map, paid by every host a
  // memtable sees, while Write's key order already starts most inserts next to the previous
  // one.
  return cf;
}

// RocksDB's info log (<path>/LOG) written through stdio, dropping the lines a failing disk
// refuses. RocksDB's own file logger aborts the process (an assertion in WritableFileWriter) on
// the line after a failed write, and a full disk makes that line certain: the crawl must stop
// with a message instead. The previous run's log is kept as LOG.old.
class TolerantInfoLog final : public rocksdb::Logger {
 public:
  // A log that discards everything when the file cannot be opened (RocksDB's Open then reports
  // the directory's real problem).
  static std::shared_ptr<TolerantInfoLog> Open(const std::string& dir) {
    const std::filesystem::path log = std::filesystem::path(dir) / "LOG";
    std::error_code ec;
    if (std::filesystem::exists(log, ec)) {
      std::filesystem::rename(log, std::filesystem::path(dir) / "LOG.old", ec);
    }
    return std::make_shared<TolerantInfoLog>(std::fopen(log.c_str(), "ae"));
  }
  explicit TolerantInfoLog(std::FILE* file)
      : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL), file_(file) {}
  ~TolerantInfoLog() override {
    if (file_ != nullptr) std::fclose(file_);
  }

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    if (file_ == nullptr) return;
    char line[2048];
    const std::string stamp = absl::FormatTime("%Y/%m/%d-%H:%M:%E6S ", absl::Now(),
                                               absl::LocalTimeZone());
    size_t n = std::min(stamp.size(), sizeof line - 2);
    std::memcpy(line, stamp.data(), n);
    const int body = std::vsnprintf(line + n, sizeof line - n - 1, format, ap);
    if (body < 0) return;
    n = std::min(n + static_cast<size_t>(body), sizeof line - 2);
    if (line[n - 1] != '\n') line[n++] = '\n';
    // One fwrite per line (stdio locks the stream), so threads do not interleave.
    if (std::fwrite(line, 1, n, file_) != n || std::fflush(file_) != 0) std::clearerr(file_);
  }

 private:
  std::FILE* const file_;
};

// A RocksDB file name (the kinds a database directory holds, complete or mid-creation).
bool IsRocksDbFileName(std::string_view name) {
  // lost+found: the root of a fresh ext4 volume (a Kubernetes persistent volume) holds one.
  for (std::string_view exact : {"CURRENT", "LOCK", "LOG", "IDENTITY", "lost+found"}) {
    if (name == exact) return true;
  }
  for (std::string_view prefix : {"LOG.old", "MANIFEST-", "OPTIONS-"}) {
    if (name.starts_with(prefix)) return true;
  }
  // Numbered files: 000012.log (write-ahead log), .sst, .blob, .dbtmp (a file being replaced).
  const size_t dot = name.find('.');
  if (dot == 0 || dot == std::string_view::npos) return false;
  if (name.substr(0, dot).find_first_not_of("0123456789") != std::string_view::npos) return false;
  const std::string_view ext = name.substr(dot);
  return ext == ".log" || ext == ".sst" || ext == ".blob" || ext == ".dbtmp";
}

// Refuses a directory that holds anything but RocksDB's files: Open would otherwise create a
// database (and its LOG) among someone else's files.
absl::Status CheckNotForeign(const std::string& path) {
  std::error_code ec;
  std::filesystem::directory_iterator it(path, ec);
  if (ec) return absl::OkStatus();  // absent (created), or unreadable (DB::Open says why)
  for (const std::filesystem::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    if (!IsRocksDbFileName(name)) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, " is not a database of this crawler (it holds \"", name,
          "\"); give an empty or new directory, or the one an earlier run used"));
    }
  }
  return absl::OkStatus();
}

// The plain reason a failed DB::Open of `path` gives, when another process holds the
// database's lock (RocksDB's LOCK file, an fcntl lock): which process, and what to do.
std::optional<std::string> LockHolderMessage(const std::string& path) {
  const std::string lock = (std::filesystem::path(path) / "LOCK").string();
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  const bool held = ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
  ::close(fd);
  if (!held) return std::nullopt;
  return absl::StrCat(path, " is in use by another process (pid ", probe.l_pid,
                      "); stop it, or give this one another data directory");
}

// What both cursors share: a RocksDB iterator, and reading the entry it is on.
class RocksDbCursor : public KvIterator {
 public:
  void Next() override { it_->Next(); }
  std::string_view key() const override {
    const rocksdb::Slice k = it_->key();
    return std::string_view(k.data(), k.size());
  }
  std::string_view value() const override {
    const rocksdb::Slice v = it_->value();
    return std::string_view(v.data(), v.size());
  }

 protected:
  std::unique_ptr<rocksdb::Iterator> it_;
};

class RocksDbIterator final : public RocksDbCursor {
 public:
  RocksDbIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* handle, std::string_view begin,
                  std::string_view end)
      : begin_(begin), end_(end), begin_slice_(begin_), end_slice_(end_) {
    rocksdb::ReadOptions read;
    read.iterate_lower_bound = &begin_slice_;
    if (end_.empty()) {
      // Without an upper bound a prefix-mode seek could stop at the prefix's end.
      read.total_order_seek = true;
    } else {
      read.iterate_upper_bound = &end_slice_;
      // Uses the prefix Bloom filter only where that gives the same result as a total-order
      // scan (the range lies within one prefix).
      read.auto_prefix_mode = true;
    }
    it_.reset(db->NewIterator(read, handle));
    it_->Seek(begin_slice_);
  }
  // The RocksDB iterator goes first: it points at the bounds below (the base would destroy it
  // after them).
  ~RocksDbIterator() override { it_.reset(); }

  void Seek(std::string_view target) override {
    prefix_.clear();
    it_->Seek(target < begin_ ? begin_slice_ : ToSlice(target));
  }
  void SeekWithin(std::string_view prefix, std::string_view target) override {
    prefix_.assign(prefix);
    it_->Seek(target < begin_ ? begin_slice_ : ToSlice(target));
  }
  bool Valid() const override { return it_->Valid() && it_->key().starts_with(ToSlice(prefix_)); }
  absl::Status status() const override { return ToAbslStatus(it_->status(), "rocksdb iterator"); }

 private:
  // The bounds must outlive the RocksDB iterator, which keeps pointers to the slices.
  const std::string begin_;
  const std::string end_;
  const rocksdb::Slice begin_slice_;
  const rocksdb::Slice end_slice_;
  std::string prefix_;  // of the last SeekWithin; empty after Seek
};

// NewPrefixIterator's cursor: one RocksDB iterator in prefix-seek mode (prefix_same_as_start), so
// every Seek consults the memtable and file prefix Bloom filters and the scan stops at the end
// of the scan prefix; Valid() also stops at the end of a longer Seek (or SeekWithin) prefix.
class RocksDbPrefixIterator final : public RocksDbCursor {
 public:
  RocksDbPrefixIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* handle,
                        size_t scan_prefix_bytes)
      : scan_prefix_bytes_(scan_prefix_bytes) {
    rocksdb::ReadOptions read;
    if (scan_prefix_bytes_ > 0) {
      read.prefix_same_as_start = true;
    } else {
      read.total_order_seek = true;  // no prefix extractor: a plain ordered scan
    }
    it_.reset(db->NewIterator(read, handle));
  }

  void Seek(std::string_view target) override { SeekWithin(target, target); }
  void SeekWithin(std::string_view prefix, std::string_view target) override {
    status_ = absl::OkStatus();
    if (prefix.size() < scan_prefix_bytes_ || !target.starts_with(prefix)) {
      // Outside the extractor's domain a prefix-mode seek may skip keys.
      positioned_ = false;
      status_ = absl::InvalidArgumentError("prefix seek outside the scan prefix");
      return;
    }
    prefix_.assign(prefix);
    positioned_ = true;
    // Within the extractor's prefix of `target` (prefix_same_as_start), from `target` on.
    it_->Seek(ToSlice(target));
  }
  bool Valid() const override {
    return positioned_ && it_->Valid() && it_->key().starts_with(ToSlice(prefix_));
  }
  absl::Status status() const override {
    if (!status_.ok() || !positioned_) return status_;
    return ToAbslStatus(it_->status(), "rocksdb iterator");
  }

 private:
  const size_t scan_prefix_bytes_;
  std::string prefix_;  // of the last Seek
  bool positioned_ = false;
  absl::Status status_;  // of the last Seek's arguments
};

// The database's options (the column families have theirs, MakeColumnFamilyOptions).
rocksdb::DBOptions MakeDbOptions(const RocksDbKvStoreOptions& options) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = options.max_background_jobs;
  // Recover whatever reached the log intact; a torn last record (crash mid-write) is dropped,
  // which is exactly the unacknowledged write.
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  // RocksDB preallocates each write-ahead log by 1.1 x the memtable size (35 MB at the default),
  // which a frontier pays per collection even while it is empty (9 collections, 355 MB per
  // partition). Files grow as they are written instead.
  db_options.allow_fallocate = false;
  return db_options;
}

absl::Status CheckOptions(const RocksDbKvStoreOptions& options) {
  if (options.path.empty()) return absl::InvalidArgumentError("RocksDB path is empty");
  if (options.bloom_bits_per_key < 0 || options.bloom_bits_per_key > 40) {
    return absl::InvalidArgumentError("bloom_bits_per_key must be in [0, 40]");
  }
  if (options.write_buffer_bytes < (size_t{1} << 20)) {
    return absl::InvalidArgumentError("write_buffer_bytes must be at least 1 MiB");
  }
  if (options.max_background_jobs < 1) {
    return absl::InvalidArgumentError("max_background_jobs must be at least 1");
  }
  return absl::OkStatus();
}

// The declared column families by name, each checked.
absl::StatusOr<absl::flat_hash_map<std::string, ColumnFamilySpec>> SpecsByName(
    const std::vector<ColumnFamilySpec>& column_families) {
  absl::flat_hash_map<std::string, ColumnFamilySpec> spec_by_name;
  for (const ColumnFamilySpec& spec : column_families) {
    if (spec.name.empty()) return absl::InvalidArgumentError("column family name is empty");
    spec_by_name[spec.name] = spec;
  }
  return spec_by_name;
}

}  // namespace

RocksDbMemory::RocksDbMemory(size_t block_cache_bytes, size_t memtable_budget_bytes)
    : memtable_budget_bytes_(memtable_budget_bytes),
      // Half of the cache is kept for high-priority blocks (indexes and filters).
      cache_(rocksdb::NewLRUCache(block_cache_bytes, /*num_shard_bits=*/-1,
                                  /*strict_capacity_limit=*/false,
                                  /*high_pri_pool_ratio=*/0.5)) {
  if (memtable_budget_bytes > 0) {
    write_buffers_ = std::make_shared<rocksdb::WriteBufferManager>(memtable_budget_bytes, cache_);
  }
}

absl::StatusOr<std::shared_ptr<RocksDbMemory>> RocksDbMemory::Create(
    size_t block_cache_bytes, size_t memtable_budget_bytes) {
  if (block_cache_bytes < (size_t{1} << 20)) {
    return absl::InvalidArgumentError("block_cache_bytes must be at least 1 MiB");
  }
  return std::shared_ptr<RocksDbMemory>(
      new RocksDbMemory(block_cache_bytes, memtable_budget_bytes));
}

size_t RocksDbMemory::CacheUsage() const { return cache_->GetUsage(); }

absl::StatusOr<std::unique_ptr<RocksDbKvStore>> RocksDbKvStore::Open(
    const RocksDbKvStoreOptions& options, const std::vector<ColumnFamilySpec>& column_families) {
  if (absl::Status valid = CheckOptions(options); !valid.ok()) return valid;

  rocksdb::DBOptions db_options = MakeDbOptions(options);
  if (absl::Status foreign = CheckNotForeign(options.path); !foreign.ok()) return foreign;
  if (options.create_if_missing) {
    std::error_code ec;
    std::filesystem::create_directories(options.path, ec);  // DB::Open reports a failure
  }
  db_options.info_log = TolerantInfoLog::Open(options.path);
  std::shared_ptr<rocksdb::Statistics> statistics;
  if (options.statistics) {
    statistics = rocksdb::CreateDBStatistics();
    db_options.statistics = statistics;
  }

  // The store's own cache and memtable budget, or the process-wide ones it was given.
  std::shared_ptr<RocksDbMemory> memory = options.shared_memory;
  if (memory == nullptr) {
    absl::StatusOr<std::shared_ptr<RocksDbMemory>> own =
        RocksDbMemory::Create(options.block_cache_bytes, options.memtable_budget_bytes);
    if (!own.ok()) return own.status();
    memory = *std::move(own);
  }
  const std::shared_ptr<rocksdb::Cache>& cache = memory->cache_;
  if (memory->write_buffers_ != nullptr) {
    db_options.write_buffer_manager = memory->write_buffers_;
    // The log is flushed away with the memtables it covers: a crash replays at most about the
    // budget.
    db_options.max_total_wal_size = 2 * memory->memtable_budget_bytes();
  }

  // Declared families, plus "default" (always present) and any others found on disk, which
  // RocksDB requires to be opened too.
  absl::StatusOr<absl::flat_hash_map<std::string, ColumnFamilySpec>> specs =
      SpecsByName(column_families);
  if (!specs.ok()) return specs.status();
  const absl::flat_hash_map<std::string, ColumnFamilySpec>& spec_by_name = *specs;
  std::vector<std::string> names;
  absl::flat_hash_set<std::string> seen;
  for (const ColumnFamilySpec& spec : column_families) {
    if (seen.insert(spec.name).second) names.push_back(spec.name);
  }
  if (seen.insert(rocksdb::kDefaultColumnFamilyName).second) {
    names.push_back(rocksdb::kDefaultColumnFamilyName);
  }
  std::vector<std::string> existing;
  const rocksdb::Status list = rocksdb::DB::ListColumnFamilies(db_options, options.path, &existing);
  if (list.ok()) {
    for (const std::string& name : existing) {
      if (seen.insert(name).second) names.push_back(name);
    }
  }  // else: no database yet (or unreadable: DB::Open reports the real error).

  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& name : names) {
    auto spec = spec_by_name.find(name);
    absl::StatusOr<rocksdb::ColumnFamilyOptions> cf_options = MakeColumnFamilyOptions(
        options, cache, spec == spec_by_name.end() ? ColumnFamilySpec{.name = name} : spec->second);
    if (!cf_options.ok()) return cf_options.status();
    descriptors.emplace_back(name, *cf_options);
  }

  rocksdb::DB* raw_db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  // A new database is opened with "default" alone and its families created in one call: opened
  // with missing families, RocksDB creates them one by one and rewrites (and re-reads) its
  // OPTIONS file after each, which made up most of a new crawl's start-up time.
  const bool create = !list.ok();
  std::vector<rocksdb::ColumnFamilyDescriptor> to_open;
  std::vector<rocksdb::ColumnFamilyDescriptor> to_create;
  for (rocksdb::ColumnFamilyDescriptor& d : descriptors) {
    (!create || d.name == rocksdb::kDefaultColumnFamilyName ? to_open : to_create)
        .push_back(std::move(d));
  }
  const rocksdb::Status open =
      rocksdb::DB::Open(db_options, options.path, to_open, &handles, &raw_db);
  if (!open.ok()) {
    if (open.IsIOError()) {
      if (std::optional<std::string> held = LockHolderMessage(options.path); held.has_value()) {
        return absl::UnavailableError(*held);
      }
    }
    return ToAbslStatus(open, absl::StrCat("opening RocksDB at ", options.path));
  }
  std::unique_ptr<rocksdb::DB> db(raw_db);
  if (!to_create.empty()) {
    std::vector<rocksdb::ColumnFamilyHandle*> created;
    const rocksdb::Status status = db->CreateColumnFamilies(to_create, &created);
    handles.insert(handles.end(), created.begin(), created.end());
    if (!status.ok()) {
      // Families not created now are created one by one at the next open.
      for (rocksdb::ColumnFamilyHandle* handle : handles) {
        db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
      }
      return ToAbslStatus(status, absl::StrCat("creating column families in ", options.path));
    }
  }

  absl::flat_hash_map<std::string, Family> declared;
  for (rocksdb::ColumnFamilyHandle* handle : handles) {
    auto spec = spec_by_name.find(handle->GetName());
    if (spec != spec_by_name.end()) {
      declared[handle->GetName()] =
          Family{.handle = handle, .scan_prefix_bytes = spec->second.scan_prefix_bytes};
    }
  }
  auto store = std::unique_ptr<RocksDbKvStore>(
      new RocksDbKvStore(options, std::move(db), std::move(handles), std::move(declared)));
  store->statistics_ = std::move(statistics);
  return store;
}

RocksDbKvStore::RocksDbKvStore(const RocksDbKvStoreOptions& options,
                               std::unique_ptr<rocksdb::DB> db,
                               std::vector<rocksdb::ColumnFamilyHandle*> handles,
                               absl::flat_hash_map<std::string, Family> declared)
    : options_(options),
      db_(std::move(db)),
      handles_(std::move(handles)),
      declared_(std::move(declared)) {}

RocksDbKvStore::~RocksDbKvStore() {
  // With the log on, RocksDB does not flush at Close: the next Open would replay up to the
  // memtable budget of log (tens of seconds on a loaded machine). A clean close flushes, so
  // only a crash costs a replay.
  Flush().IgnoreError();
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();
}

absl::StatusOr<const RocksDbKvStore::Family*> RocksDbKvStore::FindFamily(
    std::string_view cf) const {
  auto it = declared_.find(AsAbsl(cf));
  if (it == declared_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown column family '", AsAbsl(cf), "'"));
  }
  return &it->second;
}

absl::StatusOr<rocksdb::ColumnFamilyHandle*> RocksDbKvStore::Handle(std::string_view cf) const {
  absl::StatusOr<const Family*> family = FindFamily(cf);
  if (!family.ok()) return family.status();
  return (*family)->handle;
}

bool RocksDbKvStore::HasColumnFamily(std::string_view cf) const {
  return declared_.contains(AsAbsl(cf));
}

absl::StatusOr<std::string> RocksDbKvStore::Get(std::string_view cf, std::string_view key) const {
  absl::StatusOr<rocksdb::ColumnFamilyHandle*> handle = Handle(cf);
  if (!handle.ok()) return handle.status();
  std::string value;
  const rocksdb::Status status = db_->Get(rocksdb::ReadOptions(), *handle, ToSlice(key), &value);
  if (!status.ok()) return ToAbslStatus(status, "rocksdb get");
  return value;
}

absl::StatusOr<std::vector<std::optional<std::string>>> RocksDbKvStore::MultiGet(
    std::string_view cf, const std::vector<std::string>& keys) const {
  absl::StatusOr<rocksdb::ColumnFamilyHandle*> handle = Handle(cf);
  if (!handle.ok()) return handle.status();
  std::vector<rocksdb::Slice> slices;
  slices.reserve(keys.size());
  for (const std::string& key : keys) slices.emplace_back(key);
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  db_->MultiGet(rocksdb::ReadOptions(), *handle, keys.size(), slices.data(), values.data(),
                statuses.data());
  std::vector<std::optional<std::string>> result;
  result.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) {
      result.emplace_back(std::nullopt);
    } else if (!statuses[i].ok()) {
      return ToAbslStatus(statuses[i], "rocksdb multiget");
    } else {
      result.emplace_back(values[i].ToString());
    }
  }
  return result;
}

absl::Status RocksDbKvStore::Write(const WriteBatch& batch) {
  if (batch.empty()) return absl::OkStatus();
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  handles.reserve(batch.column_families().size());
  for (const std::string& cf : batch.column_families()) {
    absl::StatusOr<rocksdb::ColumnFamilyHandle*> handle = Handle(cf);
    if (!handle.ok()) return handle.status();
    handles.push_back(*handle);
  }
  rocksdb::WriteBatch native(/*reserved_bytes=*/batch.payload_bytes() + 16 * batch.size());
  // The batch goes to RocksDB in key order within each family (stable, so two operations on
  // one key keep theirs; the batch is applied atomically, so nothing else can tell). A
  // memtable's skip list starts each insert from where the previous one went: in key order an
  // insert costs a short walk from its neighbour, in the caller's order a full descent.
  std::vector<uint32_t> order(batch.size());
  std::iota(order.begin(), order.end(), 0);
  const std::vector<WriteBatch::Op>& ops = batch.ops();
  std::stable_sort(order.begin(), order.end(), [&ops](uint32_t a, uint32_t b) {
    if (ops[a].cf_index != ops[b].cf_index) return ops[a].cf_index < ops[b].cf_index;
    return ops[a].key < ops[b].key;
  });
  for (const uint32_t i : order) {
    const WriteBatch::Op& op = ops[i];
    const rocksdb::Status status =
        op.type == WriteBatch::OpType::kPut
            ? native.Put(handles[op.cf_index], ToSlice(op.key), ToSlice(op.value))
            : native.Delete(handles[op.cf_index], ToSlice(op.key));
    if (!status.ok()) return ToAbslStatus(status, "rocksdb batch");
  }
  rocksdb::WriteOptions write;
  write.sync = options_.sync_writes || batch.sync();
  rocksdb::Status status = db_->Write(write, &native);
  // After a failed write to its log or a flush (a full disk), RocksDB refuses every write until
  // it recovers: the store asks it to, and writes again if it did.
  if (status.IsIOError() && Resume()) status = db_->Write(write, &native);
  if (status.ok()) return absl::OkStatus();
  const absl::Status error = ToAbslStatus(status, absl::StrCat("cannot write ", options_.path));
  // The writer decides: a standalone crawl stops, a frontier server's caller tries again later.
  if (status.IsIOError()) return absl::FailedPreconditionError(error.message());
  return error;
}

bool RocksDbKvStore::Resume() const {
  {
    // Each attempt flushes the memtables, at some cost while the disk is still full.
    absl::MutexLock lock(&resume_mu_);
    const absl::Time now = absl::Now();
    if (now - last_resume_ < absl::Milliseconds(500)) return false;
    last_resume_ = now;
  }
  return db_->Resume().ok();
}

absl::StatusOr<std::unique_ptr<KvIterator>> RocksDbKvStore::NewIterator(
    std::string_view cf, std::string_view begin, std::string_view end) const {
  absl::StatusOr<rocksdb::ColumnFamilyHandle*> handle = Handle(cf);
  if (!handle.ok()) return handle.status();
  return std::make_unique<RocksDbIterator>(db_.get(), *handle, begin, end);
}

absl::StatusOr<std::unique_ptr<KvIterator>> RocksDbKvStore::NewPrefixIterator(
    std::string_view cf) const {
  absl::StatusOr<const Family*> family = FindFamily(cf);
  if (!family.ok()) return family.status();
  return std::make_unique<RocksDbPrefixIterator>(db_.get(), (*family)->handle,
                                                 (*family)->scan_prefix_bytes);
}

absl::Status RocksDbKvStore::Flush() {
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  for (const auto& [name, family] : declared_) handles.push_back(family.handle);
  return ToAbslStatus(db_->Flush(rocksdb::FlushOptions(), handles), "rocksdb flush");
}

RocksDbTickers RocksDbKvStore::Tickers() const {
  RocksDbTickers t;
  if (statistics_ == nullptr) return t;
  auto get = [this](rocksdb::Tickers ticker) { return statistics_->getTickerCount(ticker); };
  t.user_bytes_written = get(rocksdb::BYTES_WRITTEN);
  t.wal_bytes = get(rocksdb::WAL_FILE_BYTES);
  t.flush_bytes = get(rocksdb::FLUSH_WRITE_BYTES);
  t.compaction_bytes = get(rocksdb::COMPACT_WRITE_BYTES);
  t.bloom_useful = get(rocksdb::BLOOM_FILTER_USEFUL);
  t.bloom_positive = get(rocksdb::BLOOM_FILTER_FULL_POSITIVE);
  t.bloom_true_positive = get(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE);
  t.block_cache_data_miss = get(rocksdb::BLOCK_CACHE_DATA_MISS);
  t.block_cache_data_hit = get(rocksdb::BLOCK_CACHE_DATA_HIT);
  t.block_cache_filter_miss = get(rocksdb::BLOCK_CACHE_FILTER_MISS);
  t.block_cache_index_miss = get(rocksdb::BLOCK_CACHE_INDEX_MISS);
  return t;
}

std::vector<std::pair<std::string, uint64_t>> RocksDbKvStore::FamilyBytes() const {
  std::vector<std::pair<std::string, uint64_t>> sizes;
  for (const auto& [name, family] : declared_) {
    uint64_t bytes = 0;
    db_->GetIntProperty(family.handle, rocksdb::DB::Properties::kLiveSstFilesSize, &bytes);
    sizes.emplace_back(name, bytes);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

absl::Status RocksDbKvStore::CompactAll() {
  rocksdb::CompactRangeOptions compact;
  // The last level too: that is where deleted entries' tombstones and overwritten values wait.
  compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
  for (const auto& [name, family] : declared_) {
    const rocksdb::Status status = db_->CompactRange(compact, family.handle, nullptr, nullptr);
    if (!status.ok()) return ToAbslStatus(status, absl::StrCat("compacting ", name));
  }
  return absl::OkStatus();
}

}  // namespace crawler::kv
