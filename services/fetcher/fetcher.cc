#include "services/fetcher/fetcher.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "services/fetcher/frontier_link.h"
#include "services/fetcher/host_scheduler.h"
#include "services/fetcher/robots_cache.h"
#include "services/fetcher/worker_pool.h"

namespace crawler::fetcher {
namespace {

using frontier::OutcomeClass;

RobotsCacheOptions RobotsOptionsOf(const FetcherOptions& o) {
  return RobotsCacheOptions{.policy = o.robots_policy,
                            .agent = o.robots_agent,
                            .max_entries = o.max_robots_entries,
                            .sitemap_discovery = o.sitemap_discovery,
                            .canonical = o.processing.canonical};
}

FrontierLinkOptions LinkOptionsOf(const FetcherOptions& o) {
  return FrontierLinkOptions{.lease_batch = o.lease_batch,
                             .lease_max_per_host = o.lease_max_per_host,
                             .max_buffered_tasks = o.max_buffered_tasks,
                             .flush_batch = o.flush_batch,
                             .flush_interval = o.flush_interval,
                             .lease_pause_empty = o.lease_pause_empty,
                             .lease_pause_partial = o.lease_pause_partial,
                             .retry = o.frontier_retry};
}

}  // namespace

absl::Status FetcherOptions::Validate() const {
  if (max_in_flight < 1) return absl::InvalidArgumentError("max_in_flight must be >= 1");
  if (lease_batch < 1 || lease_max_per_host < 1) {
    return absl::InvalidArgumentError("lease_batch and lease_max_per_host must be >= 1");
  }
  if (max_buffered_tasks < lease_batch) {
    return absl::InvalidArgumentError("max_buffered_tasks must be >= lease_batch");
  }
  if (render.browser.max_tabs < 1 || render.browser.max_tabs > 64) {
    return absl::InvalidArgumentError("render_tabs must be in [1, 64]");
  }
  if (worker_threads < 1 || worker_threads > 256) {
    return absl::InvalidArgumentError("worker_threads must be in [1, 256]");
  }
  if (worker_batch < 1 || flush_batch < 1) {
    return absl::InvalidArgumentError("worker_batch and flush_batch must be >= 1");
  }
  if (robots_agent.empty()) return absl::InvalidArgumentError("robots_agent must not be empty");
  if (http.body_memory_bytes < http.max_body_bytes) {
    return absl::InvalidArgumentError("body_memory_bytes must be >= max_body_bytes");
  }
  if (drain_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("drain_timeout must be >= 0");
  }
  if (stall_confirm_after <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("stall_confirm_after must be > 0");
  }
  if (lease_pause_empty < absl::ZeroDuration() || lease_pause_partial < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("lease pauses must be >= 0");
  }
  if (frontier_retry.initial <= absl::ZeroDuration() ||
      frontier_retry.max < frontier_retry.initial || frontier_retry.jitter < 0 ||
      frontier_retry.jitter > 1) {
    return absl::InvalidArgumentError(
        "frontier_retry needs 0 < initial <= max and jitter in [0, 1]");
  }
  return absl::OkStatus();
}

// The network loop: takes leases from the FrontierLink into the HostScheduler, walks the due
// hosts (address, robots.txt, lease deadline, politeness claim) and starts transfers on the
// HttpTransport, hands finished pages to the WorkerPool and robots.txt responses to the
// RobotsCache, and hands completions and outlinks back to the FrontierLink.
struct Fetcher::Impl {
  // A transfer in flight.
  struct Pending {
    std::string host_key;
    std::optional<Task> task;  // empty for robots.txt
    std::string url;
  };

  Impl(const FetcherOptions& o, frontier::FrontierClient& f, dedup::DedupClient* d,
       politeness::Politeness& p, Resolver& r, const net::AddressPolicy& g, const scope::Scope& s,
       warc::WarcWriter* w, const Clock& c, FetchObserver* obs, std::string connect_to)
      : options(o),
        clock(c),
        observer(obs),
        processor(o.processing, s, d, w, obs, &counters),
        resolver(o.resolver, r, c, [this] { Wake(); }),
        robots(RobotsOptionsOf(o), s, w, c, obs),
        scheduler(resolver, g, p, c, std::move(connect_to), counters),
        workers(processor, o.worker_batch, [this] { Wake(); }),
        link(LinkOptionsOf(o), f, c, counters, [this] { Wake(); },
             w == nullptr ? std::function<absl::Status()>() : [w] { return w->Sync(); }) {}

  // ---- constant after construction
  const FetcherOptions options;
  const Clock& clock;
  FetchObserver* const observer;
  FetcherCounters counters;
  PageProcessor processor;
  std::unique_ptr<HttpClient> owned_http;  // when Create made the transport
  HttpTransport* http = nullptr;
  AsyncResolver resolver;

  // ---- loop-thread state
  RobotsCache robots;
  HostScheduler scheduler;
  absl::flat_hash_map<uint64_t, Pending> transfers;  // its size is the transfers in flight
  uint64_t next_transfer_id = 1;
  FrontierBatch to_frontier;  // not yet handed to the link
  // The operator's host controls as last taken from the link (FrontierLink::Controls).
  std::shared_ptr<const HostControlTable> controls = std::make_shared<const HostControlTable>();
  std::vector<frontier::LeaseId> unstarted;  // dropped at the stop, handed back at the end
  std::atomic<bool> stop{false};
  // Set at the first turn after Stop(): when transfers still running are aborted.
  std::optional<absl::Duration> drain_deadline;
  // The first WARC write that failed (loop thread): the crawl stops and Run returns it.
  absl::Status archive_status;

  // ---- threads of their own
  WorkerPool workers;
  FrontierLink link;

  void Wake() {
    if (http != nullptr) http->Wakeup();
  }

  size_t in_flight() const { return transfers.size(); }

  // ------------------------------------------------------------------ completions
  void Complete(frontier::FetchOutcome outcome) {
    to_frontier.outcomes.push_back(std::move(outcome));
  }

  // `host_not_before`: the frontier leases nothing more of the host before then.
  void CompleteWithoutRequest(const frontier::LeasedTask& lease, OutcomeClass outcome,
                              std::string detail, bool retry = false,
                              absl::Time host_not_before = absl::InfinitePast()) {
    const absl::Time now = clock.Now();
    Complete(frontier::FetchOutcome{.lease_id = lease.lease_id,
                                    .outcome = outcome,
                                    .fetch_time = now,
                                    .host_next_allowed = host_not_before,
                                    .retry = retry});
    if (observer != nullptr) {
      observer->OnFetch(FetchEvent{.time = now,
                                   .url = lease.canonical_url,
                                   .outcome = outcome,
                                   .detail = std::move(detail),
                                   .sitemap = lease.sitemap_level > 0});
    }
  }

  // An archive failure (a page's or a robots.txt's): the crawl stops, since nothing later could
  // be archived either.
  void ArchiveFailed(const absl::Status& status) {
    if (archive_status.ok()) archive_status = status;
    stop = true;
  }

  // Takes the link's control table when it changed: the tasks held here whose leases a drop
  // of their host's queue voided since are discarded (those leased after the drop stay).
  void TakeControls() {
    std::shared_ptr<const HostControlTable> latest = link.Controls();
    if (latest->version == controls->version) return;
    for (const frontier::FetcherHostControl& dropped : controls->DroppedSince(*latest)) {
      if (HostWork* h = scheduler.Find(dropped.host_key); h != nullptr) {
        counters.Add(&FetcherStats::abandoned,
                     scheduler.TakeIf(*h, [&](const Task& task) {
                       return dropped.Voided(task.lease.lease_id);
                     }));
      }
    }
    controls = std::move(latest);
  }

  // Takes the tasks the frontier link has leased and tells it how many more fit.
  void Refill() {
    const absl::Duration now = clock.MonotonicNow();
    std::vector<LeasedUrl> leased = link.Take(scheduler.buffered(), stop);
    for (auto& [lease, parsed] : leased) {
      if (stop) {
        // Abandoned like every task not started at a stop: re-queued at lease expiry or by the
        // next process.
        counters.Add(&FetcherStats::abandoned);
        continue;
      }
      if (!parsed.ok()) {
        CompleteWithoutRequest(lease, OutcomeClass::kOutOfScope,
                               absl::StrCat("invalid URL: ", parsed.status().message()));
        continue;
      }
      scheduler.Add(std::move(lease), *std::move(parsed), now);
    }
  }

  // ------------------------------------------------------------------ per-host state machine
  // What a due host's next request is, once its politeness claim is granted.
  enum class Want { kNothing, kRobots, kPage };

  // Walks a due host up to its politeness claim: address, robots.txt rules (fetched first when
  // unknown or stale), lease deadline, robots verdict. Tasks that need no request are completed
  // here. Returns what to claim for, or kNothing (the host waits for an address, its robots.txt,
  // a transfer of its own to end, or the time its last release named: then it is rescheduled).
  Want Prepare(HostWork& h, absl::Duration now) {
    const Want want = NextRequest(h);
    // Waiting for the slot starts here, whether the claim goes out now or after claim_not_before.
    scheduler.WantsSlot(h, want != Want::kNothing, now);
    if (want != Want::kNothing && now < h.claim_not_before) {
      scheduler.Schedule(h, h.claim_not_before);
      return Want::kNothing;
    }
    return want;
  }

  Want NextRequest(HostWork& h) {
    if (const frontier::FetcherHostControl* c = controls->Find(h.key);
        c != nullptr && c->blocked_until > clock.Now()) {
      // Blocked by the operator: no request of any kind (robots.txt included) until the block
      // ends; the leases go back to the frontier, which leases them again after it.
      for (Task& t : scheduler.TakeAll(h)) to_frontier.releases.push_back(t.lease.lease_id);
      return Want::kNothing;
    }
    if (h.in_flight >= scheduler.max_connections_per_host()) return Want::kNothing;
    while (!h.tasks.empty()) {
      std::optional<AddressFailure> failure;
      if (!scheduler.EnsureAddress(h, failure)) {
        if (failure.has_value()) {
          for (Task& t : scheduler.TakeAll(h)) {
            CompleteWithoutRequest(t.lease, failure->outcome, failure->detail, failure->retry);
          }
        }
        return Want::kNothing;
      }
      const RobotsEntry* entry = nullptr;
      if (options.obey_robots) {
        entry = robots.Fresh(h.key);
        if (entry == nullptr) return h.robots_fetching ? Want::kNothing : Want::kRobots;
      }
      Task& task = h.tasks.front();
      if (clock.Now() > task.lease.deadline - options.lease_safety_margin) {
        // Too late to start: let the lease expire so the frontier re-queues the URL.
        counters.Add(&FetcherStats::abandoned);
        scheduler.DropFront(h);
        continue;
      }
      if (entry != nullptr) {
        if (std::optional<RobotsDenial> denial = robots.Check(*entry, task.url)) {
          counters.Add(&FetcherStats::robots_denied);
          CompleteWithoutRequest(task.lease, OutcomeClass::kRobotsDenied,
                                 std::move(denial->detail), denial->retry,
                                 denial->host_not_before);
          scheduler.DropFront(h);
          continue;
        }
      }
      return Want::kPage;
    }
    return Want::kNothing;
  }

  // Sends the releases of the transfers that ended and the claims of every host Prepare readied
  // this turn, in one batch, and starts the transfers granted.
  void ClaimAndLaunch(const std::vector<std::pair<HostWork*, Want>>& due, absl::Duration now) {
    std::vector<HostScheduler::ClaimAsk> asks;
    asks.reserve(due.size());
    for (const auto& [h, want] : due) {
      const frontier::FetcherHostControl* c = controls->Find(h->key);
      asks.push_back({.host = h,
                      .crawl_delay = robots.CrawlDelay(h->key),
                      .host_delay = c == nullptr ? absl::ZeroDuration() : c->delay});
    }
    const std::vector<bool> granted = scheduler.ReleaseAndClaim(asks, now);
    for (size_t i = 0; i < due.size(); ++i) {
      if (!granted[i]) continue;
      HostWork& h = *due[i].first;
      if (due[i].second == Want::kRobots) {
        const std::string url = h.robots_next_url.empty() ? absl::StrCat(h.origin, "/robots.txt")
                                                          : std::exchange(h.robots_next_url, "");
        Launch(h, std::nullopt, url);
      } else {
        Task next = scheduler.TakeFront(h);
        const std::string url = next.lease.canonical_url;
        Launch(h, std::move(next), url);
      }
      // Room for another connection to this host: look at it again next turn. Otherwise the end
      // of one of its transfers wakes it (its release).
      if (!h.tasks.empty() && h.in_flight < scheduler.max_connections_per_host()) {
        scheduler.Schedule(h, now);
      }
    }
  }

  // Starts a transfer for which a claim was granted.
  void Launch(HostWork& h, std::optional<Task> task, const std::string& url) {
    const uint64_t id = next_transfer_id++;
    HttpRequest request{.id = id, .url = url, .host = h.host, .port = h.port, .ip = h.ip};
    if (!task.has_value()) {
      // A robots.txt redirect may lead to another origin: then libcurl resolves the name itself
      // and the SSRF guard checks the address at connect time (HttpClient's socket callback).
      absl::StatusOr<url::Url> parsed = url::Url::Parse(url);
      if (parsed.ok() && (parsed->host() != h.host || parsed->effective_port() != h.port)) {
        request.host = std::string(parsed->host());
        request.port = parsed->effective_port();
        request.ip.clear();
      }
    }
    if (task.has_value() && task->lease.previous.has_value()) {
      const frontier::PreviousFetch& prev = *task->lease.previous;
      if (!prev.etag.empty()) request.extra_headers.push_back("If-None-Match: " + prev.etag);
      if (!prev.last_modified.empty()) {
        request.extra_headers.push_back("If-Modified-Since: " + prev.last_modified);
      }
    }
    if (task.has_value()) {
      counters.Add(&FetcherStats::requests_started);
    } else {
      h.robots_fetching = true;
      counters.Add(&FetcherStats::robots_requests);
    }
    transfers.emplace(id, Pending{h.key, std::move(task), url});
    ++h.in_flight;
    http->Start(std::move(request));
  }

  // ------------------------------------------------------------------ results
  void OnResult(HttpResult result) {
    auto it = transfers.find(result.id);
    if (it == transfers.end()) return;
    Pending pending = std::move(it->second);
    transfers.erase(it);
    const HostScheduler::Ended ended = scheduler.Finished(pending.host_key, result);
    HostWork* h = ended.host;
    if (ended.retry_after.has_value()) {
      // The frontier leases nothing more of the host before then (its host order is only a
      // hint; the politeness claims enforce the wait here either way).
      to_frontier.host_times.push_back(
          frontier::HostTime{pending.host_key, clock.Now() + *ended.retry_after});
    }
    if (!pending.task.has_value()) {
      if (h != nullptr) OnRobotsResult(*h, pending, result);
      return;
    }
    workers.Push(FetchedPage{.task = std::move(pending.task->lease),
                             .url = std::move(pending.task->url),
                             .http = std::move(result),
                             .fetch_time = clock.Now()});
  }

  void OnRobotsResult(HostWork& h, const Pending& pending, const HttpResult& result) {
    h.robots_fetching = false;
    RobotsResponse r =
        robots.OnResponse(h.key, pending.url, h.robots_redirects, result, to_frontier.adds);
    if (r.redirect_to.has_value()) {
      // Fetched like any request of this host, when its politeness claim allows.
      ++h.robots_redirects;
      h.robots_next_url = *std::move(r.redirect_to);
      return;
    }
    h.robots_redirects = 0;
    if (!r.archive_status.ok()) ArchiveFailed(r.archive_status);
  }

  void CollectProcessed() {
    for (ProcessedPage& p : workers.TakeProcessed()) {
      for (frontier::UrlToAdd& u : p.outlinks) to_frontier.adds.push_back(std::move(u));
      if (!p.archive_status.ok()) {
        // Not completed: the lease expires and the URL is fetched again (by a later run: the
        // crawl stops here, since the next pages would not be archived either).
        counters.Add(&FetcherStats::abandoned);
        ArchiveFailed(p.archive_status);
        continue;
      }
      Complete(std::move(p.outcome));
    }
  }

  // After a stop, transfers still running at the drain deadline are given up: their leases go
  // back with those not started (re-queued at once, fetched again when the crawl resumes), an
  // unfinished robots.txt fetch is dropped, and every one's politeness claim is released (with
  // this turn's claims). A result the transport returns later is ignored.
  void AbortAtDrainDeadline(absl::Duration now) {
    if (!drain_deadline.has_value()) drain_deadline = now + options.drain_timeout;
    if (now < *drain_deadline || transfers.empty()) return;
    for (auto& [id, pending] : transfers) {
      scheduler.GaveUp(pending.host_key);
      if (!pending.task.has_value()) continue;
      unstarted.push_back(pending.task->lease.lease_id);
      counters.Add(&FetcherStats::drain_aborted);
    }
    transfers.clear();
  }

  // ------------------------------------------------------------------ the loop
  absl::Status Run() {
    workers.Start(options.worker_threads);
    link.Start();
    absl::Status status = Loop();
    workers.StopAndJoin();
    CollectProcessed();
    link.Hand(to_frontier, /*force=*/true).IgnoreError();
    absl::Status flushed = link.Finish(unstarted);
    if (!status.ok()) return status;
    if (!flushed.ok()) return flushed;
    if (!archive_status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("stopped: WARC records could not be written (", archive_status.message(),
                       "); the pages not archived are fetched again when the crawl resumes"));
    }
    return absl::OkStatus();
  }

  absl::Status Loop() {
    absl::Duration last_turn = clock.MonotonicNow();
    while (true) {
      const absl::Duration now = clock.MonotonicNow();
      // A turn this late means the process was stopped or starved: the leases held here may
      // belong to a collection deleted (or re-created) meanwhile. Nothing starts until the
      // frontier has answered a call made since (FrontierLink::Reconfirm).
      if (now - last_turn > options.stall_confirm_after) {
        counters.Add(&FetcherStats::loop_stalls);
        link.Reconfirm();
      }
      last_turn = now;
      for (AsyncResolver::Result& r : resolver.Drain()) scheduler.OnResolved(r.host, now);
      CollectProcessed();
      // With nothing in flight here, a fuller batch is not coming: waiting for one would only
      // delay the frontier (at the end of a crawl, its verdict on exhaustion).
      const bool drained = in_flight() == 0 && scheduler.buffered() == 0 && workers.Idle();
      if (absl::Status s = link.Hand(to_frontier, /*force=*/drained); !s.ok() && !stop) {
        // The frontier refuses this crawl for good (its collection is gone, say): stop as at a
        // Stop, so that the transfers in flight end and release their politeness claims, which
        // a return from here would leave held until they expire. Run returns the refusal.
        stop = true;
      }
      // After Refill: every lease taken was leased after the table the link held when it
      // handed the lease over, so the loop judges it by that table or a later one.
      Refill();
      TakeControls();

      const bool backlogged = !stop && workers.Backlogged(options.max_in_flight);
      const bool unconfirmed = !stop && !link.Confirmed();
      std::vector<std::pair<HostWork*, Want>> ready;  // hosts whose claims go out this turn
      if (stop) {
        // Leased URLs not started are handed back when the link finishes (or, if that fails,
        // re-queued by the frontier at lease expiry or at its next start).
        for (frontier::LeaseId id : scheduler.DropAll()) unstarted.push_back(id);
        AbortAtDrainDeadline(now);
      } else if (!backlogged && !unconfirmed) {
        scheduler.RunDue(
            now, [&] { return in_flight() + ready.size() < options.max_in_flight; },
            [&](HostWork& h) {
              if (Want want = Prepare(h, now); want != Want::kNothing) {
                ready.emplace_back(&h, want);
              }
            });
      }
      // The releases of the last poll's transfers go out with these claims, or alone.
      ClaimAndLaunch(ready, now);
      counters.SetGauges(in_flight(), scheduler.buffered(), scheduler.hosts(),
                         scheduler.hosts_waiting());

      const bool settled = in_flight() == 0 && scheduler.buffered() == 0 && workers.Idle() &&
                           to_frontier.empty();
      const bool idle = settled && link.Idle();
      // With nothing on its way to the frontier, every completion is durable there: its
      // verdict on exhaustion is final.
      if (idle && stop) return absl::OkStatus();
      // Stopped while the frontier is down: Run makes one last attempt to send what is left.
      if (settled && stop && link.Down()) return absl::OkStatus();
      if (idle) {
        absl::StatusOr<bool> exhausted = link.IsExhausted();
        if (!exhausted.ok()) return exhausted.status();
        if (*exhausted) return absl::OkStatus();
      }

      absl::Duration timeout = absl::Milliseconds(20);
      if (std::optional<absl::Duration> due = scheduler.NextDue();
          due.has_value() && in_flight() < options.max_in_flight && !backlogged && !unconfirmed) {
        // From the clock as it is now, not at the start of this turn: the turn's work would
        // otherwise make every politeness wake-up late by its duration.
        timeout = std::clamp(*due - clock.MonotonicNow(), absl::ZeroDuration(), timeout);
      }
      for (HttpResult& r : http->Poll(timeout)) OnResult(std::move(r));
    }
  }
};

Fetcher::Fetcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Fetcher::~Fetcher() = default;

namespace {

// The address every request goes to with connect_to (empty without), checked by the guard.
absl::StatusOr<std::string> ConnectToIp(const FetcherOptions& options,
                                        const net::AddressPolicy& guard) {
  if (options.http.connect_to.empty()) return std::string();
  const std::string host = options.http.connect_to.substr(0, options.http.connect_to.rfind(':'));
  absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(host);
  if (!ip.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("connect_to needs an IP address, got \"", host, "\""));
  }
  if (!guard.IsAllowed(*ip)) {
    return absl::InvalidArgumentError(
        absl::StrCat("connect_to address ", host, " is refused by the SSRF guard (",
                     std::string(guard.RefusalReason(*ip)), "); allow it with --allow-network"));
  }
  return ip->ToString();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Fetcher>> Fetcher::Create(const FetcherOptions& options,
                                                         const FetcherDeps& deps) {
  if (deps.frontier == nullptr || deps.politeness == nullptr || deps.resolver == nullptr ||
      deps.guard == nullptr || deps.scope == nullptr || deps.clock == nullptr) {
    return absl::InvalidArgumentError(
        "a Fetcher needs a frontier, politeness, a resolver, a guard, a scope and a clock");
  }
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  std::unique_ptr<HttpClient> owned_http;
  if (deps.transport == nullptr) {
    absl::StatusOr<std::unique_ptr<HttpClient>> http =
        HttpClient::Create(options.http, *deps.guard);
    if (!http.ok()) return http.status();
    owned_http = *std::move(http);
  }
  absl::StatusOr<std::string> connect_to = ConnectToIp(options, *deps.guard);
  if (!connect_to.ok()) return connect_to.status();
  auto impl = std::make_unique<Impl>(options, *deps.frontier, deps.dedup, *deps.politeness,
                                     *deps.resolver, *deps.guard, *deps.scope, deps.warc,
                                     *deps.clock, deps.observer, *std::move(connect_to));
  impl->http = deps.transport != nullptr ? deps.transport : owned_http.get();
  impl->owned_http = std::move(owned_http);
  return std::unique_ptr<Fetcher>(new Fetcher(std::move(impl)));
}

absl::Status Fetcher::Run() { return impl_->Run(); }

void Fetcher::Stop() {
  impl_->stop = true;
  impl_->link.Stopping();
  impl_->Wake();
}

FetcherStats Fetcher::Stats() const { return impl_->counters.Snapshot(); }

}  // namespace crawler::fetcher
