// Frontier::Lease (docs/architecture.md §3-§5): which ready hosts give URLs, popping their queue
// entries, and the leases. Split from frontier.cc only for size; the class contract is in
// frontier.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_internal.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

using internal::QueuePos;
using internal::SaturatingSub;
using internal::Successor;

absl::StatusOr<std::vector<LeasedTask>> Frontier::Lease(size_t max_urls, size_t max_per_host) {
  absl::MutexLock lock(&mu_);
  if (max_urls == 0 || max_per_host == 0) return std::vector<LeasedTask>();
  if (absl::StatusOr<size_t> expired = ExpireLocked(); !expired.ok()) return expired.status();
  if (absl::Status status = PromoteDueLocked(); !status.ok()) return status;

  const absl::Time now = clock_.Now();
  uint64_t budget = std::min<uint64_t>(max_urls, options_.max_urls_per_lease);
  if (max_pages_total_ != FrontierOptions::kUnlimited) {
    const HostTable::Totals& totals = hosts_.totals();
    budget = std::min(budget, SaturatingSub(max_pages_total_, totals.pages + totals.in_flight));
  }
  const std::vector<Take> plan = PlanLeaseLocked(budget, max_per_host, now);
  std::vector<Popped> popped;
  Staging staging(hosts_);
  kv::WriteBatch batch;
  if (absl::Status status = PopQueuesLocked(plan, now, staging, batch, popped); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::vector<LeasedTask>> tasks =
      TasksLocked(popped, staging, now + options_.lease_duration);
  if (!tasks.ok()) return tasks.status();
  // The queue entry stays where it is, and the host records count it as leased, so a restart
  // finds every URL of a lost lease still queued; with a restore grace a small mark per URL
  // tells the restart which were leased and until when.
  if (popped.empty() && batch.empty()) return tasks;
  const bool mark = options_.restored_lease_grace > absl::ZeroDuration();
  if (!popped.empty()) {
    batch.Put(storage::kMetaFamily, storage::kMetaNextLeaseIdKey,
              storage::EncodeFixed64(next_lease_id_ + popped.size()));
  }
  if (mark) {
    for (size_t i = 0; i < popped.size(); ++i) {
      const Popped& p = popped[i];
      batch.Put(storage::kLeasesFamily, storage::LeaseKey(next_lease_id_ + i),
                storage::EncodeLeaseRecord({.host_id = p.host,
                                            .pos = p.pos,
                                            .flags = p.entry.flags,
                                            .deadline = now + options_.lease_duration,
                                            .url = p.entry.url,
                                            .in_queue = true}));
    }
  }
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) return status;
  RecordLeasesLocked(popped, mark);
  return tasks;
}

std::vector<Frontier::Take> Frontier::PlanLeaseLocked(uint64_t budget, size_t max_per_host,
                                                      absl::Time now) {
  std::vector<Take> plan;
  if (focus_ != nullptr) {
    for (const auto& [host, count] : FocusPlanLocked(budget, max_per_host)) {
      plan.push_back(Take{host, count});
    }
    return plan;  // the loop below is the coverage crawl's order
  }
  const absl::Time ready_until = now + options_.ready_horizon;
  for (const auto& [ready_time, index] : hosts_.ready()) {
    if (budget == 0 || ready_time > ready_until) break;
    const HostState& state = hosts_.state(index);
    const HostControls& controls = hosts_.controls(state);
    // A blocked host waits for the end of its block itself, not for the horizon. A host with
    // the operator's delay is leased one URL at a time, once its previous one completed and the
    // delay since passed (Complete moves its hint), so its requests are at least that far apart.
    if (controls.blocked_until > now) continue;
    const bool delayed = controls.delay > absl::ZeroDuration();
    if (delayed && (state.in_flight > 0 || state.next_allowed > now)) continue;
    const uint64_t count =
        std::min({static_cast<uint64_t>(delayed ? 1 : max_per_host),
                  static_cast<uint64_t>(options_.max_in_flight_per_host - state.in_flight),
                  hosts_.PagesLeft(state), state.queued, budget});
    if (count == 0) continue;
    plan.push_back(Take{index, count});
    budget -= count;
  }
  return plan;
}

absl::Status Frontier::PopQueuesLocked(const std::vector<Take>& plan, absl::Time now,
                                       Staging& staging, kv::WriteBatch& batch,
                                       std::vector<Popped>& popped) {
  if (plan.empty()) return absl::OkStatus();
  // One cursor for every host of the plan: on RocksDB one snapshot and one set of file
  // cursors, each Seek checking the hosts' prefix filters, rather than a new iterator per host
  // (which cost tens of microseconds each with hundreds of hosts per Lease).
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
      store_.NewPrefixIterator(storage::kQueueFamily);
  if (!it.ok()) return it.status();
  for (const Take& take : plan) {
    HostState& state = staging.State(take.host);
    uint64_t taken = 0;
    const std::string host_prefix = storage::QueueHostPrefix(take.host);
    // Pops entries from `begin` up to (not including) `end` (empty: the end of the host's
    // queue) until the take is complete; returns whether the range ran out first.
    auto pop_range = [&](const std::string& begin, const std::string& end)
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::StatusOr<bool> {
      kv::KvIterator& queue = **it;
      queue.SeekWithin(host_prefix, begin);
      for (; queue.Valid() && taken < take.count; queue.Next()) {
        if (!end.empty() && queue.key() >= end) return true;
        absl::StatusOr<storage::QueueKeyParts> key = storage::DecodeQueueKey(queue.key());
        // Out on lease: its entry stays until the completion. Only met after the cursor went
        // back (an expired lease, a promoted retry, a URL that sorts earlier).
        if (key.ok() && leases_.IsLeased(take.host, key->pos)) continue;
        absl::StatusOr<storage::QueueEntry> entry = storage::DecodeQueueValue(queue.value());
        if (!key.ok() || !entry.ok()) {
          batch.Delete(storage::kQueueFamily, queue.key());
          ++counters_.repairs;
          state.queued = SaturatingSub(state.queued, 1);
          continue;
        }
        popped.push_back(Popped{take.host, key->pos, *std::move(entry)});
        state.cursor = Successor(key->pos);
        ++taken;
      }
      if (absl::Status status = queue.status(); !status.ok()) return status;
      return !queue.Valid() || (!end.empty() && queue.key() >= end);
    };
    const QueuePos cursor = state.cursor;
    absl::StatusOr<bool> exhausted = pop_range(storage::QueueKey(take.host, cursor), "");
    if (!exhausted.ok()) return exhausted.status();
    if (*exhausted && taken < take.count && cursor != QueuePos{}) {
      // The cursor should be a lower bound of the host's keys; look below it before believing
      // the queue is shorter than its count.
      const size_t before = taken;
      absl::StatusOr<bool> below =
          pop_range(storage::QueueKey(take.host, QueuePos{}), storage::QueueKey(take.host, cursor));
      if (!below.ok()) return below.status();
      if (taken > before) ++counters_.repairs;
      exhausted = *below;
    }
    if (*exhausted && taken < std::min<uint64_t>(take.count, state.queued)) {
      // Fewer entries than counted: trust the store.
      ++counters_.repairs;
      state.queued = taken;
    }
    state.queued -= taken;
    state.in_flight += static_cast<uint32_t>(taken);
    state.next_allowed = std::max(state.next_allowed, now + hosts_.controls(state).delay);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<LeasedTask>> Frontier::TasksLocked(const std::vector<Popped>& popped,
                                                              const Staging& staging,
                                                              absl::Time deadline) const {
  // Previous outcomes for URLs fetched or attempted before (only those: the first fetch of a
  // URL, the common case, costs no read).
  std::vector<std::string> history_keys;
  std::vector<size_t> history_of;
  for (size_t i = 0; i < popped.size(); ++i) {
    if (popped[i].entry.flags & storage::kQueueFlagHasHistory) {
      history_keys.push_back(popped[i].entry.url);
      history_of.push_back(i);
    }
  }
  std::vector<std::optional<UrlRecord>> history(popped.size());
  if (!history_keys.empty()) {
    absl::StatusOr<std::vector<std::optional<std::string>>> values =
        store_.MultiGet(storage::kUrlsFamily, history_keys);
    if (!values.ok()) return values.status();
    for (size_t j = 0; j < history_keys.size(); ++j) {
      if (!(*values)[j].has_value()) continue;
      absl::StatusOr<UrlRecord> record = storage::DecodeUrlRecord(*(*values)[j]);
      if (record.ok()) history[history_of[j]] = *std::move(record);
    }
  }
  std::vector<LeasedTask> tasks;
  tasks.reserve(popped.size());
  for (size_t i = 0; i < popped.size(); ++i) {
    const Popped& p = popped[i];
    LeasedTask task;
    task.lease_id = next_lease_id_ + i;
    task.canonical_url = p.entry.url;
    task.host_key = staging.KeyOf(p.host);
    task.depth = p.pos.depth;
    task.priority = storage::PriorityOfBand(p.pos.band);
    task.sitemap_level = storage::SitemapLevelOfQueueFlags(p.entry.flags);
    task.deadline = deadline;
    if (const std::optional<UrlRecord>& record = history[i];
        record.has_value() && record->last_outcome.has_value()) {
      task.attempt = record->attempts + 1;
      PreviousFetch previous;
      previous.outcome = *record->last_outcome;
      previous.http_status = record->http_status;
      previous.fetch_time = record->fetch_time;
      previous.etag = record->etag;
      previous.last_modified = record->last_modified;
      previous.content_fingerprint = record->content_fingerprint;
      task.previous = std::move(previous);
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

void Frontier::RecordLeasesLocked(std::vector<Popped>& popped, bool marked) {
  const absl::Duration monotonic_deadline = clock_.MonotonicNow() + options_.lease_duration;
  for (size_t i = 0; i < popped.size(); ++i) {
    Popped& p = popped[i];
    leases_.Add(next_lease_id_ + i, LeaseTable::Lease{.host = p.host,
                                                      .pos = p.pos,
                                                      .url = std::move(p.entry.url),
                                                      .monotonic_deadline = monotonic_deadline,
                                                      .marked = marked});
  }
  next_lease_id_ += popped.size();
  counters_.leases_granted += popped.size();
}

}  // namespace crawler::frontier
