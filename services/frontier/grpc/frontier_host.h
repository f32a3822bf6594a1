// FrontierHost: the collections of one frontier server (one partition). Each collection is a
// Frontier core over a RocksDB store of its own, kept under
//
//   <data_dir>/collections/<name>/store/           the RocksDB store (Frontier::ColumnFamilies)
//   <data_dir>/collections/<name>/collection.binpb the collection's settings: a serialized
//                                                  crawler.v1.OpenCollectionRequest
//
// (docs/storage-format.md). The scheduler pushes collections (OpenCollection, DropCollection);
// the settings are written beside the store (a temporary file, fsynced, renamed over the old
// one), so a restarted server (Open) serves the same collections with the same options before
// the scheduler pushes them again.
//
// A collection's core runs with the server's base FrontierOptions (lease duration, retries,
// seen cache...) overridden by the collection's settings and this partition's place
// (WithCollection, frontier_options.h). A focused collection whose settings changed only in
// max_pages keeps its core: the budget moves in place (Frontier::SetPageBudget), so the bandit
// plays on.
//
// Handles: Find returns a shared_ptr to a core. A Drop, or a reopen with changed settings, takes
// the core out of the host at once and then waits until every handle to it is gone (calls in
// progress finish on the old core) before it closes the store: two cores never share a store,
// and a core is never freed under a call. Callers therefore hold a handle only for one call,
// never across calls.
//
// Thread-safety: thread-safe. One mutex guards the table of collections; OpenCollection and
// DropCollection hold it while a changed core closes (the calls in progress on it finish) and
// its store reopens, so Find waits that long too; the cores' own calls run outside it.
#ifndef CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_HOST_H_
#define CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_HOST_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "lib/partition/layout.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/frontier_options.h"

namespace crawler::frontier {

struct FrontierHostOptions {
  // The server's data directory (created if absent); collections live under collections/.
  // Required.
  std::string data_dir;
  // Server-wide core options (lease duration, retries, seen cache...); the per-collection fields
  // (budgets, in-flight cap, depth, re-visits, partition) are overridden per collection.
  FrontierOptions base;
  // The RocksDB options of every collection's store (the path is set per collection).
  kv::RocksDbKvStoreOptions store;
  // This server's partition: it owns the hosts with Partition(host_key, partition_count) ==
  // partition_index. partition_count in [1, 65536], partition_index < partition_count. The
  // count a collection routes by is the scheduler's (OpenCollection's layout), which a
  // reshard changes; this one is the count the server was started with.
  uint32_t partition_index = 0;
  uint32_t partition_count = 1;
  // Where what a collection's opening found (its core's warnings) is said.
  Logger log;
};

class FrontierHost {
 public:
  // Creates data_dir/collections if needed and reopens every collection found there with the
  // settings stored beside it. kInvalidArgument for bad options; a collection that cannot be
  // opened (unreadable settings, a store or core error) fails the whole Open with its error,
  // naming the collection. `clock` must outlive the host.
  static absl::StatusOr<std::unique_ptr<FrontierHost>> Open(const FrontierHostOptions& options,
                                                            const Clock& clock);

  FrontierHost(const FrontierHost&) = delete;
  FrontierHost& operator=(const FrontierHost&) = delete;
  // Closes every collection (waiting for the handles still out).
  ~FrontierHost();

  // Opens `collection` (creating its store on first use) or, if it is open with other settings,
  // persists the new ones and reopens its core with them; one of another (non-zero) generation
  // is the old collection of that name: its store is deleted first. A change of the partition
  // layout alone (a reshard's steps) is persisted and applied in place (Frontier::SetLayout).
  // Returns whether anything changed (false: open already with these settings and layout).
  // kInvalidArgument naming the field for a bad name or settings the core refuses;
  // kFailedPrecondition for a layout this server's partition is outside of, or one older
  // (by epoch) than the collection's; the store's error otherwise (a collection that was open
  // stays open).
  absl::StatusOr<bool> OpenCollection(const CollectionSettings& collection,
                                      const partition::PartitionLayout& layout);
  absl::StatusOr<bool> OpenCollection(const CollectionSettings& collection,
                                      uint32_t partition_count) {
    return OpenCollection(collection, partition::PartitionLayout{.count = partition_count});
  }

  // Closes the collection and deletes its directory. Returns false if it was not here.
  // kInvalidArgument for a bad name.
  absl::StatusOr<bool> DropCollection(std::string_view name);

  // The collection's core, or nullptr if this server does not hold it. Hold it for one call.
  std::shared_ptr<Frontier> Find(std::string_view name) const;
  // The same with the generation held (CollectionSettings::generation), read together.
  struct Held {
    std::shared_ptr<Frontier> core;  // null: not held
    uint64_t generation = 0;
  };
  Held FindHeld(std::string_view name) const;

  // The settings a collection runs with; kNotFound if it is not here.
  absl::StatusOr<CollectionSettings> Settings(std::string_view name) const;

  // The collections held, sorted by name.
  std::vector<std::string> Names() const;

  // Every collection's core, for jobs that visit them all (LeaseReaper).
  std::vector<std::shared_ptr<Frontier>> Cores() const;

  const FrontierHostOptions& options() const { return options_; }

 private:
  struct Collection {
    CollectionSettings settings;
    partition::PartitionLayout layout;
    std::shared_ptr<Frontier> core;
    // Notified when the core and its store are closed (the last handle is gone).
    std::shared_ptr<absl::Notification> closed;
  };

  FrontierHost(const FrontierHostOptions& options, const Clock& clock);

  std::string CollectionDir(std::string_view name) const;
  // Opens the store and core of `settings` (the settings file is the caller's business).
  absl::StatusOr<Collection> OpenCore(const CollectionSettings& settings,
                                      const partition::PartitionLayout& layout) const;
  // Takes the core out of `collection` and waits until it and its store are closed.
  static void Close(Collection& collection);

  // Constant after construction.
  const FrontierHostOptions options_;
  const Clock& clock_;

  mutable absl::Mutex mu_;
  std::map<std::string, Collection, std::less<>> collections_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_HOST_H_
