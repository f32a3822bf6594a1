// Resharder: the scheduler's side of a reshard of a running crawl (docs/architecture.md §4). It
// keeps the fleet's partition layout (partition::PartitionLayout) in the scheduler's store and
// moves it from N partitions to the count the scheduler was started with:
//
// 1. Moving (layout {N, reshard_to M}): every partition routes by N and takes what is delivered
//    for the hosts it will own. Each tick, for every live collection and partition, the hosts
//    that move are marked (BeginHostMove: no more leases; one with URLs on lease waits for them),
//    exported in chunks, imported by their new owner and forgotten by the old one; and the URLs
//    held meanwhile (arrivals for moving or moved hosts, new hosts that live elsewhere) go to
//    their new owners. Each step repeats safely, so a kill of the scheduler or of a partition
//    anywhere in it is resumed by the next tick from what the partitions hold.
// 2. The flip, once a full pass finds no host left to move and nothing held: the layout
//    becomes {M, resharded_from N} (epoch + 1), persisted before it is pushed. Fetchers route by
//    M from their next report; partitions hold what still comes by the old layout, and the
//    Resharder delivers it.
// 3. Settled, `settle` after the flip with nothing held: {M} (epoch + 1).
//
// A focused collection's hosts do not move (their bandit statistics are not carried): a reshard
// does not start while one lives, and one created meanwhile stops it until it is deleted
// (status: blocked, with the reason).
//
// Thread-safety: Tick runs on the control loop's thread; Status may be called from any.
#ifndef CRAWLER_SERVICES_SCHEDULER_RESHARDER_H_
#define CRAWLER_SERVICES_SCHEDULER_RESHARDER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "lib/partition/layout.h"
#include "services/common/kv/kv_store.h"
#include "services/common/periodic_runner.h"
#include "services/scheduler/collection_manager.h"
#include "services/scheduler/partition_fleet.h"

namespace crawler::scheduler {

struct ResharderOptions {
  // The partition count the crawl should run with (the scheduler's `partitions`).
  uint32_t partitions = 1;
  // After the flip, how long partitions hold what comes by the old layout before it is
  // forgotten: longer than a fetcher takes to hear of the flip (its report interval) and to
  // hand over what it had routed before (its outbox).
  absl::Duration settle = absl::Seconds(30);
  // Hosts moved per tick, over all collections: bounds a tick's work.
  size_t hosts_per_tick = 500;
  // URLs per exported chunk and per delivery of held URLs.
  size_t chunk_urls = 1000;
  Logger log;
};

// Where a reshard stands (Admin.GetPartitions, crawlctl partitions, metrics).
struct ReshardStatus {
  enum class Phase { kSteady, kMoving, kSettling, kBlocked };
  partition::PartitionLayout layout;
  Phase phase = Phase::kSteady;
  std::string blocked_reason;  // kBlocked only
  // The reshard in progress or the last one.
  uint32_t from = 0;
  uint32_t to = 0;
  absl::Time started = absl::InfinitePast();
  absl::Time flipped = absl::InfinitePast();
  absl::Time finished = absl::InfinitePast();
  uint64_t hosts_moved = 0;
  uint64_t urls_moved = 0;
  uint64_t held_delivered = 0;
  // At the last pass: hosts still to move, and URLs held, over every collection and partition
  // that answered; partitions that did not.
  uint64_t hosts_left = 0;
  uint64_t held_urls = 0;
  uint32_t partitions_unreachable = 0;

  friend bool operator==(const ReshardStatus&, const ReshardStatus&) = default;
};
const char* PhaseName(ReshardStatus::Phase phase);

class Resharder final : public PeriodicJob {
 public:
  static std::vector<kv::ColumnFamilySpec> ColumnFamilies();

  // The layout kept in `store`, or `partitions` partitions for a store that has none (a new
  // crawl starts with the count asked for: there is nothing to move): set it on the fleet
  // before the CollectionManager opens (its routing depends on it).
  static absl::StatusOr<ReshardStatus> Load(kv::KvStore& store, uint32_t partitions);

  // Routes the fleet by the loaded layout. A reshard to options.partitions starts at the first
  // Tick (or once the one under way is done: a count changed again meanwhile waits for it).
  // kInvalidArgument when the fleet cannot reach the partitions the layout spans. Every
  // reference must outlive the Resharder.
  static absl::StatusOr<std::unique_ptr<Resharder>> Open(const ResharderOptions& options,
                                                         ReshardStatus loaded, kv::KvStore& store,
                                                         PartitionFleet& fleet,
                                                         CollectionManager& manager,
                                                         const Clock& clock);

  void Tick(absl::Time now) override;
  ReshardStatus Status() const;

 private:
  struct Pass {
    uint64_t hosts_left = 0;
    uint64_t held = 0;
    uint32_t unreachable = 0;
    bool complete = true;  // every partition of every collection answered
  };

  Resharder(const ResharderOptions& options, ReshardStatus loaded, kv::KvStore& store,
            PartitionFleet& fleet, CollectionManager& manager, const Clock& clock);

  // Persists `status` and applies its layout to the manager (and through it the fleet).
  absl::Status Commit(const ReshardStatus& status);
  // Starts a reshard to options_.partitions when the layout is steady at another count and no
  // focused collection lives (else `status` says blocked); true if it started.
  bool BeginIfWanted(ReshardStatus& status, absl::Time now);
  // Moves up to `budget` hosts of `collection` off partition k (none for 0: the pass still
  // counts what is left); returns how many moved.
  size_t MoveHosts(const std::string& collection, uint32_t k, size_t budget, Pass& pass,
                   ReshardStatus& status);
  // Moves one host whose leases have ended; kUnavailable while some are out.
  absl::StatusOr<uint64_t> MoveHost(const std::string& collection, uint32_t k,
                                    const std::string& host);
  // Delivers the URLs partition k holds for other partitions to their owners.
  void DeliverHeld(const std::string& collection, uint32_t k, Pass& pass, ReshardStatus& status);

  const ResharderOptions options_;
  kv::KvStore& store_;
  PartitionFleet& fleet_;
  CollectionManager& manager_;
  const Clock& clock_;

  // Progress is logged this often while hosts move (only on the Tick thread).
  static constexpr absl::Duration kProgressLogInterval = absl::Seconds(10);
  absl::Time last_progress_log_ = absl::InfinitePast();

  mutable absl::Mutex mu_;
  ReshardStatus status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_RESHARDER_H_
