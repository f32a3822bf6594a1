#include "services/frontier/routed_frontier_client.h"

#include <xxhash.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/partition/partition.h"
#include "lib/url/host_key.h"
#include "lib/url/url.h"

namespace crawler::frontier {
namespace {

// Seeds the cache's URL hash apart from the partition hash of host keys.
constexpr uint64_t kCacheSeed = 0x5eedcac4e5eedcacull;

uint64_t UrlHash(std::string_view url) {
  const uint64_t h = XXH64(url.data(), url.size(), kCacheSeed);
  return h == 0 ? 1 : h;  // 0 marks an empty slot
}

}  // namespace

RoutedFrontierClient::SentCache::SentCache(size_t entries) {
  if (entries < kWays) return;
  size_t buckets = 1;
  while (buckets * 2 * kWays <= entries) buckets *= 2;
  bucket_mask_ = buckets - 1;
  hashes_.assign(buckets * kWays, 0);
  depths_.assign(buckets * kWays, 0);
}

bool RoutedFrontierClient::SentCache::Covers(uint64_t hash, uint32_t depth) {
  if (hashes_.empty()) return false;
  const size_t base = (hash & bucket_mask_) * kWays;
  for (size_t i = 0; i < kWays; ++i) {
    if (hashes_[base + i] != hash) continue;
    if (depths_[base + i] > depth) return false;
    // Most recent first: rotate the hit to the front of its bucket.
    std::rotate(hashes_.begin() + base, hashes_.begin() + base + i,
                hashes_.begin() + base + i + 1);
    std::rotate(depths_.begin() + base, depths_.begin() + base + i,
                depths_.begin() + base + i + 1);
    return true;
  }
  return false;
}

void RoutedFrontierClient::SentCache::Insert(uint64_t hash, uint32_t depth) {
  if (hashes_.empty()) return;
  const size_t base = (hash & bucket_mask_) * kWays;
  size_t slot = kWays - 1;  // the least recently used, unless the hash is here already
  for (size_t i = 0; i < kWays; ++i) {
    if (hashes_[base + i] == hash) {
      slot = i;
      depth = std::min(depth, depths_[base + i]);
      break;
    }
  }
  std::rotate(hashes_.begin() + base, hashes_.begin() + base + slot,
              hashes_.begin() + base + slot + 1);
  std::rotate(depths_.begin() + base, depths_.begin() + base + slot,
              depths_.begin() + base + slot + 1);
  hashes_[base] = hash;
  depths_[base] = depth;
}

absl::StatusOr<std::unique_ptr<RoutedFrontierClient>> RoutedFrontierClient::Create(
    const RoutingOptions& options, std::vector<FrontierClient*> partitions, uint32_t home) {
  if (partitions.empty() || partitions.size() > 65536) {
    return absl::InvalidArgumentError("routing needs 1 to 65536 partitions");
  }
  for (FrontierClient* p : partitions) {
    if (p == nullptr) return absl::InvalidArgumentError("routing: a partition client is null");
  }
  if (home >= partitions.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("routing: home partition ", home, " of ", partitions.size()));
  }
  if (options.max_batch_urls < 1 || options.max_batch_urls > 65536) {
    return absl::InvalidArgumentError("routing: max_batch_urls must be in [1, 65536]");
  }
  if (options.max_batch_bytes < 1) {
    return absl::InvalidArgumentError("routing: max_batch_bytes must be at least 1");
  }
  return std::unique_ptr<RoutedFrontierClient>(
      new RoutedFrontierClient(options, std::move(partitions), home));
}

RoutedFrontierClient::RoutedFrontierClient(const RoutingOptions& options,
                                           std::vector<FrontierClient*> partitions, uint32_t home)
    : options_(options),
      partitions_(std::move(partitions)),
      home_(home),
      routing_count_(static_cast<uint32_t>(partitions_.size())),
      cache_(options.popular_cache_entries) {
  stats_.sent.assign(partitions_.size(), 0);
  stats_.home = home;
}

uint32_t RoutedFrontierClient::Owner(std::string_view host_key) const {
  const uint32_t count = routing_count();
  return count == 1 ? 0 : partition::Partition(host_key, count);
}

absl::Status RoutedFrontierClient::SetRoutingCount(uint32_t count) {
  if (count < 1 || count > partitions_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("routing: ", count, " of ",
                                                   partitions_.size(), " partitions"));
  }
  routing_count_.store(count, std::memory_order_relaxed);
  return absl::OkStatus();
}

std::vector<std::vector<UrlToAdd>> RoutedFrontierClient::Route(const std::vector<UrlToAdd>& urls,
                                                                AddResult& result) {
  std::vector<std::vector<UrlToAdd>> by_partition(partitions_.size());
  absl::MutexLock lock(&mu_);
  stats_.routed += urls.size();
  for (const UrlToAdd& url : urls) {
    // A sitemap's lastmod is news for a URL already sent: it must reach the partition.
    if (url.sitemap.lastmod == absl::InfinitePast() &&
        cache_.Covers(UrlHash(url.canonical_url), url.depth)) {
      ++stats_.suppressed;
      ++result.already_seen;
      continue;
    }
    by_partition[Owner(url.host_key)].push_back(url);
  }
  return by_partition;
}

absl::StatusOr<AddResult> RoutedFrontierClient::Deliver(uint32_t partition,
                                                        std::vector<UrlToAdd> urls) {
  AddResult result;
  for (size_t begin = 0, end = 0; begin < urls.size(); begin = end) {
    size_t bytes = 0;
    while (end < urls.size() && end - begin < options_.max_batch_urls) {
      // The strings as the request carries them, and the tags, lengths and numbers beside them.
      const UrlToAdd& url = urls[end];
      const size_t size =
          url.canonical_url.size() + url.host_key.size() + url.discovered_from.size() + 24;
      if (end > begin && bytes + size > options_.max_batch_bytes) break;
      bytes += size;
      ++end;
    }
    std::vector<UrlToAdd> batch;
    if (begin == 0 && end == urls.size()) {
      batch = std::move(urls);
    } else {
      batch.assign(std::make_move_iterator(urls.begin() + begin),
                   std::make_move_iterator(urls.begin() + end));
    }
    absl::StatusOr<AddResult> added = partitions_[partition]->AddUrls(batch);
    if (!added.ok()) return added.status();
    result += *added;
    absl::MutexLock lock(&mu_);
    ++stats_.batches;
    stats_.sent[partition] += batch.size();
    // Only now: a URL is suppressed later only once its partition holds it.
    for (const UrlToAdd& url : batch) cache_.Insert(UrlHash(url.canonical_url), url.depth);
  }
  return result;
}

absl::StatusOr<AddResult> RoutedFrontierClient::AddUrls(const std::vector<UrlToAdd>& urls) {
  AddResult result;
  std::vector<std::vector<UrlToAdd>> by_partition = Route(urls, result);
  for (uint32_t k = 0; k < partitions_.size(); ++k) {
    if (by_partition[k].empty()) continue;
    absl::StatusOr<AddResult> added = Deliver(k, std::move(by_partition[k]));
    if (!added.ok()) return added.status();
    result += *added;
  }
  return result;
}

absl::StatusOr<std::vector<LeasedTask>> RoutedFrontierClient::Lease(size_t max_urls,
                                                                    size_t max_per_host) {
  return partitions_[home_]->Lease(max_urls, max_per_host);
}

absl::StatusOr<CompleteResult> RoutedFrontierClient::Complete(
    const std::vector<FetchOutcome>& outcomes) {
  return partitions_[home_]->Complete(outcomes);
}

absl::StatusOr<size_t> RoutedFrontierClient::ReleaseLeases(
    const std::vector<LeaseId>& lease_ids) {
  return partitions_[home_]->ReleaseLeases(lease_ids);
}

absl::StatusOr<FetcherControlTable> RoutedFrontierClient::HostControls(uint64_t known_version) {
  return partitions_[home_]->HostControls(known_version);
}

absl::StatusOr<size_t> RoutedFrontierClient::ReportHostTimes(const std::vector<HostTime>& times) {
  if (partitions_.size() == 1) return partitions_[0]->ReportHostTimes(times);
  std::vector<std::vector<HostTime>> by_partition(partitions_.size());
  for (const HostTime& t : times) by_partition[Owner(t.host_key)].push_back(t);
  size_t updated = 0;
  for (size_t k = 0; k < partitions_.size(); ++k) {
    if (by_partition[k].empty()) continue;
    absl::StatusOr<size_t> n = partitions_[k]->ReportHostTimes(by_partition[k]);
    if (!n.ok()) return n.status();
    updated += *n;
  }
  return updated;
}

absl::StatusOr<bool> RoutedFrontierClient::IsExhausted() {
  if (partitions_.size() == 1) return partitions_[0]->IsExhausted();
  std::vector<uint64_t> added(partitions_.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < partitions_.size(); ++k) {
      absl::StatusOr<FrontierStats> s = partitions_[k]->Stats();
      if (!s.ok()) return s.status();
      if (!s->exhausted) return false;
      if (pass == 0) {
        added[k] = s->urls_added;
      } else if (s->urls_added != added[k]) {
        return false;
      }
    }
  }
  return true;
}

absl::StatusOr<FrontierStats> RoutedFrontierClient::Stats() {
  FrontierStats sum;
  sum.exhausted = true;
  for (FrontierClient* p : partitions_) {
    absl::StatusOr<FrontierStats> s = p->Stats();
    if (!s.ok()) return s.status();
    sum.hosts += s->hosts;
    sum.hosts_with_queued_urls += s->hosts_with_queued_urls;
    sum.ready_hosts += s->ready_hosts;
    sum.queued_urls += s->queued_urls;
    sum.waiting_urls += s->waiting_urls;
    sum.in_flight_urls += s->in_flight_urls;
    sum.seen_urls += s->seen_urls;
    sum.pages_completed += s->pages_completed;
    sum.next_ready_time = std::min(sum.next_ready_time, s->next_ready_time);
    sum.urls_added += s->urls_added;
    sum.urls_already_seen += s->urls_already_seen;
    sum.seen_cache_hits += s->seen_cache_hits;
    sum.urls_rejected_by_limit += s->urls_rejected_by_limit;
    sum.urls_invalid += s->urls_invalid;
    sum.sitemap_lastmod_updates += s->sitemap_lastmod_updates;
    sum.lastmod_pulls += s->lastmod_pulls;
    sum.leases_granted += s->leases_granted;
    sum.leases_expired += s->leases_expired;
    sum.leases_recovered += s->leases_recovered;
    sum.leases_restored += s->leases_restored;
    sum.leases_released += s->leases_released;
    sum.completions_accepted += s->completions_accepted;
    sum.completions_unknown += s->completions_unknown;
    sum.retries_scheduled += s->retries_scheduled;
    sum.revisits_scheduled += s->revisits_scheduled;
    sum.changes_detected += s->changes_detected;
    sum.due_promoted += s->due_promoted;
    sum.revisits_waited += s->revisits_waited;
    sum.revisit_wait_seconds += s->revisit_wait_seconds;
    sum.revisit_budget_visits_per_day += s->revisit_budget_visits_per_day;
    sum.revisits_completed += s->revisits_completed;
    sum.revisit_spend_visits_per_day += s->revisit_spend_visits_per_day;
    sum.repairs += s->repairs;
    sum.focus_pulls += s->focus_pulls;
    sum.focus_reward += s->focus_reward;
    sum.focus_rebuilds += s->focus_rebuilds;
    sum.held_urls += s->held_urls;
    sum.hosts_moving += s->hosts_moving;
    sum.exhausted = sum.exhausted && s->exhausted;
  }
  return sum;
}

absl::StatusOr<std::vector<std::optional<UrlRecord>>> RoutedFrontierClient::LookupUrls(
    const std::vector<std::string>& canonical_urls) {
  if (partitions_.size() == 1) return partitions_[0]->LookupUrls(canonical_urls);
  std::vector<std::vector<std::string>> by_partition(partitions_.size());
  std::vector<std::pair<uint32_t, size_t>> where;  // (partition, index in its batch) per URL
  where.reserve(canonical_urls.size());
  for (const std::string& u : canonical_urls) {
    absl::StatusOr<url::Url> parsed = url::Url::Parse(u);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("not a URL: ", u, " (", parsed.status().message(), ")"));
    }
    const uint32_t owner = Owner(url::HostKey::Of(*parsed).str());
    where.emplace_back(owner, by_partition[owner].size());
    by_partition[owner].push_back(u);
  }
  std::vector<std::vector<std::optional<UrlRecord>>> found(partitions_.size());
  for (size_t k = 0; k < partitions_.size(); ++k) {
    if (by_partition[k].empty()) continue;
    absl::StatusOr<std::vector<std::optional<UrlRecord>>> records =
        partitions_[k]->LookupUrls(by_partition[k]);
    if (!records.ok()) return records.status();
    if (records->size() != by_partition[k].size()) {
      return absl::InternalError(absl::StrCat("partition ", k, " answered ", records->size(),
                                              " lookups for ", by_partition[k].size()));
    }
    found[k] = *std::move(records);
  }
  std::vector<std::optional<UrlRecord>> out;
  out.reserve(canonical_urls.size());
  for (const auto& [k, i] : where) out.push_back(std::move(found[k][i]));
  return out;
}

absl::StatusOr<RevisitStatus> RoutedFrontierClient::GetRevisitStatus() {
  RevisitStatus merged;
  for (FrontierClient* p : partitions_) {
    absl::StatusOr<RevisitStatus> s = p->GetRevisitStatus();
    if (!s.ok()) return s.status();
    merged.enabled = s->enabled;
    merged.policy = s->policy;
    merged.rates.Merge(s->rates);
    merged.changes_seen += s->changes_seen;
    merged.days_observed += s->days_observed;
    merged.pending_urls += s->pending_urls;
  }
  return merged;
}

absl::Status RoutedFrontierClient::RetuneRevisits(const recrawl::FleetSummary& fleet) {
  for (FrontierClient* p : partitions_) {
    if (absl::Status s = p->RetuneRevisits(fleet); !s.ok()) return s;
  }
  return absl::OkStatus();
}

RoutingStats RoutedFrontierClient::Routing() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace crawler::frontier
