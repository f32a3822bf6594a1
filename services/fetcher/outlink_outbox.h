// OutlinkOutbox: a fetcher's hand-over of outlinks to the other frontier partitions, so that one
// partition that does not answer (down, frozen, partitioned away) holds up nothing but its own
// URLs. It is the FrontierClient a distributed fetcher's core talks to, over the collection's
// RoutedFrontierClient:
//
// - AddUrls routes the URLs (Route: the popular-URL cache, owners). The home partition's share
//   is sent at once, as before: the completions that follow go to the same partition. Each other
//   partition's share goes to that partition's courier, a thread of its own that sends it
//   (Deliver), so the partitions are called side by side and none waits on another. AddUrls
//   returns once every share is *durable*: taken by its partition, or kept on disk in the
//   partition's OutlinkSpool (outlink_spool.h) and synced. A share not taken within
//   `handoff_wait`, or whose call failed, is kept on disk; its partition is then "unreachable",
//   and what comes for it later is kept on disk at once, without a call, until its courier has
//   delivered everything kept (trying again after a back-off from retry.initial doubling to
//   retry.max) -- so the fetcher's completions are never sent before the outlinks their pages
//   produced are safe (FrontierLink's ordering invariant), and a page's outlinks survive a
//   crash of the fetcher while their partition is away.
// - Everything else (Lease, Complete, ReleaseLeases, ReportHostTimes, Stats, ...) is the
//   router's. IsExhausted is false while anything is kept for a partition (it will make work).
// - Bounded: each partition's disk spool holds at most `max_spool_bytes`; past that, AddUrls
//   fails with kUnavailable (a retryable error: the fetcher's FrontierLink keeps its batch and
//   waits, as for its own partition's outage). Memory holds the shares in flight and one spool
//   segment per partition being delivered.
// - Logged once per outage and once at its end (`log`), with what was kept and delivered.
// - What a previous process kept (a crash or a stop during an outage) is delivered first.
// - A reshard (docs/architecture.md §4): URLs kept for a partition that refuses them as another
//   partition's (FAILED_PRECONDITION), or for a partition beyond the routing count (also a spool
//   an earlier process kept for a partition the router no longer has), are routed again by the
//   current count instead of being retried where they no longer belong.
//
// Thread-safety: thread-safe; AddUrls is meant for one caller at a time (the fetcher's frontier
// I/O thread), the rest for any. The router and clock must outlive the outbox; the destructor
// waits for the couriers' calls in progress (each bounded by the client's deadline).
#ifndef CRAWLER_SERVICES_FETCHER_OUTLINK_OUTBOX_H_
#define CRAWLER_SERVICES_FETCHER_OUTLINK_OUTBOX_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "services/common/retry/backoff.h"
#include "services/fetcher/outlink_spool.h"
#include "services/frontier/frontier_client.h"
#include "services/frontier/routed_frontier_client.h"

namespace crawler::fetcher {

struct OutlinkOutboxOptions {
  // Where the spools live: <dir>/p<partition>/. Required.
  std::string dir;
  // How long AddUrls waits for a reachable partition to take its share before keeping it on
  // disk. Short enough that a frozen partition costs the fetcher's own hand-over this once,
  // long enough for a loaded frontier's normal answer.
  absl::Duration handoff_wait = absl::Milliseconds(500);
  // Most bytes kept on disk per partition (about 100 bytes a URL: 1 GiB is ~10 million URLs).
  uint64_t max_spool_bytes = uint64_t{1} << 30;
  // URLs per delivery of kept URLs.
  size_t delivery_batch = 512;
  // The couriers' back-off between attempts at an unreachable partition.
  retry::BackoffOptions retry{.initial = absl::Milliseconds(200), .max = absl::Seconds(5)};
};

// What the outbox holds and has done, summed over its partitions.
struct OutboxStats {
  uint64_t held_urls = 0;                // kept on disk now, for partitions not taking them
  uint64_t held_bytes = 0;
  uint32_t partitions_unreachable = 0;   // now
  uint64_t urls_kept = 0;                // ever kept on disk
  uint64_t urls_delivered_late = 0;      // of those, delivered when their partition answered
  uint64_t outages = 0;                  // partitions becoming unreachable
};

class OutlinkOutbox final : public frontier::FrontierClient {
 public:
  // Opens a spool per partition other than the router's home (delivering what earlier processes
  // kept there) and starts their couriers. `log` hears the outage and recovery lines.
  // kInvalidArgument for bad options; a spool's error otherwise.
  static absl::StatusOr<std::unique_ptr<OutlinkOutbox>> Create(
      const OutlinkOutboxOptions& options, frontier::RoutedFrontierClient& router,
      const Clock& clock, Logger log = {});
  ~OutlinkOutbox() override;

  absl::StatusOr<frontier::AddResult> AddUrls(const std::vector<frontier::UrlToAdd>& urls) override;
  absl::StatusOr<std::vector<frontier::LeasedTask>> Lease(size_t max_urls,
                                                          size_t max_per_host) override {
    return router_.Lease(max_urls, max_per_host);
  }
  absl::StatusOr<frontier::CompleteResult> Complete(
      const std::vector<frontier::FetchOutcome>& outcomes) override {
    return router_.Complete(outcomes);
  }
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<frontier::LeaseId>& ids) override {
    return router_.ReleaseLeases(ids);
  }
  absl::StatusOr<frontier::FetcherControlTable> HostControls(uint64_t known_version) override {
    return router_.HostControls(known_version);
  }
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<frontier::HostTime>& times) override {
    return router_.ReportHostTimes(times);
  }
  absl::StatusOr<bool> IsExhausted() override;
  absl::StatusOr<frontier::FrontierStats> Stats() override { return router_.Stats(); }
  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> LookupUrls(
      const std::vector<std::string>& canonical_urls) override {
    return router_.LookupUrls(canonical_urls);
  }
  absl::StatusOr<frontier::RevisitStatus> GetRevisitStatus() override {
    return router_.GetRevisitStatus();
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override {
    return router_.RetuneRevisits(fleet);
  }

  OutboxStats Outbox() const;

 private:
  struct Lane;
  OutlinkOutbox(const OutlinkOutboxOptions& options, frontier::RoutedFrontierClient& router,
                const Clock& clock, Logger log);

  void Courier(Lane& lane);
  // Keeps the lane's shares not yet taken on disk, and marks the lane unreachable.
  absl::Status SpillLocked(Lane& lane, const absl::Status& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Delivers kept URLs until the spool is empty or a call fails; with the lock released for
  // the calls. A batch its partition refuses as another's (a reshard), or kept for a partition
  // beyond the routing count, is routed again (RerouteLocked).
  void DrainSpool(Lane& lane) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Routes `batch`, kept for `from`, by the router's current count: the home partition's share
  // is delivered at once, the others (`from`'s own included) appended to their lanes' spools.
  // False (nothing to consume) while the router routes all of it to `from`, or a step failed.
  bool RerouteLocked(Lane& from, const std::vector<frontier::UrlToAdd>& batch,
                     const absl::Status& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const OutlinkOutboxOptions options_;
  frontier::RoutedFrontierClient& router_;
  const Clock& clock_;
  const Logger log_;

  mutable absl::Mutex mu_;
  // One per partition but home, then one per spool of a partition beyond the router's (only
  // routed again); fixed after Create.
  std::vector<std::unique_ptr<Lane>> lanes_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t urls_kept_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t urls_delivered_late_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t outages_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> couriers_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_OUTLINK_OUTBOX_H_
