// URLs going back into Frontier's queue: expired and released leases, and re-visits whose time
// has come (docs/architecture.md §4, §7). Split from frontier.cc only for size; the class contract
// is in frontier.h.
#include "services/frontier/frontier.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier_internal.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

using internal::kMaxUrlsPerInternalBatch;
using internal::PosOf;
using internal::QueueFlagsOf;
using internal::QueuePos;
using internal::SaturatingSub;

// ---- expiry and due promotion ------------------------------------------------------------

absl::StatusOr<size_t> Frontier::ExpireLeases() {
  absl::MutexLock lock(&mu_);
  return ExpireLocked();
}

absl::StatusOr<size_t> Frontier::ReleaseLeases(const std::vector<LeaseId>& ids) {
  absl::MutexLock lock(&mu_);
  // Known ids only, each once: a repeated id must not put its URL back twice.
  absl::flat_hash_set<LeaseId> unique;
  std::vector<LeaseId> known;
  for (LeaseId id : ids) {
    if (leases_.Contains(id) && unique.insert(id).second) known.push_back(id);
  }
  size_t total = 0;
  for (size_t begin = 0; begin < known.size(); begin += kMaxUrlsPerInternalBatch) {
    const size_t end = std::min(known.size(), begin + kMaxUrlsPerInternalBatch);
    const std::vector<LeaseId> chunk(known.begin() + begin, known.begin() + end);
    if (absl::Status status = RequeueLeasesLocked(chunk); !status.ok()) return status;
    total += chunk.size();
    counters_.leases_released += chunk.size();
  }
  return total;
}

absl::StatusOr<size_t> Frontier::ExpireLocked() {
  const absl::Duration monotonic_now = clock_.MonotonicNow();
  size_t total = 0;
  for (std::vector<LeaseId> expired = leases_.Expired(monotonic_now, kMaxUrlsPerInternalBatch);
       !expired.empty(); expired = leases_.Expired(monotonic_now, kMaxUrlsPerInternalBatch)) {
    if (absl::Status status = RequeueLeasesLocked(expired); !status.ok()) return status;
    total += expired.size();
    counters_.leases_expired += expired.size();
  }
  return total;
}

absl::Status Frontier::RequeueLeasesLocked(const std::vector<LeaseId>& ids) {
  Staging staging(hosts_);
  kv::WriteBatch batch;
  for (LeaseId id : ids) {
    // The queue entry never left: only the host record's lease count changes (and the mark
    // goes).
    const LeaseTable::Lease& lease = *leases_.Find(id);
    if (lease.marked) batch.Delete(storage::kLeasesFamily, storage::LeaseKey(id));
    HostState& state = staging.State(lease.host);
    --state.in_flight;
    ++state.queued;
    state.cursor = std::min(state.cursor, lease.pos);
  }
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) return status;
  for (LeaseId id : ids) leases_.Remove(id);
  return absl::OkStatus();
}

absl::StatusOr<Frontier::DueScan> Frontier::ScanDueLocked(absl::Time from, absl::Time now) const {
  DueScan scan;
  // Open-ended, so that the first entry after `now` is seen: nothing is due before it, so the
  // next scan can wait for it instead of opening a cursor at every Lease (every later write of
  // an earlier due entry lowers the scan mark again).
  const std::string due_end = storage::DueKeyPrefix(now + absl::Microseconds(1));
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
      store_.NewIterator(storage::kDueFamily, storage::DueKeyPrefix(from), "");
  if (!it.ok()) return it.status();
  kv::KvIterator& cursor = **it;
  for (; cursor.Valid() && scan.entries.size() < options_.max_due_promotions_per_lease;
       cursor.Next()) {
    if (cursor.key() >= due_end) {
      absl::StatusOr<storage::DueKeyParts> parts = storage::DecodeDueKey(cursor.key());
      // An undecodable key after `now` is left for the promotion that reaches its bytes.
      scan.next_due = parts.ok() ? parts->due : now;
      break;
    }
    DueScan::Entry entry{std::string(cursor.key()), absl::InfinitePast(), std::string()};
    if (absl::StatusOr<storage::DueKeyParts> parts = storage::DecodeDueKey(entry.key);
        parts.ok()) {
      entry.due = parts->due;
      entry.url = std::string(parts->url);
    }
    scan.entries.push_back(std::move(entry));
  }
  if (absl::Status status = cursor.status(); !status.ok()) return status;
  scan.exhausted = !cursor.Valid() || cursor.key() >= due_end;
  return scan;
}

absl::Status Frontier::PromoteDueLocked() {
  if (hosts_.totals().waiting == 0) return absl::OkStatus();
  const absl::Time now = clock_.Now();
  // Re-visits held back by the budget are behind the scan position: go back for them once the
  // budget has a token again.
  const bool rescan = revisits_held_from_ < due_scanned_until_ &&
                      revisit_budget_.Available(now);
  if (now < due_scanned_until_ && !rescan) return absl::OkStatus();
  const absl::Time scan_from = rescan ? revisits_held_from_ : due_scanned_until_;

  absl::StatusOr<DueScan> scan = ScanDueLocked(scan_from, now);
  if (!scan.ok()) return scan.status();
  const std::vector<DueScan::Entry>& due = scan->entries;
  const bool exhausted = scan->exhausted;
  const absl::Time next_due = scan->next_due;
  if (due.empty()) {
    due_scanned_until_ = std::max(due_scanned_until_, next_due);
    if (rescan) revisits_held_from_ = absl::InfiniteFuture();
    return absl::OkStatus();
  }

  std::vector<std::string> urls;
  urls.reserve(due.size());
  for (const DueScan::Entry& entry : due) urls.push_back(entry.url);
  absl::StatusOr<std::vector<std::optional<std::string>>> values =
      store_.MultiGet(storage::kUrlsFamily, urls);
  if (!values.ok()) return values.status();
  Staging staging(hosts_);
  kv::WriteBatch batch;
  uint64_t promoted = 0;
  uint64_t revisits = 0;
  uint64_t waited = 0;
  absl::Duration wait;
  absl::Time held_from = absl::InfiniteFuture();
  // A rescan cut short by max_due_promotions_per_lease has not seen every held entry.
  if (rescan && !exhausted) held_from = due.back().due;
  for (size_t i = 0; i < due.size(); ++i) {
    std::optional<UrlRecord> record;
    if ((*values)[i].has_value()) {
      absl::StatusOr<UrlRecord> decoded = storage::DecodeUrlRecord(*(*values)[i]);
      if (decoded.ok()) record = *std::move(decoded);
    }
    // A re-visit proper (not a retry, which was paid for by the visit it repeats) needs a token;
    // without one it stays in the due index, and so do the re-visits due after it.
    // A moving host's URLs stay due: they are promoted where the host lands.
    if (record.has_value() && record->host_id < hosts_.size() &&
        hosts_.state(static_cast<uint32_t>(record->host_id)).moving) {
      continue;
    }
    const bool revisit = record.has_value() && record->status == UrlStatus::kWaiting &&
                         record->fetch_count > 0 && record->attempts == 0;
    if (revisit && !revisit_budget_.TryTake(now)) {
      held_from = std::min(held_from, due[i].due);
      continue;
    }
    batch.Delete(storage::kDueFamily, due[i].key);
    if (!record.has_value() || record->status != UrlStatus::kWaiting ||
        record->host_id >= hosts_.size() ||
        storage::DueKeyPrefix(record->next_visit) != storage::DueKeyPrefix(due[i].due)) {
      // An entry no URL record stands behind: drop it (and its count, if a host owns it).
      ++counters_.repairs;
      if (record.has_value() && record->host_id < hosts_.size()) {
        HostState& state = staging.State(static_cast<uint32_t>(record->host_id));
        state.waiting = SaturatingSub(state.waiting, 1);
      }
      continue;
    }
    const QueuePos pos = PosOf(*record);
    record->status = UrlStatus::kQueued;
    record->next_visit = absl::InfinitePast();
    batch.Put(storage::kUrlsFamily, due[i].url, storage::EncodeUrlRecord(*record));
    batch.Put(storage::kQueueFamily, storage::QueueKey(record->host_id, pos),
              storage::EncodeQueueValue(QueueFlagsOf(*record), due[i].url));
    HostState& state = staging.State(static_cast<uint32_t>(record->host_id));
    state.waiting = SaturatingSub(state.waiting, 1);
    ++state.queued;
    state.cursor = std::min(state.cursor, pos);
    ++promoted;
    if (record->fetch_count > 0) ++revisits;
    // Everything before the scan position that is still in the due index was held back.
    if (revisit && rescan && due[i].due < due_scanned_until_) {
      ++waited;
      wait += now - due[i].due;
    }
  }
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) return status;
  // A rescan never moves the scan position back: the entries it passed were scanned before.
  due_scanned_until_ = std::max(rescan ? due_scanned_until_ : absl::InfinitePast(),
                                exhausted ? next_due : due.back().due);
  revisits_held_from_ = rescan ? held_from : std::min(revisits_held_from_, held_from);
  revisits_queued_ += revisits;
  counters_.due_promoted += promoted;
  counters_.revisits_waited += waited;
  counters_.revisit_wait_seconds += absl::ToDoubleSeconds(wait);
  return absl::OkStatus();
}

}  // namespace crawler::frontier
