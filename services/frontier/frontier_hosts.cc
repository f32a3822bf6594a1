// Frontier's host control (host_api.h): the operator's view of one partition's hosts and the
// controls it sets on them. Split from frontier.cc for size; the contract is in frontier.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
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
namespace {

using internal::PosOf;
using internal::SaturatingSub;

// This abseil's string_view is its own type: StrCat takes std::string_views through this.
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

constexpr uint32_t kDefaultPageSize = 100;
constexpr uint32_t kMaxPageSize = 1000;
// A delay longer than this is a block in disguise: the operator should block the host.
constexpr absl::Duration kMaxHostDelay = absl::Hours(24);

absl::StatusOr<size_t> PageSize(uint32_t page_size) {
  if (page_size == 0) return kDefaultPageSize;
  if (page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size ", page_size, " is out of range [1, ", kMaxPageSize, "]"));
  }
  return page_size;
}

bool MatchesSuffix(std::string_view key, std::string_view suffix) {
  if (suffix.empty() || key == suffix) return true;
  return key.size() > suffix.size() && key.ends_with(suffix) &&
         key[key.size() - suffix.size() - 1] == '.';
}

bool IsError(const UrlRecord& record) {
  return record.last_outcome == OutcomeClass::kNetworkError ||
         (record.last_outcome == OutcomeClass::kHttpError &&
          (record.http_status >= 500 || record.http_status == 429));
}

}  // namespace

absl::StatusOr<uint32_t> Frontier::OperatorHostLocked(std::string_view host_key) const {
  if (host_key.empty() || host_key.size() > storage::kMaxHostKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat("host key must have 1 to ",
                                                   storage::kMaxHostKeyBytes, " bytes"));
  }
  if (partition::RouteAt(layout_, options_.partition_index, host_key) ==
      partition::Routing::kRefuse) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host ", A(host_key), " belongs to partition ", layout_.Owner(host_key), " of ",
        layout_.count, ", not to this frontier (partition ", options_.partition_index, ")"));
  }
  const std::optional<uint32_t> host = hosts_.Find(host_key);
  // A host that moved to another partition keeps its id here with an empty header.
  if (!host.has_value() || !hosts_.state(*host).HoldsUrls()) {
    return absl::NotFoundError(absl::StrCat("host ", A(host_key), " is not in this collection"));
  }
  return *host;
}

absl::Status Frontier::NotMovingLocked(uint32_t host) const {
  if (!hosts_.state(host).moving) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "host ", A(hosts_.key(host)), " is moving to partition ",
      layout_.NewOwner(hosts_.key(host)), "; try again once it is there"));
}

HostSummary Frontier::SummaryLocked(uint32_t host, absl::Time now) const {
  const HostState& state = hosts_.state(host);
  HostSummary summary;
  summary.host_key = std::string(hosts_.key(host));
  summary.queued = state.queued;
  summary.in_flight = state.in_flight;
  summary.waiting = state.waiting;
  summary.controls = hosts_.controls(state);
  summary.dropped = summary.controls.dropped_urls;
  summary.seen = state.seen;
  summary.done = SaturatingSub(state.seen, state.queued + state.in_flight + state.waiting +
                                               summary.dropped);
  summary.pages = state.pages;
  summary.errors = state.errors;
  summary.next_allowed = state.next_allowed;
  summary.max_pages = hosts_.MaxPages(state);
  if (hosts_.Eligible(state)) summary.next_due = std::max(hosts_.ReadyTime(state), now);
  summary.partition = options_.partition_index;
  return summary;
}

absl::Status Frontier::VisitHostUrlsLocked(
    uint32_t host, std::string_view after,
    const std::function<bool(std::string_view url, const UrlRecord& record)>& visit) const {
  const std::string_view key = hosts_.key(host);
  // Canonical URLs of a host start with its scheme and key (http before https in key order).
  for (const std::string_view scheme : {"http://", "https://"}) {
    const std::string prefix = absl::StrCat(A(scheme), A(key), "/");
    const std::string end = kv::PrefixSuccessor(prefix);
    if (!after.empty() && after >= end) continue;
    std::string begin = prefix;
    if (after >= prefix) begin = std::string(after) + '\0';
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
        store_.NewIterator(storage::kUrlsFamily, begin, end);
    if (!it.ok()) return it.status();
    for (; (*it)->Valid(); (*it)->Next()) {
      absl::StatusOr<UrlRecord> record = storage::DecodeUrlRecord((*it)->value());
      if (!record.ok() || record->host_id != host) continue;
      if (!visit((*it)->key(), *record)) return absl::OkStatus();
    }
    if (absl::Status status = (*it)->status(); !status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<ListHostsResult> Frontier::ListHosts(const ListHostsRequest& request) const {
  absl::StatusOr<size_t> page_size = PageSize(request.page_size);
  if (!page_size.ok()) return page_size.status();
  if (request.order != HostOrder::kQueued && request.order != HostOrder::kErrors &&
      request.order != HostOrder::kNextDue) {
    return absl::InvalidArgumentError("unknown host order");
  }
  // The token is the offset of the page in the ordering; the order moves while the crawl
  // runs, so a host may show on two pages or on none of a listing made during it.
  uint64_t offset = 0;
  if (!request.page_token.empty() && !absl::SimpleAtoi(request.page_token, &offset)) {
    return absl::InvalidArgumentError("page_token is not from a previous page");
  }
  absl::ReaderMutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  // (sort key, host): smaller sorts first.
  std::vector<std::pair<int64_t, uint32_t>> matched;
  for (uint32_t host = 0; host < hosts_.size(); ++host) {
    if (!MatchesSuffix(hosts_.key(host), request.suffix)) continue;
    const HostState& state = hosts_.state(host);
    if (!state.HoldsUrls()) continue;  // moved to another partition
    int64_t sort_key = 0;
    switch (request.order) {
      case HostOrder::kQueued:
        sort_key = -static_cast<int64_t>(state.queued);
        break;
      case HostOrder::kErrors:
        sort_key = -static_cast<int64_t>(state.errors);
        break;
      case HostOrder::kNextDue:
        sort_key = hosts_.Eligible(state) ? storage::TimeToMicros(hosts_.ReadyTime(state))
                                          : std::numeric_limits<int64_t>::max();
        break;
    }
    matched.emplace_back(sort_key, host);
  }
  ListHostsResult result;
  result.matched = matched.size();
  if (offset >= matched.size()) return result;
  const size_t end = std::min<uint64_t>(matched.size(), offset + *page_size);
  auto less = [this](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : hosts_.key(a.second) < hosts_.key(b.second);
  };
  std::partial_sort(matched.begin(), matched.begin() + static_cast<ptrdiff_t>(end),
                    matched.end(), less);
  for (size_t i = offset; i < end; ++i) {
    result.hosts.push_back(SummaryLocked(matched[i].second, now));
  }
  if (end < matched.size()) result.next_page_token = absl::StrCat(end);
  return result;
}

absl::StatusOr<HostDetail> Frontier::GetHost(std::string_view host_key) const {
  absl::ReaderMutexLock lock(&mu_);
  absl::StatusOr<uint32_t> host = OperatorHostLocked(host_key);
  if (!host.ok()) return host.status();
  HostDetail detail;
  detail.summary = SummaryLocked(*host, clock_.Now());
  detail.scan_complete = false;
  absl::Status status = VisitHostUrlsLocked(
      *host, "", [&detail](std::string_view url, const UrlRecord& record) {
        if (detail.urls_scanned >= kHostScanLimit) return false;
        ++detail.urls_scanned;
        if (record.last_outcome == OutcomeClass::kRobotsDenied) {
          ++detail.robots_denied;
          if (record.fetch_time >= detail.last_robots_denied) {
            detail.last_robots_denied = record.fetch_time;
            detail.last_robots_denied_url = std::string(url);
          }
        }
        if (IsError(record) || record.attempts > 0) {
          detail.recent_errors.push_back(HostError{.url = std::string(url),
                                                   .outcome = *record.last_outcome,
                                                   .http_status = record.http_status,
                                                   .time = record.fetch_time,
                                                   .attempts = record.attempts});
        }
        return true;
      });
  if (!status.ok()) return status;
  detail.scan_complete = detail.urls_scanned < kHostScanLimit;
  auto newest = [](const HostError& a, const HostError& b) {
    return a.time != b.time ? a.time > b.time : a.url < b.url;
  };
  std::sort(detail.recent_errors.begin(), detail.recent_errors.end(), newest);
  if (detail.recent_errors.size() > HostDetail::kMaxRecentErrors) {
    detail.recent_errors.resize(HostDetail::kMaxRecentErrors);
  }
  return detail;
}

absl::StatusOr<HostChangeResult> Frontier::ControlHost(std::string_view host_key,
                                                       const HostControlChange& change) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<uint32_t> host = OperatorHostLocked(host_key);
  if (!host.ok()) return host.status();
  if (absl::Status status = NotMovingLocked(*host); !status.ok()) return status;
  const absl::Time now = clock_.Now();
  const HostState& state = hosts_.state(*host);
  HostControls controls = hosts_.controls(state);
  switch (change.kind) {
    case HostControlChange::Kind::kBlock:
      if (change.until <= now || change.until == absl::InfiniteFuture()) {
        return absl::InvalidArgumentError(
            "a block must end at a time in the future (drop the host's queue to stop it "
            "for good)");
      }
      controls.blocked_until = change.until;
      break;
    case HostControlChange::Kind::kUnblock:
      controls.blocked_until = absl::InfinitePast();
      break;
    case HostControlChange::Kind::kSetDelay:
      if (change.delay < absl::ZeroDuration() || change.delay > kMaxHostDelay) {
        return absl::InvalidArgumentError(absl::StrCat("a host's delay must be in [0, ",
                                                       absl::FormatDuration(kMaxHostDelay),
                                                       "]"));
      }
      controls.delay = change.delay;
      break;
    case HostControlChange::Kind::kSetPageLimit:
      if (change.max_pages == FrontierOptions::kUnlimited) {
        return absl::InvalidArgumentError(
            "a page limit must be finite (clear it for the collection's)");
      }
      controls.max_pages = change.max_pages;
      break;
    default:
      return absl::InvalidArgumentError("unknown host control");
  }
  controls.changed = now;
  storage::HostRecord record = hosts_.ToRecord(*host, state);
  record.controls = controls;
  kv::WriteBatch batch;
  batch.Put(storage::kHostsFamily, host_key, storage::EncodeHostRecord(record));
  if (absl::Status status = store_.Write(batch); !status.ok()) return status;
  hosts_.SetControls(*host, controls);
  ++controls_version_;
  return HostChangeResult{.host = SummaryLocked(*host, now)};
}

absl::StatusOr<HostChangeResult> Frontier::DropHostQueue(std::string_view host_key) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<uint32_t> host = OperatorHostLocked(host_key);
  if (!host.ok()) return host.status();
  if (absl::Status status = NotMovingLocked(*host); !status.ok()) return status;
  const absl::Time now = clock_.Now();
  HostState state = hosts_.state(*host);
  kv::WriteBatch batch;
  uint64_t queued = 0;
  uint64_t waiting = 0;
  uint64_t revisits = 0;
  // Dropped pages of the re-visit fleet leave it: the budget's solve must not count them.
  std::optional<RevisitFleet> fleet;
  auto leave_fleet = [&](UrlRecord& record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (record.visit_history.empty()) return;
    if (!fleet.has_value()) fleet = revisit_fleet_;
    LeaveRevisitFleet(record, *fleet);
  };
  // Queued and leased URLs: the host's queue entries (leased ones keep theirs).
  std::vector<std::string> urls;
  {
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> it = store_.NewIterator(
        storage::kQueueFamily, storage::QueueHostPrefix(*host),
        kv::PrefixSuccessor(storage::QueueHostPrefix(*host)));
    if (!it.ok()) return it.status();
    for (; (*it)->Valid(); (*it)->Next()) {
      batch.Delete(storage::kQueueFamily, (*it)->key());
      absl::StatusOr<storage::QueueEntry> entry = storage::DecodeQueueValue((*it)->value());
      if (entry.ok()) urls.push_back(std::move(entry->url));
    }
    if (absl::Status status = (*it)->status(); !status.ok()) return status;
  }
  absl::StatusOr<std::vector<std::optional<std::string>>> values =
      store_.MultiGet(storage::kUrlsFamily, urls);
  if (!values.ok()) return values.status();
  for (size_t i = 0; i < urls.size(); ++i) {
    if (!(*values)[i].has_value()) continue;
    absl::StatusOr<UrlRecord> record = storage::DecodeUrlRecord(*(*values)[i]);
    if (!record.ok() || record->status != UrlStatus::kQueued) continue;
    if (record->fetch_count > 0) ++revisits;
    record->status = UrlStatus::kDropped;
    leave_fleet(*record);
    batch.Put(storage::kUrlsFamily, urls[i], storage::EncodeUrlRecord(*record));
    ++queued;
  }
  // Waiting URLs: their records say where their due entries are.
  absl::Status status = VisitHostUrlsLocked(
      *host, "", [&](std::string_view url, const UrlRecord& record) {
        if (record.status != UrlStatus::kWaiting) return true;
        batch.Delete(storage::kDueFamily, storage::DueKey(record.next_visit, url));
        UrlRecord dropped = record;
        dropped.status = UrlStatus::kDropped;
        dropped.next_visit = absl::InfinitePast();
        leave_fleet(dropped);
        batch.Put(storage::kUrlsFamily, url, storage::EncodeUrlRecord(dropped));
        ++waiting;
        return true;
      });
  if (!status.ok()) return status;
  const std::vector<LeaseId> leases = leases_.OfHost(*host);
  for (const LeaseId id : leases) {
    if (leases_.Find(id)->marked) batch.Delete(storage::kLeasesFamily, storage::LeaseKey(id));
  }
  HostControls controls = hosts_.controls(state);
  controls.dropped_urls += queued + waiting;
  controls.dropped_at = now;
  controls.dropped_leases_below = next_lease_id_;
  controls.changed = now;
  // Counters follow what was found; a waiting URL whose record lies outside the host's URL
  // prefixes stays counted and its due entry is dropped as stale when it comes due.
  const uint64_t leases_out = hosts_.totals().in_flight - state.in_flight;
  state.queued = 0;
  state.in_flight = 0;
  state.waiting = SaturatingSub(state.waiting, waiting);
  storage::HostRecord record = hosts_.ToRecord(*host, state);
  record.controls = controls;
  batch.Put(storage::kHostsFamily, host_key, storage::EncodeHostRecord(record));
  PutLeasesOutLocked(leases_out, batch);
  if (fleet.has_value()) PutRevisitFleet(*fleet, batch);
  if (absl::Status written = store_.Write(batch); !written.ok()) return written;
  leases_out_stored_ = leases_out;
  if (fleet.has_value()) revisit_fleet_ = *std::move(fleet);
  for (const LeaseId id : leases) leases_.Remove(id);
  revisits_queued_ = SaturatingSub(revisits_queued_, revisits);
  hosts_.Set(*host, state);
  hosts_.SetControls(*host, controls);
  ++controls_version_;
  HostChangeResult result{.host = SummaryLocked(*host, now), .dropped = queued + waiting};
  return result;
}

FetcherControlTable Frontier::FetcherControls(uint64_t known_version) const {
  absl::ReaderMutexLock lock(&mu_);
  FetcherControlTable table{.version = controls_version_};
  if (known_version == controls_version_) {
    table.unchanged = true;
    return table;
  }
  const absl::Time now = clock_.Now();
  hosts_.ForEachControlled([&](uint32_t host, const HostControls& c) {
    if (c.blocked_until <= now && c.delay <= absl::ZeroDuration() &&
        c.dropped_at < now - kFetcherDropMemory) {
      return;
    }
    table.hosts.push_back(FetcherHostControl{.host_key = std::string(hosts_.key(host)),
                                             .blocked_until = c.blocked_until,
                                             .delay = c.delay,
                                             .dropped_at = c.dropped_at,
                                             .dropped_leases_below = c.dropped_leases_below});
  });
  return table;
}

absl::StatusOr<ListHostUrlsResult> Frontier::ListQueuedUrlsLocked(
    const ListHostUrlsRequest& request, uint32_t host, size_t page_size) const {
  ListHostUrlsResult result;
  result.host = SummaryLocked(host, clock_.Now());
  std::string begin = storage::QueueHostPrefix(host);
  if (!request.page_token.empty()) {
    const std::string last = absl::HexStringToBytes(request.page_token);
    if (absl::BytesToHexString(last) != request.page_token ||
        !storage::DecodeQueueKey(last).ok() ||
        !last.starts_with(storage::QueueHostPrefix(host))) {
      return absl::InvalidArgumentError("page_token is not from a previous page");
    }
    begin = last + '\0';
  }
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it = store_.NewIterator(
      storage::kQueueFamily, begin, kv::PrefixSuccessor(storage::QueueHostPrefix(host)));
  if (!it.ok()) return it.status();
  const bool want_leased = request.state == HostUrlState::kLeased;
  std::string last_key;
  for (; (*it)->Valid(); (*it)->Next()) {
    absl::StatusOr<storage::QueueKeyParts> key = storage::DecodeQueueKey((*it)->key());
    absl::StatusOr<storage::QueueEntry> entry = storage::DecodeQueueValue((*it)->value());
    if (!key.ok() || !entry.ok()) continue;
    if (leases_.IsLeased(host, key->pos) != want_leased) continue;
    if (result.urls.size() == page_size) {
      result.next_page_token = absl::BytesToHexString(last_key);
      break;
    }
    last_key = std::string((*it)->key());
    result.urls.push_back(HostUrl{.url = std::move(entry->url),
                                  .state = want_leased ? HostUrlState::kLeased
                                                       : HostUrlState::kQueued,
                                  .depth = key->pos.depth});
  }
  if (absl::Status status = (*it)->status(); !status.ok()) return status;
  return result;
}

absl::StatusOr<ListHostUrlsResult> Frontier::ListHostUrls(
    const ListHostUrlsRequest& request) const {
  absl::StatusOr<size_t> page_size = PageSize(request.page_size);
  if (!page_size.ok()) return page_size.status();
  if (static_cast<uint8_t>(request.state) > static_cast<uint8_t>(HostUrlState::kDropped)) {
    return absl::InvalidArgumentError("unknown URL state");
  }
  absl::ReaderMutexLock lock(&mu_);
  absl::StatusOr<uint32_t> host = OperatorHostLocked(request.host_key);
  if (!host.ok()) return host.status();
  if (request.state == HostUrlState::kQueued || request.state == HostUrlState::kLeased) {
    return ListQueuedUrlsLocked(request, *host, *page_size);
  }
  // The other states come from the URL records, in URL order; the token is the last URL.
  const std::string_view key = hosts_.key(*host);
  if (!request.page_token.empty() &&
      !request.page_token.starts_with(absl::StrCat("http://", A(key), "/")) &&
      !request.page_token.starts_with(absl::StrCat("https://", A(key), "/"))) {
    return absl::InvalidArgumentError("page_token is not from a previous page");
  }
  ListHostUrlsResult result;
  result.host = SummaryLocked(*host, clock_.Now());
  absl::Status status = VisitHostUrlsLocked(
      *host, request.page_token, [&](std::string_view url, const UrlRecord& record) {
        HostUrlState state = HostUrlState::kDone;
        switch (record.status) {
          case UrlStatus::kQueued:
            state = leases_.IsLeased(*host, PosOf(record)) ? HostUrlState::kLeased
                                                          : HostUrlState::kQueued;
            break;
          case UrlStatus::kWaiting:
            state = HostUrlState::kWaiting;
            break;
          case UrlStatus::kDone:
            state = HostUrlState::kDone;
            break;
          case UrlStatus::kDropped:
            state = HostUrlState::kDropped;
            break;
        }
        if (request.state != HostUrlState::kAny && state != request.state) return true;
        if (result.urls.size() == *page_size) {
          result.next_page_token = result.urls.back().url;
          return false;
        }
        result.urls.push_back(HostUrl{.url = std::string(url),
                                      .state = state,
                                      .depth = record.depth,
                                      .last_outcome = record.last_outcome,
                                      .http_status = record.http_status,
                                      .fetch_time = record.fetch_time,
                                      .next_visit = record.next_visit});
        return true;
      });
  if (!status.ok()) return status;
  return result;
}

}  // namespace crawler::frontier
