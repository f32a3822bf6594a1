#include "services/fetcher/frontier_link.h"

#include <pthread.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler::fetcher {
namespace {

// Moves the elements of `from` to the end of `to`, leaving `from` empty; a swap (no element
// moved) when `to` is empty, as it is on most hand-overs.
template <typename T>
void MoveAppend(std::vector<T>& from, std::vector<T>& to) {
  if (from.empty()) return;
  if (to.empty()) {
    to.swap(from);
    return;
  }
  for (T& item : from) to.push_back(std::move(item));
  from.clear();
}

}  // namespace

FrontierLink::FrontierLink(const FrontierLinkOptions& options, frontier::FrontierClient& frontier,
                           const Clock& clock, FetcherCounters& counters,
                           std::function<void()> wake,
                           std::function<absl::Status()> make_durable)
    : options_(options),
      frontier_(frontier),
      clock_(clock),
      counters_(counters),
      wake_(std::move(wake)),
      make_durable_(std::move(make_durable)),
      backoff_(options.retry) {}

FrontierLink::~FrontierLink() {
  if (thread_.joinable()) Finish().IgnoreError();
}

void FrontierLink::Start() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "fetch-frontier");
    Loop();
  });
}

void FrontierBatch::Append(FrontierBatch& later) {
  MoveAppend(later.adds, adds);
  MoveAppend(later.outcomes, outcomes);
  MoveAppend(later.host_times, host_times);
  MoveAppend(later.releases, releases);
}

std::vector<frontier::FetcherHostControl> HostControlTable::DroppedSince(
    const HostControlTable& next) const {
  std::vector<frontier::FetcherHostControl> dropped;
  for (const auto& [key, control] : next.hosts) {
    if (control.dropped_at == absl::InfinitePast()) continue;
    const frontier::FetcherHostControl* before = Find(key);
    if (before == nullptr || before->dropped_at < control.dropped_at) dropped.push_back(control);
  }
  return dropped;
}

std::shared_ptr<const HostControlTable> FrontierLink::Controls() {
  absl::MutexLock lock(&mu_);
  return controls_;
}

void FrontierLink::PollControls() {
  uint64_t known = 0;
  {
    absl::MutexLock lock(&mu_);
    known = controls_->version;
  }
  absl::StatusOr<frontier::FetcherControlTable> got = frontier_.HostControls(known);
  absl::MutexLock lock(&mu_);
  controls_not_before_ = clock_.MonotonicNow() + options_.controls_interval;
  if (!got.ok() || got->unchanged) return;
  auto next = std::make_shared<HostControlTable>();
  next->version = got->version;
  for (frontier::FetcherHostControl& h : got->hosts) {
    std::string key = h.host_key;
    next->hosts.emplace(std::move(key), std::move(h));
  }
  const std::vector<frontier::FetcherHostControl> dropped = controls_->DroppedSince(*next);
  if (!dropped.empty()) {
    // The frontier voided these leases with the drop: they are neither fetched nor completed.
    // Leases it gave since, of URLs found after the drop, are kept.
    std::erase_if(leased_, [&](const LeasedUrl& t) {
      const bool gone = std::any_of(dropped.begin(), dropped.end(), [&](const auto& c) {
        return c.host_key == t.lease.host_key && c.Voided(t.lease.lease_id);
      });
      if (gone) counters_.Add(&FetcherStats::abandoned);
      return gone;
    });
  }
  controls_ = std::move(next);
}

absl::Status FrontierLink::Hand(FrontierBatch& batch, bool force) {
  absl::MutexLock lock(&mu_);
  unsent_.Append(batch);
  // Only what is pending can be sent at once: a flag left standing with nothing to send would
  // keep the I/O thread from ever sleeping.
  if (force && !unsent_.empty()) flush_now_ = true;
  return fatal_;
}

std::vector<LeasedUrl> FrontierLink::Take(size_t held, bool stopping) {
  std::vector<LeasedUrl> leased;
  absl::MutexLock lock(&mu_);
  leased.swap(leased_);
  held += leased.size();
  // Lease once a whole batch fits (or half the buffer, when that is smaller): the buffer stays
  // within a batch of full, so many polite hosts that each take a URL only every delay keep
  // their next URLs here, and each call still brings a full batch.
  const size_t room = held < options_.max_buffered_tasks ? options_.max_buffered_tasks - held : 0;
  lease_wanted_ =
      stopping || room < std::min(options_.lease_batch, options_.max_buffered_tasks / 2) ? 0
                                                                                          : room;
  return leased;
}

bool FrontierLink::Idle() {
  absl::MutexLock lock(&mu_);
  return !busy_ && unsent_.empty() && leased_.empty();
}

void FrontierLink::Reconfirm() {
  absl::MutexLock lock(&mu_);
  confirm_from_ = calls_begun_ + 1;
}

bool FrontierLink::Confirmed() {
  absl::MutexLock lock(&mu_);
  return confirm_from_ == 0;
}

bool FrontierLink::Down() {
  absl::MutexLock lock(&mu_);
  return outage_ && !unsent_.empty();
}

void FrontierLink::Failed(const absl::Status& error, absl::Duration now) {
  counters_.FrontierFailed(error, /*new_outage=*/!outage_);
  outage_ = true;
  last_error_ = error;
  if (!retry::IsRetryable(error) && fatal_.ok()) fatal_ = error;
  retry_not_before_ = now + backoff_.Next();
}

void FrontierLink::Succeeded() {
  outage_ = false;
  backoff_.Reset();
}

absl::StatusOr<bool> FrontierLink::IsExhausted() {
  const absl::Duration now = clock_.MonotonicNow();
  {
    absl::MutexLock lock(&mu_);
    if (now < retry_not_before_) return false;  // backing off: ask after the wait
  }
  absl::StatusOr<bool> exhausted = frontier_.IsExhausted();
  absl::MutexLock lock(&mu_);
  if (exhausted.ok()) {
    Succeeded();
    return exhausted;
  }
  Failed(exhausted.status(), now);
  if (!retry::IsRetryable(exhausted.status())) return exhausted.status();
  return false;
}

absl::Status FrontierLink::Finish(const std::vector<frontier::LeaseId>& unstarted) {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
  std::vector<frontier::LeaseId> ids = unstarted;
  bool reachable = false;
  {
    absl::MutexLock lock(&mu_);
    for (const LeasedUrl& t : leased_) ids.push_back(t.lease.lease_id);
    leased_.clear();
    // A frontier that is down or refused us would only add a timeout to the stop: the leases
    // expire there as they would have without the hand-back.
    reachable = fatal_.ok() && unsent_.empty();
  }
  Release(ids, reachable);
  absl::MutexLock lock(&mu_);
  if (!fatal_.ok()) return fatal_;
  if (!unsent_.empty()) {
    return absl::Status(
        last_error_.code(),
        absl::StrCat("stopped while the frontier was unreachable (", last_error_.message(), "): ",
                     unsent_.outcomes.size(), " completions and ", unsent_.adds.size(),
                     " outlinks not sent; those URLs are fetched again when their leases expire"));
  }
  return absl::OkStatus();
}

void FrontierLink::Release(const std::vector<frontier::LeaseId>& ids, bool reachable) {
  if (ids.empty()) return;
  size_t released = 0;
  if (reachable) {
    absl::StatusOr<size_t> result = frontier_.ReleaseLeases(ids);
    if (result.ok()) {
      released = std::min(*result, ids.size());
    } else {
      counters_.FrontierFailed(result.status(), /*new_outage=*/true);
    }
  }
  counters_.Add(&FetcherStats::leases_released, released);
  // The rest are re-queued at lease expiry or by the frontier's next process.
  counters_.Add(&FetcherStats::abandoned, ids.size() - released);
}

absl::Status FrontierLink::Send(FrontierBatch& batch) {
  absl::Status status = absl::OkStatus();
  if (!batch.adds.empty()) {
    status = frontier_.AddUrls(batch.adds).status();
    if (status.ok()) {
      counters_.Add(&FetcherStats::outlinks_sent, batch.adds.size());
      batch.adds.clear();  // durable: not sent again, whatever happens next
    }
  }
  // Only after the outlinks are durable (the ordering invariant above).
  if (status.ok() && !batch.outcomes.empty() && make_durable_) {
    if (absl::Status durable = make_durable_(); !durable.ok()) {
      // Retrying the frontier would not help: the archive is what failed.
      status = absl::FailedPreconditionError(absl::StrCat(
          "the archive cannot be made durable (", durable.message(), ")"));
    }
  }
  if (status.ok() && !batch.outcomes.empty()) {
    status = frontier_.Complete(batch.outcomes).status();
    if (status.ok()) {
      counters_.Add(&FetcherStats::completed, batch.outcomes.size());
      batch.outcomes.clear();
    }
  }
  if (status.ok() && !batch.host_times.empty()) {
    status = frontier_.ReportHostTimes(batch.host_times).status();
    if (!status.ok() && !retry::IsRetryable(status)) {
      // Hints a frontier refuses (kUnimplemented, say) are dropped, not fatal: the
      // politeness claims enforce the wait here either way.
      counters_.FrontierFailed(status, /*new_outage=*/false);
      status = absl::OkStatus();
    }
    if (status.ok()) batch.host_times.clear();
  }
  if (status.ok() && !batch.releases.empty()) {
    status = frontier_.ReleaseLeases(batch.releases).status();
    if (status.ok()) batch.releases.clear();
  }
  return status;
}

absl::Status FrontierLink::LeaseFromFrontier(size_t want, std::vector<LeasedUrl>& leased) {
  absl::StatusOr<std::vector<frontier::LeasedTask>> got =
      frontier_.Lease(std::min(options_.lease_batch, want), options_.lease_max_per_host);
  if (!got.ok()) return got.status();
  counters_.Add(&FetcherStats::leased, got->size());
  leased.reserve(got->size());
  for (frontier::LeasedTask& t : *got) {
    absl::StatusOr<url::Url> parsed = url::Url::Parse(t.canonical_url);
    leased.push_back(LeasedUrl{std::move(t), std::move(parsed)});
  }
  return absl::OkStatus();
}

void FrontierLink::Loop() {
  absl::Duration last_send = clock_.MonotonicNow();
  while (true) {
    FrontierBatch batch;
    size_t want = 0;
    bool probe = false;  // an empty ReleaseLeases, to confirm the collection
    bool poll = false;   // the control table is due
    uint64_t call = 0;
    absl::Duration now;
    {
      absl::MutexLock lock(&mu_);
      auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        if (stop_) return true;
        const absl::Duration t = clock_.MonotonicNow();
        if (t < retry_not_before_ || !fatal_.ok()) return false;
        return flush_now_ || confirm_from_ != 0 || unsent_.size() >= options_.flush_batch ||
               (lease_wanted_ > 0 && t >= lease_not_before_);
      };
      // The timeout makes flush_interval, the lease pause and the retry back-off take effect.
      mu_.AwaitWithTimeout(absl::Condition(&wake), absl::Milliseconds(5));
      now = clock_.MonotonicNow();
      // After a non-retryable error nothing more is tried: it would come back the same way.
      if (!fatal_.ok()) {
        if (stop_) return;
        continue;
      }
      if (!stop_ && now < retry_not_before_) continue;
      const size_t pending = unsent_.size();
      const bool confirming = confirm_from_ != 0;
      if (pending > 0 && (stop_ || flush_now_ || confirming || pending >= options_.flush_batch ||
                          now - last_send >= options_.flush_interval)) {
        std::swap(batch, unsent_);
        flush_now_ = false;
      }
      if (!stop_ && !stopping_ && now >= lease_not_before_) want = lease_wanted_;
      poll = !stop_ && now >= controls_not_before_;
      // A confirmation needs a call the frontier checks the generation of; outlinks alone may
      // stop at the outbox.
      probe = confirming && !stop_ && want == 0 && batch.outcomes.empty();
      if (batch.empty() && want == 0 && !probe && !poll) {
        if (stop_) return;
        continue;
      }
      call = ++calls_begun_;
      busy_ = true;
    }
    absl::Status status = absl::OkStatus();
    const bool completes = !batch.outcomes.empty();
    if (!batch.empty()) {
      last_send = now;
      status = Send(batch);
    }
    // The table before the leases: a lease taken after it is never of a host it shows dropped
    // or blocked at the time (the frontier leases neither).
    if (poll) PollControls();
    std::vector<LeasedUrl> leased;
    if (status.ok() && want > 0) status = LeaseFromFrontier(want, leased);
    if (status.ok() && probe) status = frontier_.ReleaseLeases({}).status();
    bool exit = false;
    {
      absl::MutexLock lock(&mu_);
      busy_ = false;
      // What was not sent goes back ahead of what was handed over meanwhile, in order.
      if (!batch.empty()) {
        batch.Append(unsent_);
        std::swap(unsent_, batch);
      }
      if (!status.ok()) {
        Failed(status, now);
        // Stopping: that was the last attempt; what is left is re-leased later.
        exit = stop_;
      } else {
        Succeeded();
        if (confirm_from_ != 0 && call >= confirm_from_ &&
            (want > 0 || probe || completes)) {
          confirm_from_ = 0;
        }
        if (want > 0) {
          if (leased.empty()) {
            // Nothing ready: ask again soon, not in a tight loop.
            lease_not_before_ = now + options_.lease_pause_empty;
          } else {
            // Fewer than there was room for: the ready hosts are used up for now.
            if (leased.size() < std::min(options_.lease_batch, want)) {
              lease_not_before_ = now + options_.lease_pause_partial;
            }
            lease_wanted_ -= std::min(lease_wanted_, leased.size());
            for (LeasedUrl& t : leased) leased_.push_back(std::move(t));
          }
        }
      }
    }
    // The loop takes the leased tasks, sees the error, or (everything sent) may find the crawl
    // finished.
    wake_();
    if (exit) return;
  }
}

}  // namespace crawler::fetcher
