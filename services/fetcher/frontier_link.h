// FrontierLink: the fetcher's only traffic with the frontier. One I/O thread makes every call
// (AddUrls, Complete, Lease), so the network loop never waits on the frontier's storage (or,
// distributed, an RPC) while requests are due. The loop hands over completions and outlinks
// (Hand) and takes leased URLs, already parsed (Take); both are a swap under one mutex.
//
// Batching: what was handed over is sent when `flush_batch` items are pending, when
// `flush_interval` has passed since the last send, or at once when the loop forces it (nothing
// else is coming). Leases are asked for while the loop has room.
//
// Ordering invariant: outlinks are sent, and durable, before the completions of the same
// hand-over (distributed: taken by their partition, or kept on disk for it by the
// OutlinkOutbox when that partition does not answer, outlink_outbox.h). A completion must never
// be durable while the links its page produced are not (a crash in between would lose them:
// the page is never fetched again).
//
// Durable archive: before each Complete call the link calls `make_durable` (when given; the
// fetcher passes its WARC writer's Sync), so the records of the pages it marks done are on
// disk first -- one fsync per batch of completions, not per record. Its failure is fatal (the
// pages stay leased and are fetched again later).
//
// Host times (ReportHostTimes) go after the completions; they are hints, retried like the rest
// through an outage, and dropped (counted, not fatal) when the frontier refuses them otherwise.
//
// A failing frontier: a call that fails with a retryable code (retry::IsRetryable) changes
// nothing here but time: what was not sent is kept, in order, ahead of what comes later, and
// the link tries again after a back-off (retry::Backoff over `retry`), not in a tight loop.
// Every failed call is counted (FetcherStats::frontier_errors, frontier_last_error) and each
// outage once (frontier_outages); the first success ends the outage. A non-retryable error is
// fatal: Hand returns it, and the fetcher stops. IsExhausted failing retryably means "not
// exhausted; ask again later".
//
// Confirmation after a stall (Reconfirm, Confirmed): a fetcher whose process was stopped or
// starved (SIGSTOP, a frozen VM) holds leases its frontier may no longer honour: their collection
// may have been deleted, or deleted and created again under its name, meanwhile. The loop then
// asks for a confirmation and starts no request until the link has an answer from a call that
// began after the request: a Lease or Complete, or, when nothing else is due, an empty
// ReleaseLeases (the cheapest call the frontier checks the collection's generation of). A
// refusal is fatal as usual and the fetcher stops without fetching for a collection that is
// gone. Outlinks do not confirm: with an OutlinkOutbox they may only have reached the disk.
//
// Host control: every controls_interval the I/O thread asks the frontier for its control table
// (FrontierClient::HostControls, cheap while unchanged) and keeps it for the loop (Controls):
// hosts blocked, with an operator's delay, or dropped lately. When a host's queue was dropped
// since the previous table, the leases of it not yet taken are discarded here (the frontier
// voided them; what the loop holds, the loop discards). A failed poll keeps the table and is
// tried again at the next interval; it is not an outage.
//
// Stopping (Finish): one last attempt sends what is pending, then the thread exits. If the
// frontier is still down, Finish returns its error; the completions not sent are not lost for
// good: their leases expire and the frontier re-queues those URLs (they are fetched again), and
// their outlinks are found again then. Leases not started (the loop's and those never taken)
// are then handed back in one best-effort ReleaseLeases call, so their URLs are leased again at
// once rather than at lease expiry; counted as released, or as abandoned when the call fails
// or the frontier had already let them go.
//
// Threading: Start, Hand, Take, Idle, Down, IsExhausted and Finish are for the loop thread;
// Stopping may be called from any thread. The frontier client (thread-safe) and the clock must
// outlive the link.
#ifndef CRAWLER_SERVICES_FETCHER_FRONTIER_LINK_H_
#define CRAWLER_SERVICES_FETCHER_FRONTIER_LINK_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/url/url.h"
#include "services/common/retry/backoff.h"
#include "services/fetcher/fetcher_stats.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/frontier_client.h"
#include "services/frontier/host_api.h"

namespace crawler::fetcher {

// A lease as the I/O thread hands it over: its URL already parsed there, off the network thread.
struct LeasedUrl {
  frontier::LeasedTask lease;
  absl::StatusOr<url::Url> url;
};

// What the fetcher has to tell the frontier, in the order it is sent: outlinks, completions,
// host times (hosts to lease nothing of before a time, e.g. after a Retry-After), leases handed
// back unstarted (a host the operator blocked).
struct FrontierBatch {
  std::vector<frontier::UrlToAdd> adds;
  std::vector<frontier::FetchOutcome> outcomes;
  std::vector<frontier::HostTime> host_times;
  std::vector<frontier::LeaseId> releases;

  bool empty() const {
    return adds.empty() && outcomes.empty() && host_times.empty() && releases.empty();
  }
  size_t size() const {
    return adds.size() + outcomes.size() + host_times.size() + releases.size();
  }
  // Moves everything of `later` behind what this batch holds, leaving `later` empty.
  void Append(FrontierBatch& later);
};

// The frontier's control table as the fetcher holds it (FrontierLink::Controls).
struct HostControlTable {
  uint64_t version = 0;  // 0: none received yet
  absl::flat_hash_map<std::string, frontier::FetcherHostControl> hosts;

  // The host's controls, or null.
  const frontier::FetcherHostControl* Find(const std::string& host_key) const {
    auto it = hosts.find(host_key);
    return it == hosts.end() ? nullptr : &it->second;
  }
  // The controls in `next` of the hosts whose queue was dropped after what this table says
  // (FetcherHostControl::Voided tells which of the leases held they voided).
  std::vector<frontier::FetcherHostControl> DroppedSince(const HostControlTable& next) const;
};

struct FrontierLinkOptions {
  size_t lease_batch = 512;          // FetcherOptions::lease_batch
  size_t lease_max_per_host = 4;     // FetcherOptions::lease_max_per_host
  size_t max_buffered_tasks = 4096;  // FetcherOptions::max_buffered_tasks
  size_t flush_batch = 512;          // FetcherOptions::flush_batch
  absl::Duration flush_interval = absl::Milliseconds(50);
  absl::Duration lease_pause_empty = absl::Milliseconds(20);  // FetcherOptions::lease_pause_empty
  absl::Duration lease_pause_partial = absl::ZeroDuration();   // FetcherOptions::lease_pause_partial
  retry::BackoffOptions retry;       // FetcherOptions::frontier_retry
  // Between two polls of the frontier's control table: how long a block or drop may take to
  // reach this fetcher (a request already started still ends).
  absl::Duration controls_interval = absl::Milliseconds(250);
};

class FrontierLink {
 public:
  // `wake` is called (from the I/O thread) after each exchange with the frontier, so the loop
  // takes leases, sees an error, or finds the crawl finished.
  // `make_durable`: see "Durable archive" above; empty: nothing to make durable.
  FrontierLink(const FrontierLinkOptions& options, frontier::FrontierClient& frontier,
               const Clock& clock, FetcherCounters& counters, std::function<void()> wake,
               std::function<absl::Status()> make_durable = nullptr);
  ~FrontierLink();  // Finish()es if still running.

  void Start();

  // Takes `batch` (left empty) to be sent; `force`: send without waiting for a fuller batch.
  // Returns the fatal (non-retryable) frontier error, if one happened.
  absl::Status Hand(FrontierBatch& batch, bool force);

  // The leased URLs not yet taken. `held`: tasks the loop holds; leasing continues, up to
  // max_buffered_tasks, while a lease_batch (or half of max_buffered_tasks, if smaller) still
  // fits. `stopping`: lease nothing more.
  std::vector<LeasedUrl> Take(size_t held, bool stopping);

  // Nothing on its way to or from the frontier.
  bool Idle();
  // The frontier's last answer was a retryable error and something waits to be sent.
  bool Down();

  // Frontier::IsExhausted through the link: a retryable error (or a call during a back-off)
  // answers false; a non-retryable error is returned.
  absl::StatusOr<bool> IsExhausted();

  // Asks for a confirmation (above): Confirmed() is false until a Lease, Complete or probe call
  // that begins after this one succeeds.
  void Reconfirm();
  bool Confirmed();

  // The latest control table (never null; empty until the first answer).
  std::shared_ptr<const HostControlTable> Controls();

  // Lease nothing more (the fetcher is stopping). Thread-safe.
  void Stopping() { stopping_ = true; }

  // One last attempt at what is pending, then the I/O thread exits; then hands back `unstarted`
  // (leases the loop dropped) and the leases never taken, unless the frontier is down or a
  // fatal error happened. Returns the fatal error, or the frontier's error if something could
  // not be sent; OK otherwise (a failed hand-back is counted, not returned).
  absl::Status Finish(const std::vector<frontier::LeaseId>& unstarted = {});

 private:
  void Loop();
  // One batch to the frontier, in the order the ordering invariant needs: outlinks, then (the
  // archive made durable) completions, then host times. What was sent is cleared from `batch`;
  // returns the first error (refused host-time hints are counted and dropped).
  absl::Status Send(FrontierBatch& batch);
  // Polls the control table; installs a changed one, discarding the leases not yet taken of
  // hosts dropped since the previous.
  void PollControls();
  // Leases up to min(lease_batch, want) URLs into `leased`, each with its URL parsed.
  absl::Status LeaseFromFrontier(size_t want, std::vector<LeasedUrl>& leased);
  // A call failed: counts it, starts or continues the outage, schedules the retry.
  void Failed(const absl::Status& error, absl::Duration now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Succeeded() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Finish's hand-back of the leases not started (after the I/O thread exited); `reachable`:
  // the frontier's last answer was not an error.
  void Release(const std::vector<frontier::LeaseId>& ids, bool reachable);

  const FrontierLinkOptions options_;
  frontier::FrontierClient& frontier_;
  const Clock& clock_;
  FetcherCounters& counters_;
  const std::function<void()> wake_;
  const std::function<absl::Status()> make_durable_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;

  absl::Mutex mu_;
  FrontierBatch unsent_ ABSL_GUARDED_BY(mu_);
  std::vector<LeasedUrl> leased_ ABSL_GUARDED_BY(mu_);  // not yet taken
  size_t lease_wanted_ ABSL_GUARDED_BY(mu_) = 0;  // tasks the loop has room for
  absl::Duration lease_not_before_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  bool busy_ ABSL_GUARDED_BY(mu_) = false;       // a frontier call is in progress
  bool flush_now_ ABSL_GUARDED_BY(mu_) = false;  // send what is pending without waiting
  bool stop_ ABSL_GUARDED_BY(mu_) = false;       // send what is pending, then exit
  // Calls to the frontier begun (numbered from 1), and the first of them whose success confirms
  // (Reconfirm); 0: nothing to confirm.
  uint64_t calls_begun_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t confirm_from_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status fatal_ ABSL_GUARDED_BY(mu_);      // the first non-retryable error
  // The outage: the last call failed (retryably); no call before retry_not_before_.
  bool outage_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
  absl::Duration retry_not_before_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  retry::Backoff backoff_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const HostControlTable> controls_ ABSL_GUARDED_BY(mu_) =
      std::make_shared<const HostControlTable>();
  absl::Duration controls_not_before_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_FRONTIER_LINK_H_
