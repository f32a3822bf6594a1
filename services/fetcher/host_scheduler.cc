#include "services/fetcher/host_scheduler.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lib/http/response_head.h"
#include "lib/politeness/delay_policy.h"

namespace crawler::fetcher {

using frontier::OutcomeClass;

HostScheduler::HostScheduler(AsyncResolver& resolver, const net::AddressPolicy& guard,
                             politeness::Politeness& politeness, const Clock& clock,
                             std::string connect_to_ip, FetcherCounters& counters)
    : resolver_(resolver),
      guard_(guard),
      politeness_(politeness),
      clock_(clock),
      connect_to_ip_(std::move(connect_to_ip)),
      counters_(counters) {}

void HostScheduler::Add(frontier::LeasedTask lease, url::Url url, absl::Duration now) {
  auto& slot = hosts_[lease.host_key];
  if (slot == nullptr) {
    slot = std::make_unique<HostWork>();
    slot->key = lease.host_key;
    slot->host = std::string(url.host());
    slot->port = url.effective_port();
    slot->origin = absl::StrCat(std::string(url.scheme()), "://", std::string(url.host()),
                                url.port().empty() ? "" : ":", std::string(url.port()));
    Schedule(*slot, now);
  }
  slot->tasks.push_back(Task{std::move(lease), std::move(url)});
  ++buffered_;
}

Task HostScheduler::TakeFront(HostWork& h) {
  Task task = std::move(h.tasks.front());
  h.tasks.pop_front();
  --buffered_;
  return task;
}

void HostScheduler::DropFront(HostWork& h) {
  h.tasks.pop_front();
  --buffered_;
}

std::deque<Task> HostScheduler::TakeAll(HostWork& h) {
  buffered_ -= h.tasks.size();
  return std::exchange(h.tasks, {});
}

std::vector<frontier::LeaseId> HostScheduler::DropAll() {
  std::vector<frontier::LeaseId> dropped;
  for (auto& [key, h] : hosts_) {
    for (const Task& task : TakeAll(*h)) dropped.push_back(task.lease.lease_id);
  }
  return dropped;
}

std::optional<absl::Duration> HostScheduler::NextDue() const {
  if (ready_.empty()) return std::nullopt;
  return ready_.top().at;
}

void HostScheduler::Schedule(HostWork& h, absl::Duration at) {
  h.wake_seq = ++next_wake_seq_;
  ready_.push(HeapEntry{.at = at, .seq = h.wake_seq, .key = h.key});
}

void HostScheduler::OnResolved(const std::string& host, absl::Duration now) {
  for (auto& [key, h] : hosts_) {
    if (h->host == host && h->address == HostWork::Address::kResolving) {
      h->address = HostWork::Address::kUnknown;
      Schedule(*h, now);
    }
  }
}

bool HostScheduler::EnsureAddress(HostWork& h, std::optional<AddressFailure>& failure) {
  if (h.address == HostWork::Address::kReady) return true;
  if (!connect_to_ip_.empty()) {
    h.address = HostWork::Address::kReady;  // politeness per IP is meaningless here
    return true;
  }
  std::optional<absl::StatusOr<std::vector<net::IpAddress>>> cached = resolver_.Cached(h.host);
  if (!cached.has_value()) {
    if (h.address != HostWork::Address::kResolving) {
      h.address = HostWork::Address::kResolving;
      resolver_.Request(h.host);
    }
    return false;
  }
  if (!cached->ok()) {
    // Name errors are final for these URLs (retried through the frontier's attempt limit).
    failure = AddressFailure{.outcome = OutcomeClass::kNetworkError,
                             .detail = absl::StrCat("dns: ", cached->status().message()),
                             .retry = absl::IsUnavailable(cached->status())};
    h.address = HostWork::Address::kUnknown;
    return false;
  }
  // The first address the SSRF guard accepts.
  absl::StatusOr<net::IpAddress> allowed = guard_.FirstAllowed(**cached);
  if (!allowed.ok()) {
    failure = AddressFailure{.outcome = OutcomeClass::kOutOfScope,
                             .detail = std::string(allowed.status().message())};
    return false;
  }
  h.ip = allowed->ToString();
  h.address = HostWork::Address::kReady;
  return true;
}

void HostScheduler::WantsSlot(HostWork& h, bool wants, absl::Duration now) {
  if (wants == h.wants_slot_since.has_value()) return;
  if (wants) {
    h.wants_slot_since = now;
    ++waiting_;
  } else {
    h.wants_slot_since.reset();
    --waiting_;
  }
}

std::vector<bool> HostScheduler::ReleaseAndClaim(const std::vector<ClaimAsk>& asks,
                                                 absl::Duration now) {
  std::vector<bool> granted(asks.size(), false);
  if (asks.empty() && releases_.empty()) return granted;
  std::vector<politeness::ClaimRequest> requests;
  requests.reserve(asks.size());
  for (const ClaimAsk& ask : asks) {
    requests.push_back({.host_key = ask.host->key,
                        .ip = ask.host->ip,
                        .crawl_delay = ask.crawl_delay,
                        .host_delay = ask.host_delay});
  }
  const absl::Duration asked = clock_.MonotonicNow();
  politeness::Politeness::Exchanged answers = politeness_.Exchange(releases_, requests);
  const absl::Duration returned = clock_.MonotonicNow();
  counters_.Observe(&FetcherStats::claim_duration, returned - asked);
  // The waits count from the answers, not from `now` (the start of this loop turn): woken
  // before the claim can succeed, a host would be refused again for a sliver of time.
  const absl::Duration answered = std::max(now, returned);
  for (size_t i = 0; i < releases_.size(); ++i) {
    auto it = hosts_.find(releases_[i].host_key);
    if (it == hosts_.end()) continue;
    // Unreachable store: its claims fail (closed) until it answers; look again shortly.
    const absl::StatusOr<politeness::ReleaseResult>& released = answers.released[i];
    HostWork& h = *it->second;
    h.claim_not_before = answered + (released.ok() ? released->wait : absl::Milliseconds(200));
    Schedule(h, answered);
  }
  releases_.clear();
  for (size_t i = 0; i < asks.size(); ++i) {
    HostWork& h = *asks[i].host;
    const absl::StatusOr<politeness::ClaimResult>& claim = answers.claimed[i];
    if (!claim.ok()) {
      // Shared politeness state unreachable: fail closed, try again shortly (the store fails
      // fast meanwhile, so this costs no round trips).
      counters_.Add(&FetcherStats::politeness_unavailable);
      Schedule(h, answered + absl::Milliseconds(200));
      continue;
    }
    if (claim->granted) {
      granted[i] = true;
      const absl::Duration since = h.wants_slot_since.value_or(now);
      counters_.Observe(&FetcherStats::politeness_wait,
                        std::max(answered - since, absl::ZeroDuration()));
      WantsSlot(h, false, answered);
      continue;
    }
    counters_.Add(&FetcherStats::politeness_waits);
    if (claim->wait > absl::ZeroDuration()) {
      Schedule(h, answered + claim->wait);
    } else {
      // A connection limit (of the host, or of its address shared with other hosts): look again
      // shortly; a transfer of this host ending also wakes it.
      Schedule(h, answered + absl::Milliseconds(10));
    }
  }
  return granted;
}

HostScheduler::Ended HostScheduler::Finished(const std::string& host_key,
                                             const HttpResult& result) {
  auto it = hosts_.find(host_key);
  HostWork* h = it == hosts_.end() ? nullptr : it->second.get();
  // This thread needs only the status code (and Retry-After, rarely): the workers parse the
  // whole head.
  const int status = result.error == TransportError::kNone
                         ? http::ResponseHead::PeekStatus(result.raw_headers).value_or(0)
                         : 0;  // 0: no valid response head
  std::optional<absl::Duration> retry_after;
  if (status == 429 || status == 503) {
    absl::StatusOr<http::ResponseHead> head = http::ResponseHead::Parse(result.raw_headers);
    if (auto v = head.ok() ? head->Get("Retry-After") : std::nullopt; v.has_value()) {
      retry_after = politeness::ParseRetryAfter(*v, clock_.Now());
    }
  }
  releases_.push_back({.host_key = host_key,
                        .ip = h != nullptr ? h->ip : std::string(),
                        .response_time = result.total_time,
                        .failed = status == 0 || status >= 500,
                        .retry_after = retry_after});
  if (h != nullptr) --h->in_flight;
  return Ended{.host = h, .retry_after = retry_after};
}

void HostScheduler::GaveUp(const std::string& host_key) {
  auto it = hosts_.find(host_key);
  HostWork* h = it == hosts_.end() ? nullptr : it->second.get();
  releases_.push_back({.host_key = host_key, .ip = h != nullptr ? h->ip : std::string()});
  if (h != nullptr) --h->in_flight;
}

}  // namespace crawler::fetcher
