#include "services/fetcher/outlink_outbox.h"

#include <pthread.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace crawler::fetcher {

struct OutlinkOutbox::Lane {
  // One hand-over's URLs for this partition.
  struct Share {
    uint64_t sequence = 0;
    std::vector<frontier::UrlToAdd> urls;
  };

  Lane(uint32_t k, std::unique_ptr<OutlinkSpool> kept, const retry::BackoffOptions& retry)
      : partition(k), spool(std::move(kept)), backoff(retry, k + 1) {}

  bool Holds() const { return !queued.empty() || sending.has_value() || !spool->empty(); }

  const uint32_t partition;
  // Guarded by the outbox's mu_.
  std::unique_ptr<OutlinkSpool> spool;
  std::deque<Share> queued;     // handed over, waiting for the courier (empty while unreachable)
  std::optional<Share> sending;  // the courier's call in progress
  uint64_t posted = 0;           // the last share's sequence
  uint64_t settled = 0;          // every share up to it is taken or on disk
  bool unreachable = false;
  absl::Duration retry_at = absl::ZeroDuration();  // monotonic; no delivery of kept URLs before
  retry::Backoff backoff;
  absl::Time outage_start;
  uint64_t kept_this_outage = 0;
  bool rerouting_logged = false;
};

OutlinkOutbox::OutlinkOutbox(const OutlinkOutboxOptions& options,
                             frontier::RoutedFrontierClient& router, const Clock& clock,
                             Logger log)
    : options_(options), router_(router), clock_(clock), log_(std::move(log)) {}

absl::StatusOr<std::unique_ptr<OutlinkOutbox>> OutlinkOutbox::Create(
    const OutlinkOutboxOptions& options, frontier::RoutedFrontierClient& router,
    const Clock& clock, Logger log) {
  if (options.dir.empty()) return absl::InvalidArgumentError("outbox: dir is required");
  if (options.handoff_wait <= absl::ZeroDuration() || options.delivery_batch == 0) {
    return absl::InvalidArgumentError("outbox: handoff_wait and delivery_batch must be > 0");
  }
  std::unique_ptr<OutlinkOutbox> outbox(new OutlinkOutbox(options, router, clock, std::move(log)));
  for (uint32_t k = 0; k < router.partition_count(); ++k) {
    if (k == router.home()) continue;
    absl::StatusOr<std::unique_ptr<OutlinkSpool>> spool = OutlinkSpool::Open(
        (std::filesystem::path(options.dir) / absl::StrCat("p", k)).string(),
        options.max_spool_bytes);
    if (!spool.ok()) return spool.status();
    if (!(*spool)->empty()) {
      outbox->log_.Info((*spool)->urls(), " outlinks kept for frontier partition ", k,
                        " by an earlier run: delivering them");
    }
    outbox->lanes_.push_back(std::make_unique<Lane>(k, *std::move(spool), options.retry));
  }
  // Spools of partitions the router no longer has (a reshard to fewer partitions, or a layout
  // change while this fetcher was down): their URLs are routed again by the current layout.
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(options.dir, error)) {
    const std::string name = entry.path().filename().string();
    uint32_t k = 0;
    if (name.size() < 2 || name[0] != 'p' || !absl::SimpleAtoi(name.substr(1), &k) ||
        k < router.partition_count() || !entry.is_directory()) {
      continue;
    }
    absl::StatusOr<std::unique_ptr<OutlinkSpool>> spool =
        OutlinkSpool::Open(entry.path().string(), options.max_spool_bytes);
    if (!spool.ok()) return spool.status();
    if ((*spool)->empty()) continue;
    outbox->log_.Info((*spool)->urls(), " outlinks kept for frontier partition ", k,
                      ", which the partition layout no longer has: routing them again");
    outbox->lanes_.push_back(std::make_unique<Lane>(k, *std::move(spool), options.retry));
  }
  for (const std::unique_ptr<Lane>& lane : outbox->lanes_) {
    Lane* l = lane.get();
    OutlinkOutbox* o = outbox.get();
    outbox->couriers_.emplace_back([o, l] {
      const std::string name = absl::StrCat("outbox-", l->partition).substr(0, 15);
      pthread_setname_np(pthread_self(), name.c_str());
      o->Courier(*l);
    });
  }
  return outbox;
}

OutlinkOutbox::~OutlinkOutbox() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& courier : couriers_) courier.join();
}

absl::StatusOr<frontier::AddResult> OutlinkOutbox::AddUrls(
    const std::vector<frontier::UrlToAdd>& urls) {
  frontier::AddResult result;
  std::vector<std::vector<frontier::UrlToAdd>> shares = router_.Route(urls, result);
  const uint32_t home = router_.home();
  // The home partition's share first: if it fails nothing else was handed over, and the caller
  // sends the whole batch again later.
  if (!shares[home].empty()) {
    absl::StatusOr<frontier::AddResult> added = router_.Deliver(home, std::move(shares[home]));
    if (!added.ok()) return added.status();
    result += *added;
  }
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<Lane*, uint64_t>> waiting;
  for (const std::unique_ptr<Lane>& lane : lanes_) {
    if (lane->partition >= shares.size()) continue;  // a spool only routed again
    std::vector<frontier::UrlToAdd>& share = shares[lane->partition];
    if (share.empty()) continue;
    if (!lane->unreachable) {
      lane->queued.push_back({.sequence = ++lane->posted, .urls = std::move(share)});
      waiting.emplace_back(lane.get(), lane->posted);
      continue;
    }
    // Unreachable: kept on disk without a call, behind what is kept already.
    const size_t n = share.size();
    absl::Status kept = lane->spool->Append(share);
    if (kept.ok()) kept = lane->spool->Sync();
    if (!kept.ok()) {
      return absl::UnavailableError(absl::StrCat(
          "frontier partition ", lane->partition,
          " is unreachable and its outlinks cannot be kept: ", kept.message()));
    }
    urls_kept_ += n;
    lane->kept_this_outage += n;
  }
  if (waiting.empty()) return result;
  auto settled = [&waiting]() {
    for (const auto& [lane, sequence] : waiting) {
      if (lane->settled < sequence) return false;
    }
    return true;
  };
  mu_.AwaitWithTimeout(absl::Condition(&settled), options_.handoff_wait);
  for (const auto& [lane, sequence] : waiting) {
    if (lane->settled >= sequence) continue;
    absl::Status spilled = SpillLocked(
        *lane, absl::DeadlineExceededError(absl::StrCat(
                   "no answer within ", absl::FormatDuration(options_.handoff_wait))));
    if (!spilled.ok()) return spilled;
  }
  return result;
}

absl::Status OutlinkOutbox::SpillLocked(Lane& lane, const absl::Status& why) {
  std::vector<frontier::UrlToAdd> keep;
  if (lane.sending.has_value() && lane.sending->sequence > lane.settled) {
    // Its call may still succeed: then the partition gets these URLs twice, and counts the
    // second time as seen.
    keep = lane.sending->urls;
  }
  for (Lane::Share& share : lane.queued) {
    for (frontier::UrlToAdd& url : share.urls) keep.push_back(std::move(url));
  }
  lane.queued.clear();
  absl::Status kept = lane.spool->Append(keep);
  if (kept.ok()) kept = lane.spool->Sync();
  if (!kept.ok()) {
    return absl::UnavailableError(absl::StrCat("frontier partition ", lane.partition,
                                               " did not take its outlinks (", why.message(),
                                               ") and they cannot be kept: ", kept.message()));
  }
  lane.settled = lane.posted;
  urls_kept_ += keep.size();
  if (!lane.unreachable) {
    lane.unreachable = true;
    ++outages_;
    lane.outage_start = clock_.Now();
    lane.kept_this_outage = 0;
    lane.retry_at = clock_.MonotonicNow() + lane.backoff.Next();
    log_.Warning("frontier partition ", lane.partition, " unreachable (", why.ToString(),
                 "); keeping its outlinks on disk until it answers, crawling on");
  }
  lane.kept_this_outage += keep.size();
  return absl::OkStatus();
}

void OutlinkOutbox::DrainSpool(Lane& lane) {
  while (!stop_) {
    absl::StatusOr<std::vector<frontier::UrlToAdd>> batch =
        lane.spool->Peek(options_.delivery_batch);
    if (!batch.ok()) {
      // A segment that cannot be read was set aside; its URLs are found again as links.
      log_.Error(batch.status().message());
      continue;
    }
    if (batch->empty()) break;
    absl::StatusOr<frontier::AddResult> delivered =
        absl::FailedPreconditionError("the partition is outside the routing count");
    if (lane.partition < router_.routing_count()) {
      mu_.Unlock();
      delivered = router_.Deliver(lane.partition, *batch);
      mu_.Lock();
    }
    if (absl::IsFailedPrecondition(delivered.status()) && RerouteLocked(lane, *batch, delivered.status())) {
      if (absl::Status s = lane.spool->Consume(batch->size()); !s.ok()) log_.Error(s.message());
      lane.backoff.Reset();
      continue;
    }
    if (!delivered.ok()) {
      lane.retry_at = clock_.MonotonicNow() + lane.backoff.Next();
      if (!lane.unreachable) {
        // Kept by an earlier run, and the partition does not answer yet.
        lane.unreachable = true;
        ++outages_;
        lane.outage_start = clock_.Now();
        lane.kept_this_outage = 0;
        log_.Warning("frontier partition ", lane.partition, " unreachable (",
                     delivered.status().ToString(),
                     "); keeping its outlinks on disk until it answers, crawling on");
      }
      return;
    }
    if (absl::Status s = lane.spool->Consume(batch->size()); !s.ok()) log_.Error(s.message());
    urls_delivered_late_ += batch->size();
    lane.backoff.Reset();
  }
  if (!stop_ && lane.unreachable && lane.spool->empty()) {
    lane.unreachable = false;
    log_.Info("frontier partition ", lane.partition, " answers again after ",
              absl::FormatDuration(
                  absl::Trunc(clock_.Now() - lane.outage_start, absl::Milliseconds(100))),
              ": ", lane.kept_this_outage, " outlinks kept meanwhile delivered");
  }
}

bool OutlinkOutbox::RerouteLocked(Lane& from, const std::vector<frontier::UrlToAdd>& batch,
                                  const absl::Status& why) {
  frontier::AddResult ignored;
  std::vector<std::vector<frontier::UrlToAdd>> shares = router_.Route(batch, ignored);
  size_t elsewhere = 0;
  for (uint32_t k = 0; k < shares.size(); ++k) {
    if (k != from.partition) elsewhere += shares[k].size();
  }
  // The router sends all of them where they were refused: its layout is older than the
  // partition's (the fetcher hears of the new one within a report). Kept until then.
  if (elsewhere == 0 && from.partition < shares.size() && !shares[from.partition].empty()) {
    return false;
  }
  if (!from.rerouting_logged) {
    from.rerouting_logged = true;
    log_.Info("outlinks kept for frontier partition ", from.partition,
              " belong to other partitions now (", why.message(), "): routing them again by ",
              router_.routing_count(), " partitions");
  }
  const uint32_t home = router_.home();
  if (home < shares.size() && !shares[home].empty()) {
    mu_.Unlock();
    absl::StatusOr<frontier::AddResult> added = router_.Deliver(home, std::move(shares[home]));
    mu_.Lock();
    if (!added.ok()) return false;
  }
  for (const std::unique_ptr<Lane>& lane : lanes_) {
    if (lane->partition >= shares.size()) continue;
    std::vector<frontier::UrlToAdd>& share = shares[lane->partition];
    if (share.empty()) continue;
    // Behind what the lane keeps (for `from` itself: the URLs still its own, which the
    // partition takes once the others are no longer in the batch); its courier delivers them
    // (or keeps them through an outage).
    absl::Status kept = lane->spool->Append(share);
    if (kept.ok()) kept = lane->spool->Sync();
    if (!kept.ok()) {
      log_.Error("outlinks routed again for frontier partition ", lane->partition,
                 " cannot be kept: ", kept.message());
      return false;
    }
  }
  return true;
}

void OutlinkOutbox::Courier(Lane& lane) {
  absl::MutexLock lock(&mu_);
  while (true) {
    auto work = [this, &lane]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      if (stop_) return true;
      if (!lane.unreachable && !lane.queued.empty()) return true;
      return (lane.unreachable || !lane.spool->empty()) &&
             clock_.MonotonicNow() >= lane.retry_at;
    };
    // The timeout makes the back-off take effect (the condition reads the clock).
    mu_.AwaitWithTimeout(absl::Condition(&work), absl::Milliseconds(20));
    if (stop_) return;
    if (!lane.unreachable && !lane.queued.empty()) {
      lane.sending = std::move(lane.queued.front());
      lane.queued.pop_front();
      const std::vector<frontier::UrlToAdd> urls = lane.sending->urls;
      mu_.Unlock();
      absl::StatusOr<frontier::AddResult> delivered = router_.Deliver(lane.partition, urls);
      mu_.Lock();
      Lane::Share done = std::move(*lane.sending);
      lane.sending.reset();
      if (delivered.ok()) {
        lane.settled = std::max(lane.settled, done.sequence);
        lane.backoff.Reset();
        continue;
      }
      // Not taken: this share and those behind it go to disk now (the hand-over waiting for
      // them need not wait out handoff_wait), unless that happened meanwhile.
      if (done.sequence > lane.settled) lane.queued.push_front(std::move(done));
      if (absl::Status s = SpillLocked(lane, delivered.status()); !s.ok()) {
        log_.Error(s.message());
      }
      continue;
    }
    if ((lane.unreachable || !lane.spool->empty()) && clock_.MonotonicNow() >= lane.retry_at) {
      DrainSpool(lane);
    }
  }
}

absl::StatusOr<bool> OutlinkOutbox::IsExhausted() {
  {
    absl::MutexLock lock(&mu_);
    for (const std::unique_ptr<Lane>& lane : lanes_) {
      if (lane->Holds()) return false;
    }
  }
  return router_.IsExhausted();
}

OutboxStats OutlinkOutbox::Outbox() const {
  OutboxStats out;
  absl::MutexLock lock(&mu_);
  for (const std::unique_ptr<Lane>& lane : lanes_) {
    out.held_urls += lane->spool->urls();
    out.held_bytes += lane->spool->bytes();
    if (lane->unreachable) ++out.partitions_unreachable;
  }
  out.urls_kept = urls_kept_;
  out.urls_delivered_late = urls_delivered_late_;
  out.outages = outages_;
  return out;
}

}  // namespace crawler::fetcher
