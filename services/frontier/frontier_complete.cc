// Frontier::Complete (docs/architecture.md §2.2, §7): the outcomes of leased URLs recorded,
// retries and re-visits scheduled, the leases ended. Split from frontier.cc only for size; the
// class contract is in frontier.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_internal.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

using internal::SaturatingSub;

absl::StatusOr<CompleteResult> Frontier::Complete(const std::vector<FetchOutcome>& outcomes) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  CompleteResult result;
  for (const FetchOutcome& outcome : outcomes) {
    if (static_cast<uint8_t>(outcome.outcome) == 0 ||
        static_cast<uint8_t>(outcome.outcome) > kMaxOutcomeClass) {
      return absl::InvalidArgumentError(absl::StrCat("lease ", outcome.lease_id,
                                                     ": unknown outcome class ",
                                                     static_cast<int>(outcome.outcome)));
    }
  }
  std::vector<std::pair<const FetchOutcome*, const LeaseTable::Lease*>> accepted;
  std::vector<std::string> keys;
  absl::flat_hash_set<LeaseId> consumed;
  for (const FetchOutcome& outcome : outcomes) {
    const LeaseTable::Lease* lease = leases_.Find(outcome.lease_id);
    if (lease == nullptr || !consumed.insert(outcome.lease_id).second) {
      result.unknown_leases.push_back(outcome.lease_id);
      continue;
    }
    accepted.emplace_back(&outcome, lease);
    keys.push_back(lease->url);
  }
  absl::StatusOr<std::vector<std::optional<std::string>>> values =
      store_.MultiGet(storage::kUrlsFamily, keys);
  if (!values.ok()) return values.status();

  Staging staging(hosts_);
  kv::WriteBatch batch;
  // Staged like the host headers: applied only if the batch is written.
  std::optional<RevisitFleet> staged_fleet;
  CompleteTally tally;
  for (size_t i = 0; i < accepted.size(); ++i) {
    const FetchOutcome& outcome = *accepted[i].first;
    const LeaseTable::Lease& lease = *accepted[i].second;
    if (lease.marked) batch.Delete(storage::kLeasesFamily, storage::LeaseKey(outcome.lease_id));
    UrlRecord record = StoredRecordLocked((*values)[i], lease, now);
    ApplyOutcomeLocked(outcome, lease, record, now, staging.State(lease.host), batch,
                       staged_fleet, tally, result);
  }
  if (staged_fleet.has_value()) PutRevisitFleet(*staged_fleet, batch);
  batch.set_sync(options_.sync_completions);
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) return status;

  if (staged_fleet.has_value()) revisit_fleet_ = *std::move(staged_fleet);
  counters_.revisits_scheduled += tally.revisits;
  revisits_queued_ = SaturatingSub(revisits_queued_, tally.revisits_completed);
  counters_.revisits_completed += tally.revisits_completed;
  if (tally.revisits_completed > 0) {
    revisit_budget_.RecordSpend(tally.revisits_completed, clock_.Now());
  }
  counters_.changes_detected += tally.changes;
  if (focus_ != nullptr) {
    for (const auto& [host, reward] : tally.focus_pulls) focus_->Observe(host, reward);
    counters_.focus_pulls += tally.focus_pulls.size();
    for (const auto& [host, reward] : tally.focus_pulls) counters_.focus_reward += reward;
  }
  for (const auto& [outcome, lease] : accepted) leases_.Remove(outcome->lease_id);
  due_scanned_until_ = std::min(due_scanned_until_, tally.earliest_due);
  counters_.completions_accepted += result.accepted;
  counters_.completions_unknown += result.unknown_leases.size();
  counters_.retries_scheduled += result.retries_scheduled;
  return result;
}

UrlRecord Frontier::StoredRecordLocked(const std::optional<std::string>& value,
                                       const LeaseTable::Lease& lease, absl::Time now) {
  if (value.has_value()) {
    absl::StatusOr<UrlRecord> decoded = storage::DecodeUrlRecord(*value);
    if (decoded.ok()) return *std::move(decoded);
  }
  // The lease proves the URL was accepted; rebuild what the lease knows. The store lost a
  // record it should hold: stop trusting the seen cache to mirror it.
  ++counters_.repairs;
  seen_cache_exact_ = false;
  UrlRecord record;
  record.host_id = lease.host;
  record.priority = storage::PriorityOfBand(lease.pos.band);
  record.depth = lease.pos.depth;
  record.seq = lease.pos.seq;
  record.first_seen = now;
  return record;
}

void Frontier::ApplyOutcomeLocked(const FetchOutcome& outcome, const LeaseTable::Lease& lease,
                                  UrlRecord& record, absl::Time now, HostState& state,
                                  kv::WriteBatch& batch, std::optional<RevisitFleet>& staged_fleet,
                                  CompleteTally& tally, CompleteResult& result) {
  auto bounded = [this](const std::string& validator) {
    return validator.size() <= options_.max_validator_bytes ? validator : std::string();
  };
  if (record.fetch_count > 0) ++tally.revisits_completed;
  const PreviousContent previous{.fingerprint = record.content_fingerprint,
                                 .change_digest = record.change_digest,
                                 .etag = record.etag,
                                 .length = record.content_length,
                                 .fetch_time = record.fetch_time,
                                 .http_status = record.http_status};
  record.last_outcome = outcome.outcome;
  record.http_status = outcome.http_status;
  record.fetch_time = outcome.fetch_time == absl::InfinitePast() ? now : outcome.fetch_time;
  switch (outcome.outcome) {
    case OutcomeClass::kFetched:
    case OutcomeClass::kDuplicate:
      // A full response: its validators and content replace the old ones (absent ones too,
      // or the next conditional GET would present stale validators).
      record.etag = bounded(outcome.etag);
      record.last_modified = bounded(outcome.last_modified);
      record.content_fingerprint = outcome.content_fingerprint;
      record.content_length = outcome.content_length;
      record.change_digest = outcome.change_digest;
      break;
    case OutcomeClass::kNotModified:
      // The stored content is still current; a 304 may refresh the validators.
      if (!outcome.etag.empty()) record.etag = bounded(outcome.etag);
      if (!outcome.last_modified.empty()) record.last_modified = bounded(outcome.last_modified);
      break;
    default:
      break;  // no content: keep what the last good fetch said
  }

  --state.in_flight;
  state.next_allowed = std::max(state.next_allowed, outcome.host_next_allowed);
  // The operator's delay counts from this request: the host's next lease waits for it.
  if (const absl::Duration delay = hosts_.controls(state).delay; delay > absl::ZeroDuration()) {
    state.next_allowed = std::max(state.next_allowed, record.fetch_time + delay);
  }
  const bool failed = outcome.outcome == OutcomeClass::kNetworkError ||
                      outcome.http_status >= 500 || outcome.http_status == 429;
  if (failed && state.errors < std::numeric_limits<uint32_t>::max()) ++state.errors;
  if (outcome.retry && record.attempts + 1 < options_.max_attempts) {
    ++record.attempts;
    absl::Duration backoff = options_.retry_backoff_initial;
    for (uint32_t n = 1; n < record.attempts && backoff < options_.retry_backoff_max; ++n) {
      backoff *= 2;
    }
    WaitUntil(now + std::min(backoff, options_.retry_backoff_max), lease, record, state, batch,
              tally);
    ++result.retries_scheduled;
  } else {
    FinishUrlLocked(outcome, lease, previous, record, state, batch, staged_fleet, tally);
  }
  batch.Put(storage::kUrlsFamily, lease.url, storage::EncodeUrlRecord(record));
  batch.Delete(storage::kQueueFamily, storage::QueueKey(lease.host, lease.pos));
  ++result.accepted;
}

void Frontier::FinishUrlLocked(const FetchOutcome& outcome, const LeaseTable::Lease& lease,
                               const PreviousContent& previous, UrlRecord& record,
                               HostState& state, kv::WriteBatch& batch,
                               std::optional<RevisitFleet>& staged_fleet, CompleteTally& tally) {
  // Pages count once: re-visits of a page are not new pages.
  // Sitemaps are read for their pages and are not pages themselves.
  if (CountsAsPage(outcome.outcome) && record.fetch_count == 0 && record.sitemap_level == 0) {
    ++state.pages;
  }
  // Every final outcome is a pull: a page that failed still spent the budget.
  if (focus_ != nullptr) tally.focus_pulls.emplace_back(lease.host, outcome.new_external_links);
  record.attempts = 0;
  ++record.fetch_count;
  const bool holds_content = outcome.outcome == OutcomeClass::kFetched ||
                             outcome.outcome == OutcomeClass::kDuplicate ||
                             outcome.outcome == OutcomeClass::kNotModified;
  if (revisit_policy_ != nullptr && holds_content && record.sitemap_level > 0) {
    // A sitemap is read again for the lastmods it brings, outside the fleet: it changes
    // whenever any of its pages does, and as a page of the fleet its summed rate would pull the
    // rate estimates and the fitted prior up. The budget still pays for each reading.
    WaitUntil(record.fetch_time + SitemapRevisitIntervalLocked(), lease, record, state, batch,
              tally);
    ++tally.revisits;
    return;
  }
  if (revisit_policy_ != nullptr && holds_content) {
    if (!staged_fleet.has_value()) staged_fleet = revisit_fleet_;
    const RevisitPlan plan = ScheduleRevisit(outcome, previous, lease.url, record, *staged_fleet);
    if (record.lastmod_pulled) {
      // The visit a lastmod brought forward: did it find the change it claimed?
      record.lastmod_pulled = false;
      if (plan.changed) ++record.lastmod_pulls_changed;
    }
    WaitUntil(plan.due, lease, record, state, batch, tally);
    ++tally.revisits;
    if (plan.changed) ++tally.changes;
    return;
  }
  std::optional<absl::Time> due;
  if (revisit_policy_ != nullptr && !record.visit_history.empty()) {
    if (!staged_fleet.has_value()) staged_fleet = revisit_fleet_;
    due = ScheduleFailedRevisit(outcome, previous, record, *staged_fleet);
  }
  if (due.has_value()) {
    WaitUntil(*due, lease, record, state, batch, tally);
  } else {
    record.status = UrlStatus::kDone;
    record.next_visit = absl::InfinitePast();
  }
}

void Frontier::WaitUntil(absl::Time due, const LeaseTable::Lease& lease, UrlRecord& record,
                         HostState& state, kv::WriteBatch& batch, CompleteTally& tally) const {
  record.status = UrlStatus::kWaiting;
  record.next_visit = due;
  batch.Put(storage::kDueFamily, storage::DueKey(due, lease.url),
            storage::EncodeDueValue(lease.host));
  ++state.waiting;
  tally.earliest_due = std::min(tally.earliest_due, due);
}

}  // namespace crawler::frontier
