// HostScheduler: the fetcher's per-host work (docs/architecture.md §5, §6 "resolve -> SSRF guard ->
// politeness claim"). It holds the leased URLs not yet started, grouped by host key (HostWork),
// the heap of hosts by the monotonic time they are next due, each host's address (resolved
// asynchronously, then checked by the SSRF guard), and the politeness side of every request:
// Claim before it, Release (with the response time and any Retry-After) after it, and the
// wake-up that follows either. Claims and releases go to the Politeness in batches: a store in
// another process (Redis) then costs one round trip per batch, not per request.
//
// It decides nothing about robots.txt or leases; the fetcher's loop walks the due hosts
// (RunDue) and decides per task.
//
// Cost: a host is woken by a heap entry; stale entries (the host was rescheduled since) are
// skipped on pop: only the entry of the last Schedule wakes it. A resolved name wakes the hosts waiting for it with one pass over the hosts.
//
// Threading: not thread-safe; the network loop owns it. The resolver, guard, politeness and
// clock it is given must outlive it.
#ifndef CRAWLER_SERVICES_FETCHER_HOST_SCHEDULER_H_
#define CRAWLER_SERVICES_FETCHER_HOST_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/net/address_policy.h"
#include "lib/politeness/politeness.h"
#include "lib/url/url.h"
#include "services/fetcher/fetcher_stats.h"
#include "services/fetcher/http_transport.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/frontier_api.h"

namespace crawler::fetcher {

// A leased URL, parsed.
struct Task {
  frontier::LeasedTask lease;
  url::Url url;
};

// Per-host state for hosts with leased URLs here. Dropped when the host has nothing left.
struct HostWork {
  std::string key;
  std::string host;    // ASCII host as in the URL
  std::string origin;  // "https://host:port"
  uint16_t port = 0;
  std::deque<Task> tasks;
  enum class Address { kUnknown, kResolving, kReady } address = Address::kUnknown;
  std::string ip;  // politeness key of the address; empty with connect_to
  int in_flight = 0;
  bool robots_fetching = false;
  int robots_redirects = 0;
  std::string robots_next_url;                    // a redirect target still to fetch
  // The heap entry that wakes the host: the one Schedule pushed last. Earlier entries are stale
  // and skipped, so a host is walked at most once per RunDue, however often it was scheduled.
  uint64_t wake_seq = 0;
  // Monotonic; no claim before then (its last release said so). Tasks that need no request
  // (a robots.txt denial, an expired lease) are settled sooner.
  absl::Duration claim_not_before = absl::ZeroDuration();
  // Monotonic; since when the host has had its next request ready and wanted a politeness slot
  // for it (HostScheduler::WantsSlot), until the claim is granted. Unset otherwise.
  std::optional<absl::Duration> wants_slot_since;
};

// Why a host's URLs cannot be fetched at all (name error, address refused): each of its tasks
// is completed with this.
struct AddressFailure {
  frontier::OutcomeClass outcome;
  std::string detail;
  bool retry = false;
};

class HostScheduler {
 public:
  // `connect_to_ip` (non-empty with HttpClientOptions::connect_to): every request goes there, so
  // no name is resolved and no per-address politeness applies.
  HostScheduler(AsyncResolver& resolver, const net::AddressPolicy& guard,
                politeness::Politeness& politeness, const Clock& clock, std::string connect_to_ip,
                FetcherCounters& counters);

  // Queues a task under its host (created, and due at `now`, if new).
  void Add(frontier::LeasedTask lease, url::Url url, absl::Duration now);
  // Tasks queued over all hosts.
  size_t buffered() const { return buffered_; }
  size_t hosts() const { return hosts_.size(); }
  // Hosts whose next request waits for its politeness claim (wants_slot_since set).
  size_t hosts_waiting() const { return waiting_; }

  // The host's work, or null if it holds nothing here.
  HostWork* Find(const std::string& key) {
    auto it = hosts_.find(key);
    return it == hosts_.end() ? nullptr : it->second.get();
  }

  // Removes and returns the host's next task / drops it / takes them all.
  Task TakeFront(HostWork& h);
  void DropFront(HostWork& h);
  std::deque<Task> TakeAll(HostWork& h);
  // Drops the host's tasks for which `pred(task)` holds; returns how many.
  template <typename Pred>
  size_t TakeIf(HostWork& h, Pred&& pred) {
    const size_t taken = std::erase_if(h.tasks, pred);
    buffered_ -= taken;
    return taken;
  }
  // Drops every task not started (a stop); returns their lease ids.
  std::vector<frontier::LeaseId> DropAll();

  // Calls `advance(host)` for each host due at `now`, while `more()` holds; forgets the hosts
  // left with nothing to do.
  template <typename More, typename Advance>
  void RunDue(absl::Duration now, More&& more, Advance&& advance);
  // When the next host is due (monotonic), if any.
  std::optional<absl::Duration> NextDue() const;

  // Wakes the host at `at` (monotonic), in place of any earlier Schedule of it.
  void Schedule(HostWork& h, absl::Duration at);
  // The lookup of `host` finished: the hosts waiting for it get another look.
  void OnResolved(const std::string& host, absl::Duration now);

  // True when the host's address is known and allowed. Otherwise false, with `failure` set when
  // the host's tasks cannot be fetched (then complete them: TakeAll), or unset while resolving.
  bool EnsureAddress(HostWork& h, std::optional<AddressFailure>& failure);

  // Whether the host's next request is ready (its address and robots.txt rules known, its URL
  // allowed) and so wants a politeness slot, as the fetch loop found at `now`. The politeness
  // wait (FetcherStats::politeness_wait) runs from the first `true` to the grant; `false`
  // forgets it.
  void WantsSlot(HostWork& h, bool wants, absl::Duration now);

  // Sends the releases Finished queued, then asks for the politeness claims of one request to
  // each host in `asks`, in one batch (one round trip to a shared store). A released host is
  // woken at once, to settle what needs no request, and claims no sooner than its release said
  // (claim_not_before); a host refused is rescheduled for when its claim could succeed. Returns,
  // per ask, whether its claim was granted. Call it every loop turn, with no asks too: the
  // releases must not wait. Counts the Exchange's wall time (FetcherStats::claim_duration) and,
  // per grant, the host's politeness wait.
  struct ClaimAsk {
    HostWork* host;
    std::optional<absl::Duration> crawl_delay;
    absl::Duration host_delay = absl::ZeroDuration();  // the operator's (host control)
  };
  std::vector<bool> ReleaseAndClaim(const std::vector<ClaimAsk>& asks, absl::Duration now);
  // Requests allowed in flight per host: a host with that many needs no claim before one ends.
  int max_connections_per_host() const { return politeness_.MaxConnectionsPerHost(); }

  // A request of `host_key` ended: queues the release of its claim with what the host told us
  // (sent by the next ReleaseAndClaim). Returns the host (null if it is gone) and the
  // Retry-After of a 429/503, if any.
  struct Ended {
    HostWork* host = nullptr;
    std::optional<absl::Duration> retry_after;
  };
  Ended Finished(const std::string& host_key, const HttpResult& result);
  // A request of `host_key` was given up by this fetcher (the drain deadline of a stop): queues
  // its claim's release as a success of no duration, since the host did nothing wrong.
  void GaveUp(const std::string& host_key);

 private:
  AsyncResolver& resolver_;
  const net::AddressPolicy& guard_;
  politeness::Politeness& politeness_;
  const Clock& clock_;
  const std::string connect_to_ip_;
  FetcherCounters& counters_;

  absl::flat_hash_map<std::string, std::unique_ptr<HostWork>> hosts_;
  struct HeapEntry {
    absl::Duration at;
    uint64_t seq;  // HostWork::wake_seq of the Schedule that pushed it
    std::string key;
    bool operator>(const HeapEntry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> ready_;
  uint64_t next_wake_seq_ = 0;
  size_t buffered_ = 0;
  size_t waiting_ = 0;                                // hosts with wants_slot_since set
  std::vector<politeness::ReleaseRequest> releases_;  // queued by Finished
};

template <typename More, typename Advance>
void HostScheduler::RunDue(absl::Duration now, More&& more, Advance&& advance) {
  while (!ready_.empty() && ready_.top().at <= now && more()) {
    const HeapEntry entry = ready_.top();
    ready_.pop();
    auto it = hosts_.find(entry.key);
    if (it == hosts_.end()) continue;
    HostWork& h = *it->second;
    if (entry.seq != h.wake_seq) continue;  // rescheduled since: its own entry wakes it
    advance(h);
    if (h.tasks.empty() && h.in_flight == 0 && !h.robots_fetching) {
      if (h.wants_slot_since.has_value()) --waiting_;
      hosts_.erase(it);
    }
  }
}

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_HOST_SCHEDULER_H_
