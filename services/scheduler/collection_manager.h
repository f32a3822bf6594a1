// CollectionManager: the scheduler service's state and control loop (docs/architecture.md §3.2).
// It owns the collections (persisted in the scheduler's store, several crawling at once), answers
// the Admin API's calls on them, and keeps the frontier partitions in step:
//
// - Create stores the collection (ACTIVE), opens it on every partition and feeds its seeds.
//   What cannot reach a partition now is retried by Tick: the record says the seeds are still
//   pending, so a scheduler killed in between feeds them after its restart (a seed fed twice is
//   counted as seen). No seed the Admin API acknowledged is lost.
// - AddSeeds feeds more seeds through the collection's scope; it answers only after every
//   partition accepted them (a failure is returned and the caller may repeat the call).
// - Pause and resume change the state the fetchers read in their report replies (TakeReport);
//   a paused collection's fetchers stop leasing and finish what is in flight.
// - Fetchers' reports (TakeReport) are answered with every live collection, its state and its
//   definition's version; the definition itself (without its seeds but those its scope needs)
//   only to a fetcher that does not hold that version, so a reply stays small however large
//   the definitions.
// - A collection's generation (CollectionGeneration, its creation time) tells it from one
//   deleted earlier under its name: the partitions open it as such, and fetchers' counters of
//   an older one are not summed into it.
// - Create refuses a collection none of whose seeds is in its scope (it would finish at once
//   with nothing fetched); Get and the others show seed_count, List leaves the seeds out.
// - Delete hides the collection at once and drops it on every partition (Tick retries until all
//   have), then forgets it.
// - Tick (every second or so, a PeriodicJob; collection_sync.cc): re-opens collections on the
//   partitions (a partition restarted from an empty disk gets its collections back), feeds
//   pending seeds, marks a one-off collection FINISHED when every partition is exhausted (and
//   ACTIVE again if seeds arrive later), re-tunes re-visiting collections (RevisitTuner) with
//   the fleet-wide estimates, pushing the result to the partitions, and splits a focused
//   collection's page budget over the partitions by reward (FocusBudgetTuner), pushing each
//   partition's with OpenCollection (it splits once more before calling such a collection
//   FINISHED).
// - Statistics (collection_queries.cc): the partitions' figures are pulled when asked for (a
//   partition that does not answer is left out and counted); the fetchers' figures (errors by
//   class, robots denials, duplicates, exchange traffic) come from their reports, kept per
//   process incarnation (FetcherReports) so that neither a fetcher's nor the scheduler's restart
//   loses them.
//
// The records' bytes are the RecordCodec's (record_codec.h); this class sees domain types only.
//
// Errors name the field or the collection: kInvalidArgument (a bad definition, a validation
// error naming the field), kAlreadyExists, kNotFound ("collection 'x' not found"),
// kFailedPrecondition (e.g. a name still being deleted), kAborted (a concurrent update),
// kUnavailable (partitions unreachable).
//
// Thread-safety: thread-safe. Calls to partitions are made outside the internal lock.
#ifndef CRAWLER_SERVICES_SCHEDULER_COLLECTION_MANAGER_H_
#define CRAWLER_SERVICES_SCHEDULER_COLLECTION_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "lib/partition/layout.h"
#include "services/collections/collection.h"
#include "services/common/kv/kv_store.h"
#include "services/common/periodic_runner.h"
#include "services/frontier/host_api.h"
#include "services/frontier/host_control_client.h"
#include "services/scheduler/fetcher_reports.h"
#include "services/scheduler/focus_budget_tuner.h"
#include "services/scheduler/partition_fleet.h"
#include "services/scheduler/record_codec.h"
#include "services/scheduler/revisit_tuner.h"
#include "services/scheduler/scheduler.h"
#include "services/scheduler/scheduler_api.h"

namespace crawler::scheduler {

struct CollectionManagerOptions {
  // How a call that feeds seeds (Create, AddSeeds) waits out partitions that fail: a few
  // attempts, so the caller hears of an outage within seconds rather than minutes.
  SeedFeedOptions feed{.batch_urls = 512,
                       .retry = {.initial = absl::Milliseconds(100),
                                 .max = absl::Seconds(1),
                                 .max_attempts = 4}};
  // How often Tick opens every collection on every partition again (cheap when nothing
  // changed; it restores a partition that lost its disk).
  absl::Duration reopen_interval = absl::Seconds(10);
  RevisitTunerOptions tuner;
  // How often a focused collection's page budget is split again (FocusBudgetTuner).
  FocusBudgetTunerOptions focus_tuner;
  // Fetcher incarnations whose last report is kept per partition (the oldest are folded).
  size_t max_incarnations_per_partition = 64;
  // Where the collections' lives are said (created, updated, paused, resumed, finished,
  // deleted) and the tuners' failures.
  Logger log;
};

class CollectionManager final : public PeriodicJob {
 public:
  // The column families the store must provide.
  static std::vector<kv::ColumnFamilySpec> ColumnFamilies();

  // Loads the collections and fetcher reports in `store`. kDataLoss for a record that does not
  // decode. `store`, `fleet`, `codec` and `clock` must outlive the manager.
  static absl::StatusOr<std::unique_ptr<CollectionManager>> Open(
      const CollectionManagerOptions& options, kv::KvStore& store, PartitionFleet& fleet,
      const RecordCodec& codec, const Clock& clock);
  ~CollectionManager() override;

  absl::StatusOr<CollectionInfo> Create(collections::Collection collection);
  // Changes the definition of collection `name` to what `change` makes of the current one; the
  // name and the seeds stay (seeds come through AddSeeds). The partitions get the new settings
  // at once (best effort; Tick repeats it). kAborted if another update came in between.
  using Change = std::function<absl::StatusOr<collections::Collection>(
      const collections::Collection& current)>;
  absl::StatusOr<CollectionInfo> Update(const std::string& name, const Change& change);
  absl::StatusOr<CollectionInfo> Get(const std::string& name) const;
  // Collections ordered by name after `page_token` (a name; empty: from the start), at most
  // `page_size` of them (0: 100; at most 1,000), and the token of the next page (empty: this
  // was the last).
  absl::StatusOr<std::pair<std::vector<CollectionInfo>, std::string>> List(
      int page_size, const std::string& page_token) const;
  absl::StatusOr<CollectionInfo> Pause(const std::string& name);
  absl::StatusOr<CollectionInfo> Resume(const std::string& name);
  absl::Status Delete(const std::string& name);

  // `sitemaps`: the seeds are sitemaps to read (Scheduler::SeedKind::kSitemap).
  absl::StatusOr<SeedReport> AddSeeds(const std::string& name,
                                      const std::vector<std::string>& seeds,
                                      bool sitemaps = false);
  absl::StatusOr<CollectionStats> Stats(const std::string& name);
  // At most 100 URLs.
  absl::StatusOr<std::vector<UrlExplanation>> Explain(const std::string& name,
                                                      const std::vector<std::string>& urls);

  // Host control (docs/api.md "Host control"): each call goes to the partition that owns the
  // host (partition::Partition of its key); ListHosts merges the partitions' pages in the
  // order asked for, its page token holding each partition's offset. kInvalidArgument for a
  // malformed host key or one the collection's scope refuses (host not allowed, other site),
  // kNotFound for a host the collection never saw, kUnavailable for a partition that does not
  // answer; a refused call changes nothing.
  absl::StatusOr<frontier::ListHostsResult> ListHosts(const std::string& name,
                                                      const frontier::ListHostsRequest& request);
  absl::StatusOr<frontier::HostDetail> GetHost(const std::string& name,
                                               const std::string& host_key);
  absl::StatusOr<frontier::HostChangeResult> ControlHost(const std::string& name,
                                                         const std::string& host_key,
                                                         const frontier::HostControlChange& change);
  absl::StatusOr<frontier::HostChangeResult> DropHostQueue(const std::string& name,
                                                           const std::string& host_key);
  absl::StatusOr<frontier::ListHostUrlsResult> ListHostUrls(
      const std::string& name, const frontier::ListHostUrlsRequest& request);

  // Keeps a fetcher's report and returns every live collection (deleted ones are left out),
  // with the definitions the report does not name as held (FetcherReport::held).
  absl::StatusOr<std::vector<FetcherCollection>> TakeReport(const FetcherReport& report);

  // The latest re-visit tuning of every live re-visiting collection tuned so far, by name.
  std::vector<std::pair<std::string, RevisitTuning>> LatestTunings() const;

  // The control loop's step (see the header comment).
  void Tick(absl::Time now) override;

  // A reshard's step (Resharder): the fleet routes by `layout` from now on. Every collection's
  // routing is rebuilt over the partitions the layout spans, and the next Tick pushes the
  // layout to each partition with the collection. kInvalidArgument for a layout the fleet
  // cannot reach.
  absl::Status SetLayout(const partition::PartitionLayout& layout);
  // The layout the fleet routes by now.
  partition::PartitionLayout Layout() const { return fleet_.layout(); }
  // The live collections (not being deleted): their names, whether each is focused, and
  // whether every partition the layout spans has been given it with the current layout (a
  // partition routes by the layout it was last given: until then its answers about moving
  // hosts are the old layout's).
  struct LiveCollection {
    std::string name;
    bool focused = false;
    bool layout_pushed = false;
  };
  std::vector<LiveCollection> LiveCollections() const;

 private:
  struct Entry;
  CollectionManager(const CollectionManagerOptions& options, kv::KvStore& store,
                    PartitionFleet& fleet, const RecordCodec& codec, const Clock& clock,
                    std::unique_ptr<FetcherReports> reports);

  // Builds the in-memory side of a stored collection (scope, routed client, tuners).
  absl::StatusOr<std::shared_ptr<Entry>> Build(StoredCollection stored) const;
  absl::Status Persist(const StoredCollection& stored);
  // The live (not deleting) entry named `name`, or kNotFound.
  absl::StatusOr<std::shared_ptr<Entry>> Find(const std::string& name) const;
  // Sets the state of a live collection in `from` and persists it.
  absl::StatusOr<CollectionInfo> SetState(const std::string& name,
                                          std::vector<CollectionState> from, CollectionState to);
  // Host control's routing (host_control.cc): the client of the partition that owns
  // `host_key` in collection `name`, after checking the key and the collection's scope.
  absl::StatusOr<frontier::HostControlClient*> HostOwner(const std::string& name,
                                                         const std::string& host_key);
  // Feeds the collection's own seeds and clears seeds_pending once every partition took them.
  absl::Status FeedPendingSeeds(Entry& entry, const SeedFeedOptions& options);

  // The control loop (collection_sync.cc).
  // Opens the collection on every partition; returns the first error (all are tried).
  absl::Status OpenEverywhere(Entry& entry);
  void SyncOne(const std::shared_ptr<Entry>& entry, absl::Time now);
  // Drops a deleting collection on every partition, then forgets it.
  void DropOne(const std::shared_ptr<Entry>& entry);
  // Marks an exhausted ACTIVE one-off collection FINISHED.
  void FinishIfExhausted(Entry& entry, absl::Time now);

  const CollectionManagerOptions options_;
  kv::KvStore& store_;
  PartitionFleet& fleet_;
  const RecordCodec& codec_;
  const Clock& clock_;
  const std::unique_ptr<FetcherReports> reports_;

  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_COLLECTION_MANAGER_H_
