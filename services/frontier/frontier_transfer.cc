// Frontier::ExportHost, ImportHost and ForgetHost: one host's state moved between partitions
// (host_transfer.h). Split from frontier.cc only for size; the class contract is in frontier.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/partition/partition.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_internal.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

using internal::kMaxUrlsPerInternalBatch;
using internal::SaturatingSub;

namespace {

// ExportHost's position: "q" + the last queue key exported (the queued URLs, in queue order),
// then "u" + the last URL exported (the others, in URL order).
constexpr char kQueuePhase = 'q';
constexpr char kUrlPhase = 'u';

}  // namespace

absl::StatusOr<uint32_t> Frontier::MovingHostLocked(std::string_view host_key) const {
  if (focus_ != nullptr) {
    return absl::FailedPreconditionError("the hosts of a focused collection do not move");
  }
  const std::optional<uint32_t> host = hosts_.Find(host_key);
  if (!host.has_value() || !hosts_.state(*host).HoldsUrls()) {
    return absl::NotFoundError(
        absl::StrCat("this partition holds no host ", std::string(host_key)));
  }
  if (const uint32_t leased = hosts_.state(*host).in_flight; leased > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("host ", std::string(host_key), " has ", leased, " URL(s) on lease"));
  }
  return *host;
}

absl::StatusOr<HostChunk> Frontier::ExportHost(std::string_view host_key, std::string_view after,
                                               size_t max_urls) const {
  if (max_urls == 0) return absl::InvalidArgumentError("a chunk holds at least one URL");
  if (!after.empty() && after[0] != kQueuePhase && after[0] != kUrlPhase) {
    return absl::InvalidArgumentError("not a position of this host's export");
  }
  absl::ReaderMutexLock lock(&mu_);
  const absl::StatusOr<uint32_t> host = MovingHostLocked(host_key);
  if (!host.ok()) return host.status();
  const HostState& state = hosts_.state(*host);
  HostChunk chunk{.host_key = std::string(host_key)};
  // The queued URLs, with their entries' positions.
  if (after.empty() || after[0] == kQueuePhase) {
    const std::string prefix = storage::QueueHostPrefix(*host);
    const std::string begin = after.empty() ? prefix : std::string(after.substr(1)) + '\0';
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
        store_.NewIterator(storage::kQueueFamily, begin, kv::PrefixSuccessor(prefix));
    if (!it.ok()) return it.status();
    std::string last_key;
    for (; (*it)->Valid() && chunk.urls.size() < max_urls; (*it)->Next()) {
      absl::StatusOr<storage::QueueKeyParts> key = storage::DecodeQueueKey((*it)->key());
      absl::StatusOr<storage::QueueEntry> entry = storage::DecodeQueueValue((*it)->value());
      if (!key.ok()) return key.status();
      if (!entry.ok()) return entry.status();
      chunk.urls.push_back(MovedUrl{
          .url = std::move(entry->url), .queue_pos = key->pos, .queue_flags = entry->flags});
      last_key = std::string((*it)->key());
    }
    if (absl::Status status = (*it)->status(); !status.ok()) return status;
    std::vector<std::string> urls;
    urls.reserve(chunk.urls.size());
    for (const MovedUrl& u : chunk.urls) urls.push_back(u.url);
    absl::StatusOr<std::vector<std::optional<std::string>>> values =
        store_.MultiGet(storage::kUrlsFamily, urls);
    if (!values.ok()) return values.status();
    for (size_t i = 0; i < urls.size(); ++i) {
      if (!(*values)[i].has_value()) {
        return absl::DataLossError(absl::StrCat("queued URL ", urls[i], " has no record"));
      }
      absl::StatusOr<UrlRecord> record = storage::DecodeUrlRecord(*(*values)[i]);
      if (!record.ok()) return record.status();
      chunk.urls[i].record = *std::move(record);
    }
    if (chunk.urls.size() == max_urls) {
      chunk.next = absl::StrCat(std::string(1, kQueuePhase), last_key);
      return chunk;
    }
    after = "";
  }
  // Then every other URL of the host: done, waiting, dropped (their records only).
  const std::string_view from = after.empty() ? std::string_view() : after.substr(1);
  std::string last_url;
  absl::Status status =
      VisitHostUrlsLocked(*host, from, [&](std::string_view url, const UrlRecord& record) {
        if (chunk.urls.size() >= max_urls) return false;
        last_url = std::string(url);
        if (record.status == UrlStatus::kQueued) return true;  // with its queue entry above
        chunk.urls.push_back(MovedUrl{.url = std::string(url), .record = record});
        return true;
      });
  if (!status.ok()) return status;
  if (chunk.urls.size() >= max_urls) {
    chunk.next = absl::StrCat(std::string(1, kUrlPhase), last_url);
    return chunk;
  }
  storage::HostRecord header = hosts_.ToRecord(*host, state);
  header.host_id = 0;
  chunk.header = header;
  return chunk;
}

absl::Status Frontier::ImportHost(const HostChunk& chunk) {
  const std::string& key = chunk.host_key;
  if (key.empty() || key.size() > storage::kMaxHostKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("host key must have 1 to ", storage::kMaxHostKeyBytes, " bytes"));
  }
  absl::MutexLock lock(&mu_);
  if (partition::RouteAt(layout_, options_.partition_index, key) != partition::Routing::kOwn) {
    return absl::FailedPreconditionError(absl::StrCat(
        "host ", key, " belongs to partition ", layout_.NewOwner(key), " (",
        layout_.Describe(), "), not to this frontier (partition ", options_.partition_index,
        ")"));
  }
  if (focus_ != nullptr) {
    return absl::FailedPreconditionError("the hosts of a focused collection do not move");
  }
  std::optional<uint32_t> found = hosts_.Find(key);
  if (found.has_value() && hosts_.state(*found).HoldsUrls()) {
    return absl::AlreadyExistsError(absl::StrCat("this partition holds host ", key, " already"));
  }
  // The URLs: stored under this partition's host id, invisible until the header comes.
  Staging staging(hosts_);
  // A new host gets the next id and an empty header, written with the URLs.
  const uint32_t host = found.has_value() ? *found : staging.AddHost(key);
  kv::WriteBatch batch;
  std::vector<uint64_t> hashes;
  for (const MovedUrl& moved : chunk.urls) {
    if (seen_cache_.enabled()) hashes.push_back(SeenCache::Hash(moved.url));
    UrlRecord record = moved.record;
    record.host_id = host;
    batch.Put(storage::kUrlsFamily, moved.url, storage::EncodeUrlRecord(record));
    if (moved.queue_pos.has_value()) {
      batch.Put(storage::kQueueFamily, storage::QueueKey(host, *moved.queue_pos),
                storage::EncodeQueueValue(moved.queue_flags, moved.url));
    }
    if (record.status == UrlStatus::kWaiting) {
      batch.Put(storage::kDueFamily, storage::DueKey(record.next_visit, moved.url),
                storage::EncodeDueValue(host));
    }
  }
  if (absl::Status status = CommitLocked(batch, staging); !status.ok()) {
    seen_cache_exact_ = false;
    return status;
  }
  // The imported URLs are seen here now: an exact cache must hold them all.
  for (const uint64_t hash : hashes) seen_cache_.Insert(hash);
  if (seen_cache_.forgot()) seen_cache_exact_ = false;
  if (!chunk.header.has_value()) return absl::OkStatus();

  // The last chunk: every URL of the host is stored. Its re-visit pages join the fleet, read
  // back from the store so that a chunk imported twice counts once.
  std::optional<RevisitFleet> fleet;
  uint64_t revisits = 0;
  absl::Time earliest_due = absl::InfiniteFuture();
  absl::Status status = VisitHostUrlsLocked(
      host, "", [&](std::string_view, const UrlRecord& record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        if (record.status == UrlStatus::kQueued && record.fetch_count > 0) ++revisits;
        if (record.status == UrlStatus::kWaiting) {
          earliest_due = std::min(earliest_due, record.next_visit);
        }
        if (!record.visit_history.empty()) {
          if (!fleet.has_value()) fleet = revisit_fleet_;
          JoinRevisitFleet(record, *fleet);
        }
        return true;
      });
  if (!status.ok()) return status;
  const storage::HostRecord& header = *chunk.header;
  HostState state = HostTable::FromRecord(header);
  state.controls = hosts_.state(host).controls;  // the slot of its controls, if it had one
  storage::HostRecord record = hosts_.ToRecord(host, state);
  record.controls = header.controls;
  kv::WriteBatch last;
  last.Put(storage::kHostsFamily, key, storage::EncodeHostRecord(record));
  if (fleet.has_value()) PutRevisitFleet(*fleet, last);
  if (absl::Status written = store_.Write(last); !written.ok()) return written;
  hosts_.Set(host, state);
  if (!header.controls.IsDefault() || state.controls != 0) {
    hosts_.SetControls(host, header.controls);
    ++controls_version_;
  }
  if (fleet.has_value()) revisit_fleet_ = *std::move(fleet);
  revisits_queued_ += revisits;
  // Waiting URLs due before the due index's scan mark would never be promoted.
  due_scanned_until_ = std::min(due_scanned_until_, earliest_due);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> Frontier::ForgetHost(std::string_view host_key) {
  absl::MutexLock lock(&mu_);
  const absl::StatusOr<uint32_t> host = MovingHostLocked(host_key);
  if (!host.ok()) return host.status();
  const HostState& state = hosts_.state(*host);
  // Deleted in batches of bounded size; the header is emptied last, so a ForgetHost cut short
  // is finished by the next one.
  kv::WriteBatch batch;
  size_t in_batch = 0;
  auto flush = [&]() -> absl::Status {
    if (in_batch == 0) return absl::OkStatus();
    absl::Status status = store_.Write(batch);
    batch = kv::WriteBatch();
    in_batch = 0;
    return status;
  };
  {
    const std::string prefix = storage::QueueHostPrefix(*host);
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
        store_.NewIterator(storage::kQueueFamily, prefix, kv::PrefixSuccessor(prefix));
    if (!it.ok()) return it.status();
    for (; (*it)->Valid(); (*it)->Next()) {
      batch.Delete(storage::kQueueFamily, (*it)->key());
      if (++in_batch >= kMaxUrlsPerInternalBatch) {
        if (absl::Status status = flush(); !status.ok()) return status;
      }
    }
    if (absl::Status status = (*it)->status(); !status.ok()) return status;
  }
  uint64_t urls = 0;
  uint64_t revisits = 0;
  std::optional<RevisitFleet> fleet;
  absl::Status write_status = absl::OkStatus();
  absl::Status status = VisitHostUrlsLocked(
      *host, "",
      [&](std::string_view url, const UrlRecord& record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        batch.Delete(storage::kUrlsFamily, url);
        if (record.status == UrlStatus::kWaiting) {
          batch.Delete(storage::kDueFamily, storage::DueKey(record.next_visit, url));
        }
        if (record.status == UrlStatus::kQueued && record.fetch_count > 0) ++revisits;
        if (!record.visit_history.empty()) {
          if (!fleet.has_value()) fleet = revisit_fleet_;
          UrlRecord leaving = record;
          LeaveRevisitFleet(leaving, *fleet);
        }
        ++urls;
        if (++in_batch >= kMaxUrlsPerInternalBatch) {
          write_status = flush();
          if (!write_status.ok()) return false;
        }
        return true;
      });
  if (!status.ok()) return status;
  if (!write_status.ok()) return write_status;
  // The empty header (the id stays), the controls cleared, the fleet without the host's pages.
  HostState empty;
  empty.controls = state.controls;
  storage::HostRecord record = hosts_.ToRecord(*host, empty);
  record.controls = HostControls{};
  batch.Put(storage::kHostsFamily, host_key, storage::EncodeHostRecord(record));
  if (fleet.has_value()) PutRevisitFleet(*fleet, batch);
  if (state.moving) {
    batch.Delete(storage::kMetaFamily, storage::MovingKey(host_key));
  }
  in_batch = 1;
  if (absl::Status written = flush(); !written.ok()) return written;
  if (state.moving) --hosts_moving_;
  hosts_.Set(*host, empty);
  if (empty.controls != 0) {
    hosts_.SetControls(*host, HostControls{});
    ++controls_version_;
  }
  if (fleet.has_value()) revisit_fleet_ = *std::move(fleet);
  revisits_queued_ = SaturatingSub(revisits_queued_, revisits);
  return urls;
}

// ---- Resharding a running crawl ------------------------------------------------------------

partition::PartitionLayout Frontier::Layout() const {
  absl::ReaderMutexLock lock(&mu_);
  return layout_;
}

absl::Status Frontier::SetLayout(const partition::PartitionLayout& layout) {
  if (absl::Status status = partition::ValidateLayout(layout, options_.partition_index);
      !status.ok()) {
    return status;
  }
  absl::MutexLock lock(&mu_);
  if (layout_.moving() && layout.reshard_to != layout_.reshard_to && hosts_moving_ > 0) {
    // The move these hosts were marked for is off: they work here again.
    kv::WriteBatch batch;
    std::vector<uint32_t> moving;
    for (uint32_t host = 0; host < hosts_.size(); ++host) {
      if (!hosts_.state(host).moving) continue;
      moving.push_back(host);
      batch.Delete(storage::kMetaFamily,
                   storage::MovingKey(hosts_.key(host)));
    }
    if (absl::Status status = store_.Write(batch); !status.ok()) return status;
    for (const uint32_t host : moving) {
      HostState state = hosts_.state(host);
      state.moving = false;
      hosts_.Set(host, state);
    }
    hosts_moving_ = 0;
    // Their due URLs were passed over by the promotion scans meanwhile.
    due_scanned_until_ = absl::InfinitePast();
  }
  layout_ = layout;
  return absl::OkStatus();
}

partition::Routing Frontier::RouteLocked(std::string_view host_key) const {
  const partition::Routing routing =
      partition::RouteAt(layout_, options_.partition_index, host_key);
  if (routing != partition::Routing::kOwn || !layout_.moving() ||
      layout_.NewOwner(host_key) == options_.partition_index) {
    return routing;
  }
  // Owned here until the move: taken only while the host is here and not on its way.
  const std::optional<uint32_t> host = hosts_.Find(host_key);
  if (host.has_value() && hosts_.state(*host).HoldsUrls() && !hosts_.state(*host).moving) {
    return partition::Routing::kOwn;
  }
  return partition::Routing::kHold;
}

absl::Status Frontier::HoldForOthersLocked(const std::vector<UrlToAdd>& urls,
                                           std::vector<UrlToAdd>& own, AddResult& result) {
  kv::WriteBatch batch;
  uint64_t seq = next_held_seq_;
  size_t held = 0;
  for (const UrlToAdd& url : urls) {
    if (url.canonical_url.empty() || url.canonical_url.size() > options_.max_url_bytes ||
        url.host_key.empty() || url.host_key.size() > storage::kMaxHostKeyBytes ||
        url.sitemap_level > kMaxSitemapLevel) {
      ++result.invalid;
      continue;
    }
    if (RouteLocked(url.host_key) == partition::Routing::kOwn) {
      own.push_back(url);
      continue;
    }
    storage::HeldUrl value{.canonical_url = url.canonical_url,
                           .host_key = url.host_key,
                           .depth = url.depth,
                           .priority = url.priority,
                           .sitemap_level = url.sitemap_level,
                           .sitemap = url.sitemap};
    if (url.discovered_from.size() <= options_.max_url_bytes) {
      value.discovered_from = url.discovered_from;
    }
    batch.Put(storage::kMetaFamily, storage::HeldKey(seq++), storage::EncodeHeldUrl(value));
    ++held;
  }
  if (held == 0) return absl::OkStatus();
  if (absl::Status status = store_.Write(batch); !status.ok()) return status;
  next_held_seq_ = seq;
  held_urls_ += held;
  result.held += held;
  return absl::OkStatus();
}

absl::StatusOr<HostsToMove> Frontier::ListHostsToMove(uint64_t after, size_t max_hosts) const {
  if (max_hosts == 0) return absl::InvalidArgumentError("a page holds at least one host");
  absl::ReaderMutexLock lock(&mu_);
  HostsToMove page;
  if (!layout_.moving()) return page;
  for (uint64_t host = 0; host < hosts_.size(); ++host) {
    const auto id = static_cast<uint32_t>(host);
    if (!hosts_.state(id).HoldsUrls() ||
        layout_.NewOwner(hosts_.key(id)) == options_.partition_index) {
      continue;
    }
    ++page.total;
    if (host < after) continue;
    if (page.host_keys.size() < max_hosts) {
      page.host_keys.emplace_back(hosts_.key(id));
    } else if (page.next == 0) {
      page.next = host;  // the first host of the next page
    }
  }
  return page;
}

absl::StatusOr<uint32_t> Frontier::BeginHostMove(std::string_view host_key) {
  absl::MutexLock lock(&mu_);
  if (focus_ != nullptr) {
    return absl::FailedPreconditionError("the hosts of a focused collection do not move");
  }
  if (!layout_.moving() || layout_.NewOwner(host_key) == options_.partition_index) {
    return absl::FailedPreconditionError(absl::StrCat("host ", std::string(host_key),
                                                      " does not move away (",
                                                      layout_.Describe(), ")"));
  }
  const std::optional<uint32_t> host = hosts_.Find(host_key);
  if (!host.has_value() || !hosts_.state(*host).HoldsUrls()) {
    return absl::NotFoundError(
        absl::StrCat("this partition holds no host ", std::string(host_key)));
  }
  HostState state = hosts_.state(*host);
  if (!state.moving) {
    kv::WriteBatch batch;
    batch.Put(storage::kMetaFamily, storage::MovingKey(host_key), "");
    if (absl::Status status = store_.Write(batch); !status.ok()) return status;
    state.moving = true;
    hosts_.Set(*host, state);
    ++hosts_moving_;
  }
  return state.in_flight;
}

absl::StatusOr<HeldUrls> Frontier::ListHeldUrls(uint64_t after, size_t max_urls) const {
  if (max_urls == 0) return absl::InvalidArgumentError("a page holds at least one URL");
  absl::ReaderMutexLock lock(&mu_);
  HeldUrls page{.total = held_urls_};
  if (held_urls_ == 0) return page;
  const std::string prefix(storage::kMetaHeldPrefix);
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it = store_.NewIterator(
      storage::kMetaFamily, storage::HeldKey(after + 1), kv::PrefixSuccessor(prefix));
  if (!it.ok()) return it.status();
  // Bounded work per page: held URLs of hosts still here are passed over, up to a limit.
  size_t scanned = 0;
  const size_t max_scanned = std::max<size_t>(max_urls * 8, 1024);
  for (; (*it)->Valid(); (*it)->Next()) {
    absl::StatusOr<uint64_t> seq = storage::DecodeHeldKey((*it)->key());
    if (!seq.ok()) return seq.status();
    if (page.urls.size() >= max_urls || scanned >= max_scanned) {
      page.next = *seq - 1;
      break;
    }
    ++scanned;
    absl::StatusOr<storage::HeldUrl> held = storage::DecodeHeldUrl((*it)->value());
    if (!held.ok()) return held.status();
    // A host still here waits for its move: its URLs go after it, where it lands.
    if (const std::optional<uint32_t> host = hosts_.Find(held->host_key);
        host.has_value() && hosts_.state(*host).HoldsUrls() &&
        (hosts_.state(*host).moving ||
         layout_.NewOwner(held->host_key) != options_.partition_index)) {
      continue;
    }
    page.urls.push_back(HeldUrl{.seq = *seq,
                                .url = UrlToAdd{.canonical_url = std::move(held->canonical_url),
                                                .host_key = std::move(held->host_key),
                                                .depth = held->depth,
                                                .discovered_from =
                                                    std::move(held->discovered_from),
                                                .priority = held->priority,
                                                .sitemap_level = held->sitemap_level,
                                                .sitemap = held->sitemap}});
  }
  if (absl::Status status = (*it)->status(); !status.ok()) return status;
  return page;
}

absl::Status Frontier::DeleteHeldUrls(const std::vector<uint64_t>& seqs) {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> keys;
  keys.reserve(seqs.size());
  for (const uint64_t seq : seqs) keys.push_back(storage::HeldKey(seq));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  absl::StatusOr<std::vector<std::optional<std::string>>> values =
      store_.MultiGet(storage::kMetaFamily, keys);
  if (!values.ok()) return values.status();
  kv::WriteBatch batch;
  uint64_t deleted = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!(*values)[i].has_value()) continue;  // deleted before: a repeated call
    batch.Delete(storage::kMetaFamily, keys[i]);
    ++deleted;
  }
  if (deleted == 0) return absl::OkStatus();
  if (absl::Status status = store_.Write(batch); !status.ok()) return status;
  held_urls_ = SaturatingSub(held_urls_, deleted);
  return absl::OkStatus();
}

absl::Status Frontier::RecoverReshardLocked() {
  kv::WriteBatch stale;
  {
    const std::string prefix(storage::kMetaMovingPrefix);
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
        store_.NewIterator(storage::kMetaFamily, prefix, kv::PrefixSuccessor(prefix));
    if (!it.ok()) return it.status();
    for (; (*it)->Valid(); (*it)->Next()) {
      const std::string_view key = (*it)->key().substr(prefix.size());
      const std::optional<uint32_t> host = hosts_.Find(key);
      // A mark outlives its move when the layout no longer moves the host: it works here again.
      if (!layout_.moving() || !host.has_value() || !hosts_.state(*host).HoldsUrls() ||
          layout_.NewOwner(key) == options_.partition_index) {
        stale.Delete(storage::kMetaFamily, (*it)->key());
        continue;
      }
      HostState state = hosts_.state(*host);
      state.moving = true;
      hosts_.Set(*host, state);
      ++hosts_moving_;
    }
    if (absl::Status status = (*it)->status(); !status.ok()) return status;
  }
  {
    const std::string prefix(storage::kMetaHeldPrefix);
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
        store_.NewIterator(storage::kMetaFamily, prefix, kv::PrefixSuccessor(prefix));
    if (!it.ok()) return it.status();
    for (; (*it)->Valid(); (*it)->Next()) {
      absl::StatusOr<uint64_t> seq = storage::DecodeHeldKey((*it)->key());
      if (!seq.ok()) return seq.status();
      ++held_urls_;
      next_held_seq_ = std::max(next_held_seq_, *seq + 1);
    }
    if (absl::Status status = (*it)->status(); !status.ok()) return status;
  }
  return stale.empty() ? absl::OkStatus() : store_.Write(stale);
}

}  // namespace crawler::frontier
