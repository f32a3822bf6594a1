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
using internal::QueueFlagsOf;
using internal::QueuePos;
using internal::SaturatingSub;
using internal::Successor;

std::vector<kv::ColumnFamilySpec> Frontier::ColumnFamilies() { return storage::ColumnFamilies(); }

Frontier::Frontier(const FrontierOptions& options, kv::KvStore& store, const Clock& clock)
    : options_(options),
      store_(store),
      clock_(clock),
      hosts_(HostTable::Limits{.max_in_flight_per_host = options.max_in_flight_per_host,
                               .max_pages_per_host = options.max_pages_per_host}),
      max_pages_total_(options.max_pages_total),
      layout_(LayoutOf(options)) {
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
        recrawl::MakeRevisitPolicy(options.revisit.policy,
                                   EffectivePolicyOptions(options.revisit));
    if (!policy.ok()) return policy.status();
    frontier->revisit_policy_ = *std::move(policy);
  }
  if (absl::Status status = frontier->Recover(); !status.ok()) return status;
  // A fetcher that held the previous process's table never takes this one for it.
  frontier->controls_version_ =
      static_cast<uint64_t>(std::max<int64_t>(1, absl::ToUnixMicros(clock.Now())));
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

absl::Status Frontier::CommitLocked(kv::WriteBatch& batch, Staging& staging) {
  // A Lease changes no stored record: with 4 URLs per host it would write one host record per 4
  // URLs leased, each a memtable insert at a random place. The count of leases out, one key,
  // is what a restart needs of it.
  uint64_t leases_out = hosts_.totals().in_flight;
  const absl::Time now = clock_.Now();
  for (const auto& [index, state] : staging.staged()) {
    const bool added = index >= hosts_.size();
    // Unsigned wrap-around (in 64 bits) makes "subtract old, add new" exact.
    leases_out += uint64_t{state.in_flight};
    if (!added) leases_out -= uint64_t{hosts_.state(index).in_flight};
    if (added || hosts_.RecordChanged(index, hosts_.state(index), state, now)) {
      batch.Put(storage::kHostsFamily, staging.KeyOf(index),
                storage::EncodeHostRecord(hosts_.ToRecord(index, state)));
    }
  }
  if (!staging.new_keys().empty()) {
    batch.Put(storage::kMetaFamily, storage::kMetaNextHostIdKey,
              storage::EncodeFixed64(hosts_.size() + staging.new_keys().size()));
  }
  PutLeasesOutLocked(leases_out, batch);
  if (absl::Status status = store_.Write(batch); !status.ok()) return status;
  leases_out_stored_ = leases_out;
  for (const std::string& key : staging.new_keys()) hosts_.Add(key);
  for (const auto& [index, state] : staging.staged()) hosts_.Set(index, state);
  return absl::OkStatus();
}

void Frontier::PutLeasesOutLocked(uint64_t leases_out, kv::WriteBatch& batch) const {
  if (leases_out == leases_out_stored_) return;
  batch.Put(storage::kMetaFamily, storage::kMetaLeasesOutKey, storage::EncodeFixed64(leases_out));
}

// ---- AddUrls -----------------------------------------------------------------------------

absl::Status Frontier::CheckPartition(const std::vector<UrlToAdd>& urls) const {
  if (layout_.Span() <= 1) return absl::OkStatus();
  for (const UrlToAdd& url : urls) {
    if (partition::RouteAt(layout_, options_.partition_index, url.host_key) !=
        partition::Routing::kRefuse) {
      continue;
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "host ", url.host_key, " of ", url.canonical_url, " belongs to partition ",
        layout_.Owner(url.host_key), " of ", layout_.count, ", not to this frontier (partition ",
        options_.partition_index, ")"));
  }
  return absl::OkStatus();
}

Frontier::AddCandidates Frontier::ScreenLocked(const std::vector<UrlToAdd>& urls,
                                               AddResult& result) {
  // A focused partition's budget may grow (SetPageBudget): its URLs are kept for then.
  const bool budget_spent = focus_ == nullptr && hosts_.totals().pages >= max_pages_total_;
  AddCandidates candidates;
  absl::flat_hash_set<std::string_view> in_batch;
  for (const UrlToAdd& url : urls) {
    if (url.canonical_url.empty() || url.canonical_url.size() > options_.max_url_bytes ||
        url.host_key.empty() || url.host_key.size() > storage::kMaxHostKeyBytes ||
        url.sitemap_level > kMaxSitemapLevel) {
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
    if (const std::optional<uint32_t> host = hosts_.Find(url.host_key); host.has_value()) {
      const HostState& state = hosts_.state(*host);
      if (hosts_.PageCapped(state) || state.seen >= options_.max_urls_per_host) {
        ++result.rejected_by_limit;
        continue;
      }
    }
    if (seen_cache_.enabled()) {
      const uint64_t hash = SeenCache::Hash(url.canonical_url);
      seen_cache_.Prefetch(hash);  // probed below, once every bucket is on its way
      candidates.hashes.push_back(hash);
    }
    candidates.urls.push_back(&url);
  }
  // Known for sure: the answer the store would give, without asking it. Later checks depend
  // only on URLs that are added, so deciding these here instead of after the lookup changes no
  // result. Only the misses go to the store.
  if (!seen_cache_.enabled()) return candidates;
  size_t kept = 0;
  for (size_t i = 0; i < candidates.urls.size(); ++i) {
    if (seen_cache_.Contains(candidates.hashes[i])) {
      ++result.already_seen;
      ++candidates.cache_hits;
      if (candidates.urls[i]->sitemap.lastmod != absl::InfinitePast()) {
        candidates.hinted_seen.push_back(candidates.urls[i]);
      }
      continue;
    }
    candidates.urls[kept] = candidates.urls[i];
    candidates.hashes[kept] = candidates.hashes[i];
    ++kept;
  }
  candidates.urls.resize(kept);
  candidates.hashes.resize(kept);
  return candidates;
}

void Frontier::StageNewUrlsLocked(const AddCandidates& candidates,
                                  const std::vector<std::optional<std::string>>& existing,
                                  Staging& staging, kv::WriteBatch& batch, AddResult& result,
                                  std::vector<uint64_t>& now_stored,
                                  std::vector<std::pair<const UrlToAdd*, std::string>>&
                                      hinted_seen) {
  const absl::Time now = clock_.Now();
  absl::flat_hash_map<std::string_view, uint32_t> new_hosts;
  for (size_t i = 0; i < candidates.urls.size(); ++i) {
    const UrlToAdd& url = *candidates.urls[i];
    if (existing[i].has_value()) {
      ++result.already_seen;
      if (!candidates.hashes.empty()) now_stored.push_back(candidates.hashes[i]);
      if (url.sitemap.lastmod != absl::InfinitePast()) hinted_seen.emplace_back(&url, *existing[i]);
      continue;
    }
    uint32_t index = 0;
    if (const std::optional<uint32_t> host = hosts_.Find(url.host_key); host.has_value()) {
      index = *host;
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
    if (hosts_.PageCapped(state) || state.seen >= options_.max_urls_per_host) {
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
    record.sitemap_level = url.sitemap_level;
    record.sitemap = url.sitemap;
    const QueuePos pos = PosOf(record);
    ++state.seen;
    ++state.queued;
    state.cursor = std::min(state.cursor, pos);
    batch.Put(storage::kUrlsFamily, url.canonical_url, storage::EncodeUrlRecord(record));
    batch.Put(storage::kQueueFamily, storage::QueueKey(index, pos),
              storage::EncodeQueueValue(QueueFlagsOf(record), url.canonical_url));
    if (!candidates.hashes.empty()) now_stored.push_back(candidates.hashes[i]);
    ++result.added;
  }
}

absl::StatusOr<AddResult> Frontier::AddUrls(const std::vector<UrlToAdd>& urls) {
  absl::MutexLock lock(&mu_);
  if (absl::Status status = CheckPartition(urls); !status.ok()) return status;
  if (!layout_.moving() && layout_.resharded_from == 0) return AddOwnLocked(urls, AddResult());
  std::vector<UrlToAdd> own;
  AddResult result;
  if (absl::Status status = HoldForOthersLocked(urls, own, result); !status.ok()) return status;
  return AddOwnLocked(own, result);
}

absl::StatusOr<AddResult> Frontier::AddOwnLocked(const std::vector<UrlToAdd>& urls,
                                                 AddResult result) {
  const AddCandidates candidates = ScreenLocked(urls, result);
  std::vector<std::string> keys;
  keys.reserve(candidates.urls.size());
  for (const UrlToAdd* url : candidates.urls) keys.push_back(url->canonical_url);

  // With an exact cache every candidate left is new: the store would find none of them.
  absl::StatusOr<std::vector<std::optional<std::string>>> existing =
      keys.empty() || seen_cache_exact_ ? std::vector<std::optional<std::string>>(keys.size())
                                        : store_.MultiGet(storage::kUrlsFamily, keys);
  if (!existing.ok()) return existing.status();
  // Candidates in the store once the batch is written: those found and those added.
  std::vector<uint64_t> now_stored;
  Staging staging(hosts_);
  kv::WriteBatch batch;
  std::vector<std::pair<const UrlToAdd*, std::string>> hinted_seen;
  StageNewUrlsLocked(candidates, *existing, staging, batch, result, now_stored, hinted_seen);
  // URLs the cache knew, listed with a lastmod: their records are read only now (few: sitemap
  // entries seen before), so the common link batch costs no read.
  if (!candidates.hinted_seen.empty()) {
    std::vector<std::string> hinted_keys;
    hinted_keys.reserve(candidates.hinted_seen.size());
    for (const UrlToAdd* url : candidates.hinted_seen) hinted_keys.push_back(url->canonical_url);
    absl::StatusOr<std::vector<std::optional<std::string>>> stored =
        store_.MultiGet(storage::kUrlsFamily, hinted_keys);
    if (!stored.ok()) return stored.status();
    for (size_t i = 0; i < hinted_keys.size(); ++i) {
      if ((*stored)[i].has_value()) {
        hinted_seen.emplace_back(candidates.hinted_seen[i], *std::move((*stored)[i]));
      }
    }
  }
  absl::Time earliest_due = absl::InfiniteFuture();
  for (const auto& [url, stored] : hinted_seen) {
    StageSitemapHintsLocked(*url, stored, batch, result, earliest_due);
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
  counters_.seen_cache_hits += candidates.cache_hits;
  counters_.urls_rejected_by_limit += result.rejected_by_limit;
  counters_.urls_invalid += result.invalid;
  counters_.sitemap_lastmod_updates += result.lastmod_updates;
  counters_.lastmod_pulls += result.lastmod_pulls;
  due_scanned_until_ = std::min(due_scanned_until_, earliest_due);
  return result;
}

void Frontier::StageSitemapHintsLocked(const UrlToAdd& url, std::string_view stored,
                                       kv::WriteBatch& batch, AddResult& result,
                                       absl::Time& earliest_due) {
  absl::StatusOr<UrlRecord> decoded = storage::DecodeUrlRecord(stored);
  // Nothing newer said (the same sitemap read again, or an older copy of it).
  if (!decoded.ok() || url.sitemap.lastmod <= decoded->sitemap.lastmod) return;
  UrlRecord record = *std::move(decoded);
  record.sitemap = url.sitemap;
  ++result.lastmod_updates;
  const absl::Time now = clock_.Now();
  const bool holds_content = record.last_outcome == OutcomeClass::kFetched ||
                             record.last_outcome == OutcomeClass::kDuplicate ||
                             record.last_outcome == OutcomeClass::kNotModified;
  // A change since the last visit, claimed by a lastmod that is not in the future (a clock
  // ahead, or a lie).
  const bool claims_change = record.sitemap.lastmod > record.fetch_time &&
                             record.sitemap.lastmod <= now;
  if (revisit_policy_ != nullptr && record.status == UrlStatus::kWaiting &&
      record.attempts == 0 && holds_content && claims_change && LastmodTrusted(record)) {
    // As soon as the minimum interval allows; the budget still caps when it is fetched.
    const absl::Time due = std::max(now, record.fetch_time + options_.revisit.min_interval);
    if (due < record.next_visit) {
      batch.Delete(storage::kDueFamily, storage::DueKey(record.next_visit, url.canonical_url));
      batch.Put(storage::kDueFamily, storage::DueKey(due, url.canonical_url),
                storage::EncodeDueValue(record.host_id));
      record.next_visit = due;
      record.lastmod_pulled = true;
      ++record.lastmod_pulls;
      ++result.lastmod_pulls;
      earliest_due = std::min(earliest_due, due);
    }
  }
  batch.Put(storage::kUrlsFamily, url.canonical_url, storage::EncodeUrlRecord(record));
}

// ---- hints, lookups, stats ---------------------------------------------------------------

absl::StatusOr<size_t> Frontier::ReportHostTimes(const std::vector<HostTime>& times) {
  absl::MutexLock lock(&mu_);
  Staging staging(hosts_);
  for (const HostTime& time : times) {
    const std::optional<uint32_t> host = hosts_.Find(time.host_key);
    if (!host.has_value()) continue;
    staging.State(*host).next_allowed = time.next_allowed;
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
  const HostTable::Totals& totals = hosts_.totals();
  stats.hosts = totals.hosts;
  stats.hosts_with_queued_urls = totals.hosts_with_queued;
  stats.ready_hosts = totals.ready_hosts;
  stats.queued_urls = totals.queued;
  stats.waiting_urls = totals.waiting;
  stats.in_flight_urls = totals.in_flight;
  stats.seen_urls = totals.seen;
  stats.pages_completed = totals.pages;
  stats.next_ready_time =
      hosts_.ready().empty() ? absl::InfiniteFuture() : hosts_.ready().begin()->first;
  stats.held_urls = held_urls_;
  stats.hosts_moving = hosts_moving_;
  stats.exhausted = ExhaustedLocked();
  stats.revisit_budget_visits_per_day = revisit_budget_.visits_per_day();
  stats.revisit_spend_visits_per_day = revisit_budget_.spent_visits_per_day(clock_.Now());
  return stats;
}

std::vector<std::pair<uint32_t, uint64_t>> Frontier::FocusPlanLocked(uint64_t budget,
                                                                     size_t max_per_host) {
  // A host is in the game while it has URLs to fetch or pages in flight that may bring some,
  // and is not blocked by the operator.
  const absl::Time now = clock_.Now();
  std::vector<bool> playable(hosts_.size());
  for (size_t i = 0; i < hosts_.size(); ++i) {
    const HostState& state = hosts_.state(static_cast<uint32_t>(i));
    playable[i] =
        (state.in_flight > 0 || (state.queued + state.waiting > 0 && !hosts_.PageCapped(state))) &&
        hosts_.controls(state).blocked_until <= now;
  }
  focus_->Sync(playable);
  counters_.focus_rebuilds = focus_->rebuilds();
  uint64_t slots = std::min<uint64_t>(
      budget, SaturatingSub(options_.focus.max_in_flight, hosts_.totals().in_flight));
  std::vector<std::pair<uint32_t, uint64_t>> plan;
  while (slots > 0) {
    const int host = focus_->ChooseHost();
    if (host < 0) break;
    const HostState& state = hosts_.state(static_cast<uint32_t>(host));
    auto it = std::find_if(plan.begin(), plan.end(), [&](const auto& p) {
      return p.first == static_cast<uint32_t>(host);
    });
    const uint64_t planned = it == plan.end() ? 0 : it->second;
    const uint64_t room =
        std::min({static_cast<uint64_t>(max_per_host),
                  static_cast<uint64_t>(SaturatingSub(options_.max_in_flight_per_host,
                                                      state.in_flight)),
                  hosts_.PagesLeft(state), state.queued});
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
  const HostTable::Totals& totals = hosts_.totals();
  if (totals.in_flight > 0 || held_urls_ > 0) return false;
  return totals.pending_uncapped == 0 || totals.pages >= max_pages_total_;
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
