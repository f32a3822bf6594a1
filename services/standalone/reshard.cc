#include "services/standalone/reshard.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/partition/partition.h"
#include "services/common/atomic_file.h"
#include "services/common/kv/kv_store.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/storage_format.h"

namespace crawler::standalone {
namespace {

namespace fs = std::filesystem;

constexpr char kCountFile[] = "partitions";
constexpr char kMovingFile[] = "partitions.moving";
constexpr char kRemovedSuffix[] = ".removed";
// URLs per chunk of a host's move: bounds the memory of one host of millions of URLs.
constexpr size_t kChunkUrls = 4096;

// The `count` positive integers of a small file; nullopt if it is absent.
absl::StatusOr<std::optional<std::vector<int>>> ReadInts(const fs::path& file, size_t count) {
  absl::StatusOr<std::string> text = ReadWholeFile(file);
  if (absl::IsNotFound(text.status())) return std::optional<std::vector<int>>();
  if (!text.ok()) return text.status();
  const std::vector<std::string> words =
      absl::StrSplit(*text, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
  std::vector<int> values(count);
  for (size_t i = 0; i < count; ++i) {
    if (i >= words.size() || !absl::SimpleAtoi(words[i], &values[i]) || values[i] < 1) {
      return absl::DataLossError(absl::StrCat("cannot read ", file.string()));
    }
  }
  return std::optional<std::vector<int>>(std::move(values));
}

// Deletes partition directories left by an earlier move (renamed before their removal, so a
// directory half deleted is never opened as a store).
void RemoveLeftovers(const fs::path& data_dir) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(data_dir, ec)) {
    if (absl::EndsWith(entry.path().filename().string(), kRemovedSuffix)) {
      fs::remove_all(entry.path(), ec);
    }
  }
}

struct Partition {
  std::unique_ptr<kv::RocksDbKvStore> store;
  std::unique_ptr<frontier::Frontier> frontier;
};

// Moves one host from `from` to `to`; returns its URLs (0 if `from` no longer holds it).
absl::StatusOr<uint64_t> MoveHost(frontier::Frontier& from, frontier::Frontier& to,
                                  const std::string& host) {
  std::string after;
  while (true) {
    absl::StatusOr<frontier::HostChunk> chunk = from.ExportHost(host, after, kChunkUrls);
    if (absl::IsNotFound(chunk.status())) return 0;  // moved by a run cut short
    if (!chunk.ok()) return chunk.status();
    absl::Status imported = to.ImportHost(*chunk);
    if (absl::IsAlreadyExists(imported)) break;  // imported whole before a cut
    if (!imported.ok()) return imported;
    if (chunk->next.empty()) break;
    after = chunk->next;
  }
  return from.ForgetHost(host);
}

class Mover {
 public:
  Mover(const ReshardOptions& options, int from, int to)
      : options_(options), from_(from), to_(to) {}

  absl::Status Run() {
    const absl::Time start = absl::Now();
    options_.log.Info("partitions: moving the hosts of ", from_, " partition(s) to ", to_);
    if (absl::Status s = Open(); !s.ok()) return s;
    last_report_ = start;
    for (int k = 0; k < from_; ++k) {
      if (absl::Status s = MovePartition(static_cast<uint32_t>(k)); !s.ok()) return s;
    }
    options_.log.Info("partitions: ", to_, " now: ", hosts_, " host(s) and ", urls_,
                      " URL(s) moved in ", absl::FormatDuration(absl::Now() - start));
    partitions_.clear();  // closes the stores before their directories go
    return absl::OkStatus();
  }

 private:
  absl::Status Open() {
    const auto n = static_cast<uint32_t>(std::max(from_, to_));
    absl::StatusOr<std::shared_ptr<kv::RocksDbMemory>> memory = options_.store_memory.Create();
    if (!memory.ok()) return memory.status();
    for (uint32_t k = 0; k < n; ++k) {
      Partition p;
      absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store = kv::RocksDbKvStore::Open(
          {.path = PartitionDir(options_.data_dir, k).string(), .shared_memory = *memory},
          frontier::Frontier::ColumnFamilies());
      if (!store.ok()) return store.status();
      p.store = *std::move(store);
      // Partitions beyond the new count are only emptied: no ownership to check there.
      frontier::FrontierOptions o = k < static_cast<uint32_t>(to_)
                                        ? options_.options_for(k, static_cast<uint32_t>(to_))
                                        : options_.options_for(0, 1);
      o.restored_lease_grace = absl::ZeroDuration();  // no fetcher holds a lease now
      absl::StatusOr<std::unique_ptr<frontier::Frontier>> opened =
          frontier::Frontier::Open(o, *p.store, clock_);
      if (!opened.ok()) return opened.status();
      p.frontier = *std::move(opened);
      partitions_.push_back(std::move(p));
    }
    return absl::OkStatus();
  }

  absl::Status MovePartition(uint32_t k) {
    std::vector<std::string> leaving;
    {
      absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
          partitions_[k].store->NewIterator(frontier::storage::kHostsFamily, "", "");
      if (!it.ok()) return it.status();
      for (; (*it)->Valid(); (*it)->Next()) {
        std::string host((*it)->key());
        if (partition::Partition(host, static_cast<uint32_t>(to_)) != k) {
          leaving.push_back(std::move(host));
        }
      }
      if (absl::Status s = (*it)->status(); !s.ok()) return s;
    }
    for (const std::string& host : leaving) {
      const uint32_t owner = partition::Partition(host, static_cast<uint32_t>(to_));
      absl::StatusOr<uint64_t> moved =
          MoveHost(*partitions_[k].frontier, *partitions_[owner].frontier, host);
      if (!moved.ok()) {
        return absl::Status(moved.status().code(),
                            absl::StrCat("moving host ", host, " from partition ", k, " to ", owner,
                                         ": ", moved.status().message()));
      }
      if (*moved > 0) ++hosts_;
      urls_ += *moved;
      if (absl::Now() - last_report_ >= absl::Seconds(5)) {
        last_report_ = absl::Now();
        options_.log.Info("partitions: ", hosts_, " host(s) and ", urls_,
                          " URL(s) moved; partition ", k + 1, " of ", from_);
      }
    }
    return absl::OkStatus();
  }

  const ReshardOptions& options_;
  const int from_;
  const int to_;
  const SystemClock clock_;
  std::vector<Partition> partitions_;
  uint64_t hosts_ = 0;
  uint64_t urls_ = 0;
  absl::Time last_report_;
};

}  // namespace

fs::path PartitionDir(const fs::path& data_dir, uint32_t k) {
  return data_dir / (k == 0 ? std::string("state") : absl::StrCat("state-", k));
}

absl::Status EnsurePartitionCount(const ReshardOptions& options) {
  const fs::path& dir = options.data_dir;
  const int n = options.partitions;
  RemoveLeftovers(dir);
  absl::StatusOr<std::optional<std::vector<int>>> recorded = ReadInts(dir / kCountFile, 1);
  if (!recorded.ok()) return recorded.status();
  absl::StatusOr<std::optional<std::vector<int>>> moving = ReadInts(dir / kMovingFile, 2);
  if (!moving.ok()) return moving.status();
  std::error_code ec;
  int from = 0;
  if (moving->has_value()) {
    from = (**moving)[0];
    if ((**moving)[1] != n) {
      return absl::FailedPreconditionError(
          absl::StrCat("data dir ", dir.string(), " was moving from ", from, " to ", (**moving)[1],
                       " partitions when it stopped; resume it with --partitions ", (**moving)[1],
                       " to finish the move (another count can follow)"));
    }
  } else {
    // A data dir from before the count was recorded holds one partition; a new one none.
    from = recorded->has_value() ? (**recorded)[0] : fs::exists(dir / "state", ec) ? 1 : 0;
    if (from == n) return absl::OkStatus();
    if (from == 0) return WriteFileAtomically(dir / kCountFile, absl::StrCat(n, "\n"));
    if (!options.movable) {
      return absl::FailedPreconditionError(
          absl::StrCat("data dir ", dir.string(), " was crawled with ", from, " partition(s) and ",
                       options.not_movable_reason, "; resume it with --partitions ", from));
    }
    if (absl::Status s = WriteFileAtomically(dir / kMovingFile, absl::StrCat(from, " ", n, "\n")); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = Mover(options, from, n).Run(); !s.ok()) return s;
  if (absl::Status s = WriteFileAtomically(dir / kCountFile, absl::StrCat(n, "\n")); !s.ok()) return s;
  fs::remove(dir / kMovingFile, ec);
  if (ec)
    return absl::UnavailableError(absl::StrCat("cannot remove ", kMovingFile, ": ", ec.message()));
  // The partitions beyond the new count hold nothing now.
  for (int k = n; k < from; ++k) {
    const fs::path old = PartitionDir(dir, static_cast<uint32_t>(k));
    fs::rename(old, fs::path(old.string() + kRemovedSuffix), ec);
  }
  RemoveLeftovers(dir);
  return absl::OkStatus();
}

}  // namespace crawler::standalone
