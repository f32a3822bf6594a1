#include "services/frontier/frontier.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/partition/partition.h"
#include "lib/recrawl/policy_factory.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier_internal.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

using internal::PosOf;
using internal::QueuePos;
using internal::SaturatingSub;
using internal::Successor;

std::vector<kv::ColumnFamilySpec> Frontier::ColumnFamilies() { return storage::ColumnFamilies(); }

Frontier::Frontier(const FrontierOptions& options, kv::KvStore& store, const Clock& clock)
    : options_(options), store_(store), clock_(clock), max_pages_total_(options.max_pages_total) {
  if (options_.focus.enabled) {
    focus_ = std::make_unique<FocusSelector>(options_.focus,
                                             std::max<uint64_t>(1, options_.max_pages_total));
  }
}

Frontier::~Frontier() = default;

absl::StatusOr<std::unique_ptr<Frontier>> Frontier::Open(const FrontierOptions& options,
                                                         kv::KvStore& store, const Clock& clock) {
  if (absl::Status status = ValidateFrontierOptions(options); !status.ok()) return status;
  absl::StatusOr<SeenCache> seen_cache = SeenCache::Create(options.seen_cache_entries);
  if (!seen_cache.ok()) return seen_cache.status();
  std::unique_ptr<Frontier> frontier(new Frontier(options, store, clock));
  absl::MutexLock lock(&frontier->mu_);
  frontier->seen_cache_ = *std::move(seen_cache);
  if (options.revisit.enabled) {
    absl::StatusOr<std::unique_ptr<recrawl::RevisitPolicy>> policy =
        recrawl::MakeRevisitPolicy(options.revisit.policy, options.revisit.policy_options);
    if (!policy.ok()) return policy.status();
    frontier->revisit_policy_ = *std::move(policy);
  }
  if (absl::Status status = frontier->Recover(); !status.ok()) return status;
  if (frontier->seen_cache_.enabled()) {
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> urls =
        store.NewIterator(storage::kUrlsFamily, "", "");
    if (!urls.ok()) return urls.status();
    if (absl::Status status = (*urls)->status(); !status.ok()) return status;
    frontier->seen_cache_exact_ = !(*urls)->Valid();
  }
  return frontier;
}

// ---- host bookkeeping --------------------------------------------------------------------

bool Frontier::PageCapped(const HostState& state) const {
  return state.pages >= options_.max_pages_per_host;
}

uint64_t Frontier::PagesLeft(const HostState& state) const {
  if (options_.max_pages_per_host == FrontierOptions::kUnlimited) {
    return FrontierOptions::kUnlimited;
  }
  return SaturatingSub(options_.max_pages_per_host, state.pages + state.in_flight);
}

bool Frontier::Eligible(const HostState& state) const {
  return state.queued > 0 && state.in_flight < options_.max_in_flight_per_host &&
         PagesLeft(state) > 0;
}

storage::HostRecord Frontier::ToRecord(uint32_t index, const HostState& state) const {
  storage::HostRecord record;
  record.host_id = index;
  record.next_seq = state.next_seq;
  // Leased URLs keep their queue entries until their completion.
  record.queued = state.queued + state.in_flight;
  record.leased = state.in_flight;
  record.waiting = state.waiting;
  record.seen = state.seen;
  record.pages = state.pages;
  record.next_allowed = state.next_allowed;
  return record;
}

void Frontier::SetHostState(uint32_t index, const HostState& state) {
  HostState& old = hosts_[index].state;
  // Unsigned wrap-around makes "subtract old, add new" exact for every counter.
  auto account = [this](const HostState& s, uint64_t sign) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    totals_.queued += sign * s.queued;
    totals_.waiting += sign * s.waiting;
    totals_.in_flight += sign * s.in_flight;
    totals_.seen += sign * s.seen;
    totals_.pages += sign * s.pages;
    totals_.hosts_with_queued += sign * (s.queued > 0 ? 1 : 0);
    totals_.ready_hosts += sign * (Eligible(s) ? 1 : 0);
    totals_.pending_uncapped += sign * (PageCapped(s) ? 0 : s.queued + s.waiting);
  };
  account(old, static_cast<uint64_t>(-1));
  account(state, 1);
  if (Eligible(old)) ready_.erase({old.next_allowed, index});
  if (Eligible(state)) ready_.insert({state.next_allowed, index});
  old = state;
}

absl::Status Frontier::CommitLocked(kv::WriteBatch& batch, Staging& staging) {
  for (const auto& [index, state] : staging.staged()) {
    batch.Put(storage::kHostsFamily, staging.KeyOf(index),
              storage::EncodeHostRecord(ToRecord(index, state)));
  }
  if (!staging.new_keys().empty()) {
    batch.Put(storage::kMetaFamily, storage::kMetaNextHostIdKey,
              storage::EncodeFixed64(hosts_.size() + staging.new_keys().size()));
  }
  if (absl::Status status = store_.Write(batch); !status.ok()) return status;
  for (const std::string& key : staging.new_keys()) {
    hosts_.push_back(Host{key, HostState{}});
    index_.emplace(hosts_.back().key, static_cast<uint32_t>(hosts_.size() - 1));
  }
  for (const auto& [index, state] : staging.staged()) SetHostState(index, state);
  return absl::OkStatus();
}

// ---- AddUrls -----------------------------------------------------------------------------

absl::StatusOr<AddResult> Frontier::AddUrls(const std::vector<UrlToAdd>& urls) {
  if (options_.partition_count > 1) {
    for (const UrlToAdd& url : urls) {
      const uint32_t owner = partition::Partition(url.host_key, options_.partition_count);
      if (owner != options_.partition_index) {
        return absl::FailedPreconditionError(absl::StrCat(
            "host ", url.host_key, " of ", url.canonical_url, " belongs to partition ", owner,
            " of ", options_.partition_count, ", not to this frontier (partition ",
            options_.partition_index, ")"));
      }
    }
  }
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  AddResult result;
  // A focused partition's budget may grow (SetPageBudget): its URLs are kept for then.
  const bool budget_spent = focus_ == nullptr && totals_.pages >= max_pages_total_;

  std::vector<const UrlToAdd*> candidates;
  std::vector<std::string> keys;
  // Seen-cache keys of the candidates (empty with the cache off).
  std::vector<uint64_t> hashes;
  uint64_t cache_hits = 0;
  absl::flat_hash_set<std::string_view> in_batch;
  for (const UrlToAdd& url : urls) {
    if (url.canonical_url.empty() || url.canonical_url.size() > options_.max_url_bytes ||
        url.host_key.empty() || url.host_key.size() > storage::kMaxHostKeyBytes) {
      ++result.invalid;
      continue;
    }
    if (!in_batch.insert(url.canonical_url).second) {
      ++result.already_seen;
      continue;
    }
    if (budget_spent || url.depth > options_.max_depth) {
      ++result.rejected_by_limit;
      continue;
    }
    if (auto host = index_.find(url.host_key); host != index_.end()) {
      const HostState& state = hosts_[host->second].state;
      if (PageCapped(state) || state.seen >= options_.max_urls_per_host) {
        ++result.rejected_by_limit;
        continue;
      }
    }
    if (seen_cache_.enabled()) {
      const uint64_t hash = SeenCache::Hash(url.canonical_url);
      seen_cache_.Prefetch(hash);  // probed below, once every bucket is on its way
      hashes.push_back(hash);
    }
    candidates.push_back(&url);
  }
  // Known for sure: the answer the store would give, without asking it. Later checks depend
  // only on URLs that are added, so deciding these here instead of after the lookup changes no
  // result. Only the misses go to the store.
  if (seen_cache_.enabled()) {
    size_t kept = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (seen_cache_.Contains(hashes[i])) {
        ++result.already_seen;
        ++cache_hits;
        continue;
      }
      candidates[kept] = candidates[i];
      hashes[kept] = hashes[i];
      ++kept;
    }
    candidates.resize(kept);
    hashes.resize(kept);
  }
  keys.reserve(candidates.size());
  for (const UrlToAdd* url : candidates) keys.push_back(url->canonical_url);

  // With an exact cache every candidate left is new: the store would find none of them.
  absl::StatusOr<std::vector<std::optional<std::string>>> existing =
      keys.empty() || seen_cache_exact_ ? std::vector<std::optional<std::string>>(keys.size())
                                        : store_.MultiGet(storage::kUrlsFamily, keys);
  if (!existing.ok()) return existing.status();
  // Candidates in the store once the batch is written: those found and those added.
  std::vector<uint64_t> now_stored;

  Staging staging(hosts_);
  absl::flat_hash_map<std::string_view, uint32_t> new_hosts;
  kv::WriteBatch batch;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const UrlToAdd& url = *candidates[i];
    if ((*existing)[i].has_value()) {
      ++result.already_seen;
      if (!hashes.empty()) now_stored.push_back(hashes[i]);
      continue;
    }
    uint32_t index = 0;
    if (auto host = index_.find(url.host_key); host != index_.end()) {
      index = host->second;
    } else if (auto fresh = new_hosts.find(url.host_key); fresh != new_hosts.end()) {
      index = fresh->second;
    } else if (options_.max_pages_per_host == 0 || options_.max_urls_per_host == 0) {
      ++result.rejected_by_limit;  // would be capped at once: do not even record the host
      continue;
    } else {
      index = staging.AddHost(url.host_key);
      new_hosts.emplace(url.host_key, index);
    }
    HostState& state = staging.State(index);
    if (PageCapped(state) || state.seen >= options_.max_urls_per_host) {
      ++result.rejected_by_limit;
      continue;
    }
    UrlRecord record;
    record.status = UrlStatus::kQueued;
    record.host_id = index;
    record.priority = url.priority;
    record.depth = url.depth;
    record.seq = state.next_seq++;
    record.first_seen = now;
    if (url.discovered_from.size() <= options_.max_url_bytes) {
      record.discovered_from = url.discovered_from;
    }
    const QueuePos pos = PosOf(record);
    ++state.seen;
    ++state.queued;
    state.cursor = std::min(state.cursor, pos);
    batch.Put(storage::kUrlsFamily, url.canonical_url, storage::EncodeUrlRecord(record));
    batch.Put(storage::kQueueFamily, storage::QueueKey(index, pos),
              storage::EncodeQueueValue(0, url.canonical_url));
    if (!hashes.empty()) now_stored.push_back(hashes[i]);
    ++result.added;
  }
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) {
    // Whether a failed write left anything behind is not known for sure: stop assuming the
    // cache has every key.
    seen_cache_exact_ = false;
    return status;
  }
  for (const uint64_t hash : now_stored) seen_cache_.Insert(hash);
  if (seen_cache_.forgot()) seen_cache_exact_ = false;
  counters_.urls_added += result.added;
  counters_.urls_already_seen += result.already_seen;
  counters_.seen_cache_hits += cache_hits;
  counters_.urls_rejected_by_limit += result.rejected_by_limit;
  counters_.urls_invalid += result.invalid;
  return result;
}

// ---- Lease -------------------------------------------------------------------------------

absl::StatusOr<std::vector<LeasedTask>> Frontier::Lease(size_t max_urls, size_t max_per_host) {
  absl::MutexLock lock(&mu_);
  if (max_urls == 0 || max_per_host == 0) return std::vector<LeasedTask>();
  if (absl::StatusOr<size_t> expired = ExpireLocked(); !expired.ok()) return expired.status();
  if (absl::Status status = PromoteDueLocked(); !status.ok()) return status;

  const absl::Time now = clock_.Now();
  const absl::Duration monotonic_now = clock_.MonotonicNow();
  uint64_t budget = std::min<uint64_t>(max_urls, options_.max_urls_per_lease);
  if (max_pages_total_ != FrontierOptions::kUnlimited) {
    budget = std::min(budget, SaturatingSub(max_pages_total_, totals_.pages + totals_.in_flight));
  }

  // Which hosts give how many: read-only against the ready set.
  struct Take {
    uint32_t host;
    uint64_t count;
  };
  std::vector<Take> plan;
  const absl::Time ready_until = now + options_.ready_horizon;
  if (focus_ != nullptr) {
    for (const auto& [host, count] : FocusPlanLocked(budget, max_per_host)) {
      plan.push_back(Take{host, count});
    }
    budget = 0;  // the loop below is the coverage crawl's order
  }
  for (const auto& [next_allowed, index] : ready_) {
    if (budget == 0 || next_allowed > ready_until) break;
    const HostState& state = hosts_[index].state;
    const uint64_t count =
        std::min({static_cast<uint64_t>(max_per_host),
                  static_cast<uint64_t>(options_.max_in_flight_per_host - state.in_flight),
                  PagesLeft(state), state.queued, budget});
    if (count == 0) continue;
    plan.push_back(Take{index, count});
    budget -= count;
  }

  struct Popped {
    uint32_t host;
    QueuePos pos;
    storage::QueueEntry entry;
  };
  std::vector<Popped> popped;
  Staging staging(hosts_);
  kv::WriteBatch batch;
  for (const Take& take : plan) {
    HostState& state = staging.State(take.host);
    uint64_t taken = 0;
    // Pops entries of [begin, end) until the take is complete; returns whether the range ran
    // out first.
    auto pop_range = [&](const std::string& begin, const std::string& end)
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::StatusOr<bool> {
      absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
          store_.NewIterator(storage::kQueueFamily, begin, end);
      if (!it.ok()) return it.status();
      for (; (*it)->Valid() && taken < take.count; (*it)->Next()) {
        absl::StatusOr<storage::QueueKeyParts> key = storage::DecodeQueueKey((*it)->key());
        // Out on lease: its entry stays until the completion. Only met after the cursor went
        // back (an expired lease, a promoted retry, a URL that sorts earlier).
        if (key.ok() && leased_slots_.contains(SlotOf(take.host, key->pos))) continue;
        absl::StatusOr<storage::QueueEntry> entry = storage::DecodeQueueValue((*it)->value());
        if (!key.ok() || !entry.ok()) {
          batch.Delete(storage::kQueueFamily, (*it)->key());
          ++counters_.repairs;
          state.queued = SaturatingSub(state.queued, 1);
          continue;
        }
        popped.push_back(Popped{take.host, key->pos, *std::move(entry)});
        state.cursor = Successor(key->pos);
        ++taken;
      }
      if (absl::Status status = (*it)->status(); !status.ok()) return status;
      return !(*it)->Valid();
    };
    const QueuePos cursor = state.cursor;
    const std::string host_end = kv::PrefixSuccessor(storage::QueueHostPrefix(take.host));
    absl::StatusOr<bool> exhausted = pop_range(storage::QueueKey(take.host, cursor), host_end);
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
    state.next_allowed = std::max(state.next_allowed, now);
  }

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
  const absl::Time deadline = now + options_.lease_duration;
  for (size_t i = 0; i < popped.size(); ++i) {
    const Popped& p = popped[i];
    const LeaseId id = next_lease_id_ + i;
    LeasedTask task;
    task.lease_id = id;
    task.canonical_url = p.entry.url;
    task.host_key = staging.KeyOf(p.host);
    task.depth = p.pos.depth;
    task.priority = storage::PriorityOfBand(p.pos.band);
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
                                            .deadline = deadline,
                                            .url = p.entry.url,
                                            .in_queue = true}));
    }
  }
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) return status;

  const absl::Duration monotonic_deadline = monotonic_now + options_.lease_duration;
  for (size_t i = 0; i < popped.size(); ++i) {
    Popped& p = popped[i];
    const LeaseId id = next_lease_id_ + i;
    leased_slots_.insert(SlotOf(p.host, p.pos));
    leases_.emplace(id, InFlight{p.host, p.pos, std::move(p.entry.url), monotonic_deadline, mark});
    lease_deadlines_.insert({monotonic_deadline, id});
  }
  next_lease_id_ += popped.size();
  counters_.leases_granted += popped.size();
  return tasks;
}

// ---- Complete ----------------------------------------------------------------------------

absl::StatusOr<CompleteResult> Frontier::Complete(const std::vector<FetchOutcome>& outcomes) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  CompleteResult result;

  std::vector<std::pair<const FetchOutcome*, const InFlight*>> accepted;
  std::vector<std::pair<uint32_t, uint32_t>> focus_pulls;  // (host, reward) of final outcomes
  std::vector<std::string> keys;
  absl::flat_hash_set<LeaseId> consumed;
  for (const FetchOutcome& outcome : outcomes) {
    if (static_cast<uint8_t>(outcome.outcome) == 0 ||
        static_cast<uint8_t>(outcome.outcome) > kMaxOutcomeClass) {
      return absl::InvalidArgumentError(absl::StrCat("lease ", outcome.lease_id,
                                                     ": unknown outcome class ",
                                                     static_cast<int>(outcome.outcome)));
    }
  }
  for (const FetchOutcome& outcome : outcomes) {
    auto lease = leases_.find(outcome.lease_id);
    if (lease == leases_.end() || !consumed.insert(outcome.lease_id).second) {
      result.unknown_leases.push_back(outcome.lease_id);
      continue;
    }
    accepted.emplace_back(&outcome, &lease->second);
    keys.push_back(lease->second.url);
  }
  absl::StatusOr<std::vector<std::optional<std::string>>> values =
      store_.MultiGet(storage::kUrlsFamily, keys);
  if (!values.ok()) return values.status();

  auto bounded = [this](const std::string& validator) {
    return validator.size() <= options_.max_validator_bytes ? validator : std::string();
  };
  Staging staging(hosts_);
  kv::WriteBatch batch;
  absl::Time earliest_due = absl::InfiniteFuture();
  // Staged like the host headers: applied only if the batch is written.
  std::optional<RevisitFleet> staged_fleet;
  uint64_t revisits = 0;
  uint64_t changes = 0;
  uint64_t revisits_completed = 0;  // leases of URLs visited before (they left revisits_queued_)
  for (size_t i = 0; i < accepted.size(); ++i) {
    const FetchOutcome& outcome = *accepted[i].first;
    const InFlight& lease = *accepted[i].second;
    HostState& state = staging.State(lease.host);
    if (lease.marked) batch.Delete(storage::kLeasesFamily, storage::LeaseKey(outcome.lease_id));

    std::optional<UrlRecord> stored;
    if ((*values)[i].has_value()) {
      absl::StatusOr<UrlRecord> decoded = storage::DecodeUrlRecord(*(*values)[i]);
      if (decoded.ok()) stored = *std::move(decoded);
    }
    if (!stored.has_value()) {
      // The lease proves the URL was accepted; rebuild what the lease knows. The store lost a
      // record it should hold: stop trusting the seen cache to mirror it.
      ++counters_.repairs;
      seen_cache_exact_ = false;
      stored.emplace();
      stored->host_id = lease.host;
      stored->priority = storage::PriorityOfBand(lease.pos.band);
      stored->depth = lease.pos.depth;
      stored->seq = lease.pos.seq;
      stored->first_seen = now;
    }
    UrlRecord& record = *stored;
    if (record.fetch_count > 0) ++revisits_completed;
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
        if (!outcome.last_modified.empty()) {
          record.last_modified = bounded(outcome.last_modified);
        }
        break;
      default:
        break;  // no content: keep what the last good fetch said
    }

    --state.in_flight;
    state.next_allowed = std::max(state.next_allowed, outcome.host_next_allowed);
    if (outcome.retry && record.attempts + 1 < options_.max_attempts) {
      ++record.attempts;
      absl::Duration backoff = options_.retry_backoff_initial;
      for (uint32_t n = 1; n < record.attempts && backoff < options_.retry_backoff_max; ++n) {
        backoff *= 2;
      }
      const absl::Time due = now + std::min(backoff, options_.retry_backoff_max);
      record.status = UrlStatus::kWaiting;
      record.next_visit = due;
      batch.Put(storage::kDueFamily, storage::DueKey(due, lease.url),
                storage::EncodeDueValue(lease.host));
      ++state.waiting;
      earliest_due = std::min(earliest_due, due);
      ++result.retries_scheduled;
    } else {
      // Pages count once: re-visits of a page are not new pages.
      if (CountsAsPage(outcome.outcome) && record.fetch_count == 0) ++state.pages;
      // Every final outcome is a pull: a page that failed still spent the budget.
      if (focus_ != nullptr) focus_pulls.emplace_back(lease.host, outcome.new_external_links);
      record.attempts = 0;
      ++record.fetch_count;
      const bool holds_content = outcome.outcome == OutcomeClass::kFetched ||
                                 outcome.outcome == OutcomeClass::kDuplicate ||
                                 outcome.outcome == OutcomeClass::kNotModified;
      if (revisit_policy_ != nullptr && holds_content) {
        if (!staged_fleet.has_value()) staged_fleet = revisit_fleet_;
        const RevisitPlan plan =
            ScheduleRevisit(outcome, previous, lease.url, record, *staged_fleet);
        record.status = UrlStatus::kWaiting;
        record.next_visit = plan.due;
        batch.Put(storage::kDueFamily, storage::DueKey(plan.due, lease.url),
                  storage::EncodeDueValue(lease.host));
        ++state.waiting;
        earliest_due = std::min(earliest_due, plan.due);
        ++revisits;
        if (plan.changed) ++changes;
      } else {
        std::optional<absl::Time> due;
        if (revisit_policy_ != nullptr && !record.visit_history.empty()) {
          if (!staged_fleet.has_value()) staged_fleet = revisit_fleet_;
          due = ScheduleFailedRevisit(outcome, previous, record, *staged_fleet);
        }
        if (due.has_value()) {
          record.status = UrlStatus::kWaiting;
          record.next_visit = *due;
          batch.Put(storage::kDueFamily, storage::DueKey(*due, lease.url),
                    storage::EncodeDueValue(lease.host));
          ++state.waiting;
          earliest_due = std::min(earliest_due, *due);
        } else {
          record.status = UrlStatus::kDone;
          record.next_visit = absl::InfinitePast();
        }
      }
    }
    batch.Put(storage::kUrlsFamily, lease.url, storage::EncodeUrlRecord(record));
    batch.Delete(storage::kQueueFamily, storage::QueueKey(lease.host, lease.pos));
    ++result.accepted;
  }
  if (staged_fleet.has_value()) {
    batch.Put(storage::kMetaFamily, storage::kMetaRevisitRatesKey, staged_fleet->rates.Encode());
    batch.Put(storage::kMetaFamily, storage::kMetaRevisitObservationsKey,
              storage::EncodeRevisitObservations(staged_fleet->changes_seen,
                                                 staged_fleet->days_observed));
    if (staged_fleet->evidence.has_value()) {
      batch.Put(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey,
                staged_fleet->evidence->Encode());
    }
  }
  batch.set_sync(options_.sync_completions);
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) return status;
  if (staged_fleet.has_value()) revisit_fleet_ = *std::move(staged_fleet);
  counters_.revisits_scheduled += revisits;
  revisits_queued_ = SaturatingSub(revisits_queued_, revisits_completed);
  counters_.revisits_completed += revisits_completed;
  if (revisits_completed > 0) revisit_budget_.RecordSpend(revisits_completed, clock_.Now());
  counters_.changes_detected += changes;

  if (focus_ != nullptr) {
    for (const auto& [host, reward] : focus_pulls) focus_->Observe(host, reward);
    counters_.focus_pulls += focus_pulls.size();
    for (const auto& [host, reward] : focus_pulls) counters_.focus_reward += reward;
  }
  for (const auto& [outcome, lease] : accepted) {
    auto it = leases_.find(outcome->lease_id);
    lease_deadlines_.erase({it->second.monotonic_deadline, outcome->lease_id});
    leased_slots_.erase(SlotOf(it->second.host, it->second.pos));
    leases_.erase(it);
  }
  due_scanned_until_ = std::min(due_scanned_until_, earliest_due);
  counters_.completions_accepted += result.accepted;
  counters_.completions_unknown += result.unknown_leases.size();
  counters_.retries_scheduled += result.retries_scheduled;
  return result;
}

// ---- hints, lookups, stats ---------------------------------------------------------------

absl::StatusOr<size_t> Frontier::ReportHostTimes(const std::vector<HostTime>& times) {
  absl::MutexLock lock(&mu_);
  Staging staging(hosts_);
  for (const HostTime& time : times) {
    auto host = index_.find(time.host_key);
    if (host == index_.end()) continue;
    staging.State(host->second).next_allowed = time.next_allowed;
  }
  kv::WriteBatch batch;
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) return status;
  return staging.staged().size();
}

absl::StatusOr<UrlRecord> Frontier::LookupUrl(std::string_view canonical_url) const {
  absl::StatusOr<std::string> value = store_.Get(storage::kUrlsFamily, canonical_url);
  if (!value.ok()) return value.status();
  return storage::DecodeUrlRecord(*value);
}

FrontierStats Frontier::Stats() const {
  absl::MutexLock lock(&mu_);
  FrontierStats stats = counters_;
  stats.hosts = hosts_.size();
  stats.hosts_with_queued_urls = totals_.hosts_with_queued;
  stats.ready_hosts = totals_.ready_hosts;
  stats.queued_urls = totals_.queued;
  stats.waiting_urls = totals_.waiting;
  stats.in_flight_urls = totals_.in_flight;
  stats.seen_urls = totals_.seen;
  stats.pages_completed = totals_.pages;
  stats.next_ready_time = ready_.empty() ? absl::InfiniteFuture() : ready_.begin()->first;
  stats.exhausted = ExhaustedLocked();
  stats.revisit_budget_visits_per_day = revisit_budget_.visits_per_day();
  stats.revisit_spend_visits_per_day = revisit_budget_.spent_visits_per_day(clock_.Now());
  return stats;
}

std::vector<std::pair<uint32_t, uint64_t>> Frontier::FocusPlanLocked(uint64_t budget,
                                                                     size_t max_per_host) {
  // A host is in the game while it has URLs to fetch or pages in flight that may bring some.
  std::vector<bool> playable(hosts_.size());
  for (size_t i = 0; i < hosts_.size(); ++i) {
    const HostState& state = hosts_[i].state;
    playable[i] = state.in_flight > 0 || (state.queued + state.waiting > 0 && !PageCapped(state));
  }
  focus_->Sync(playable);
  counters_.focus_rebuilds = focus_->rebuilds();
  uint64_t slots = std::min<uint64_t>(
      budget, SaturatingSub(options_.focus.max_in_flight, totals_.in_flight));
  std::vector<std::pair<uint32_t, uint64_t>> plan;
  while (slots > 0) {
    const int host = focus_->ChooseHost();
    if (host < 0) break;
    const HostState& state = hosts_[host].state;
    auto it = std::find_if(plan.begin(), plan.end(), [&](const auto& p) {
      return p.first == static_cast<uint32_t>(host);
    });
    const uint64_t planned = it == plan.end() ? 0 : it->second;
    const uint64_t room =
        std::min({static_cast<uint64_t>(max_per_host),
                  static_cast<uint64_t>(SaturatingSub(options_.max_in_flight_per_host,
                                                      state.in_flight)),
                  PagesLeft(state), state.queued});
    // The chosen site cannot take another pull now: the slot waits for a later Lease rather
    // than going to a site the policy did not choose.
    if (planned >= room) break;
    if (it == plan.end()) {
      plan.emplace_back(static_cast<uint32_t>(host), 1);
    } else {
      ++it->second;
    }
    --slots;
  }
  return plan;
}

bool Frontier::IsExhausted() const {
  absl::MutexLock lock(&mu_);
  return ExhaustedLocked();
}

bool Frontier::ExhaustedLocked() const {
  if (totals_.in_flight > 0) return false;
  return totals_.pending_uncapped == 0 || totals_.pages >= max_pages_total_;
}

absl::Status Frontier::SetPageBudget(uint64_t max_pages) {
  if (!options_.focus.enabled) {
    return absl::FailedPreconditionError("only a focused collection's page budget moves");
  }
  if (max_pages == FrontierOptions::kUnlimited) {
    return absl::InvalidArgumentError("a focused collection needs a page budget");
  }
  absl::MutexLock lock(&mu_);
  max_pages_total_ = max_pages;
  return absl::OkStatus();
}

}  // namespace crawler::frontier
