#include "services/fetcher/fetcher.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "lib/http/chunked_decoder.h"
#include "lib/http/content_decoder.h"
#include "lib/http/response_head.h"
#include "lib/politeness/delay_policy.h"
#include "lib/robots/robots_rules.h"
#include "lib/url/canonical_url.h"
#include "lib/url/host_key.h"
#include "lib/url/url.h"

namespace crawler::fetcher {
namespace {

using frontier::OutcomeClass;

// robots.txt bodies parsed at most (RFC 9309 §2.5 requires at least 500 KiB).
constexpr size_t kMaxRobotsBytes = 512 * 1024;

// Cache-Control: max-age=N (RFC 9111 §5.2.2.1), for the robots.txt cache lifetime.
std::optional<absl::Duration> MaxAge(const http::ResponseHead& head) {
  const std::string cc = absl::AsciiStrToLower(head.GetCombined("Cache-Control"));
  const size_t pos = cc.find("max-age=");
  if (pos == std::string::npos) return std::nullopt;
  size_t end = pos + 8;
  while (end < cc.size() && absl::ascii_isdigit(cc[end])) ++end;
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(absl::string_view(cc).substr(pos + 8, end - pos - 8), &seconds)) {
    return std::nullopt;
  }
  return absl::Seconds(seconds);
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
  if (worker_threads < 1 || worker_threads > 256) {
    return absl::InvalidArgumentError("worker_threads must be in [1, 256]");
  }
  if (worker_batch < 1 || flush_batch < 1) {
    return absl::InvalidArgumentError("worker_batch and flush_batch must be >= 1");
  }
  if (robots_agent.empty()) return absl::InvalidArgumentError("robots_agent must not be empty");
  return absl::OkStatus();
}

struct Fetcher::Impl {
  struct Task {
    frontier::LeasedTask lease;
    url::Url url;
  };

  // A lease as the I/O thread hands it over: its URL already parsed there, off the network
  // thread.
  struct LeasedUrl {
    frontier::LeasedTask lease;
    absl::StatusOr<url::Url> url;
  };

  struct RobotsEntry {
    robots::RobotsRules rules;
    absl::Time expires;
    // DisallowAll because robots.txt could not be fetched (5xx, network): the URLs it blocks are
    // retried later rather than given up (RFC 9309 §2.3.1.4: the site is "unreachable").
    bool unavailable = false;
    std::string why;  // for the log lines of the URLs it blocks: "HTTP 503", "connect_failed"
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
    absl::Duration wake_at = absl::ZeroDuration();  // monotonic; not before
  };

  // A transfer in flight.
  struct Pending {
    std::string host_key;
    std::optional<Task> task;  // empty for robots.txt
    std::string url;
  };

  Impl(const FetcherOptions& o, frontier::FrontierClient& f, dedup::DedupClient* d,
       politeness::Politeness& p, Resolver& r, const net::AddressPolicy& g, const scope::Scope& s,
       warc::WarcWriter* w, const Clock& c, FetchObserver* obs)
      : options(o),
        frontier(f),
        politeness(p),
        guard(g),
        scope(s),
        warc(w),
        clock(c),
        observer(obs),
        robots_policy(o.robots_policy),
        processor(o.processing, s, d, w, obs),
        resolver(o.resolver, r, c, [this] { Wake(); }) {}

  // ---- constant after construction
  const FetcherOptions options;
  frontier::FrontierClient& frontier;
  politeness::Politeness& politeness;
  const net::AddressPolicy& guard;
  const scope::Scope& scope;
  warc::WarcWriter* const warc;
  const Clock& clock;
  FetchObserver* const observer;
  const robots::RobotsPolicy robots_policy;
  PageProcessor processor;
  std::unique_ptr<HttpClient> http;
  AsyncResolver resolver;
  std::string connect_to_ip;  // the address every request goes to, with connect_to

  // ---- loop-thread state
  absl::flat_hash_map<std::string, std::unique_ptr<HostWork>> hosts;
  using HeapEntry = std::pair<absl::Duration, std::string>;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> ready;
  absl::flat_hash_map<uint64_t, Pending> transfers;
  uint64_t next_transfer_id = 1;
  absl::flat_hash_map<std::string, RobotsEntry> robots_cache;
  std::vector<frontier::FetchOutcome> pending_outcomes;
  std::vector<frontier::UrlToAdd> pending_adds;
  size_t buffered = 0;
  std::atomic<bool> stop{false};
  // The first WARC write that failed (loop thread): the crawl stops and Run returns it.
  absl::Status archive_status;

  // ---- frontier I/O thread: every frontier call (AddUrls, Complete, Lease) happens there, so
  // the loop never waits on the frontier's storage (or, distributed, an RPC) while requests are
  // due. The loop hands over completions and outlinks and takes leased tasks, both under io_mu.
  absl::Mutex io_mu;
  std::vector<frontier::FetchOutcome> io_outcomes ABSL_GUARDED_BY(io_mu);  // not yet sent
  std::vector<frontier::UrlToAdd> io_adds ABSL_GUARDED_BY(io_mu);          // not yet sent
  std::vector<LeasedUrl> io_leased ABSL_GUARDED_BY(io_mu);                 // not yet taken
  size_t io_lease_wanted ABSL_GUARDED_BY(io_mu) = 0;  // tasks the loop has room for
  absl::Duration io_lease_not_before ABSL_GUARDED_BY(io_mu) = absl::ZeroDuration();
  bool io_busy ABSL_GUARDED_BY(io_mu) = false;       // a frontier call is in progress
  bool io_flush_now ABSL_GUARDED_BY(io_mu) = false;  // send what is pending without waiting
  bool io_stop ABSL_GUARDED_BY(io_mu) = false;       // send what is pending, then exit
  absl::Status io_status ABSL_GUARDED_BY(io_mu);     // the first failed frontier call
  std::thread io_thread;

  // ---- worker pool
  absl::Mutex work_mu;
  std::deque<FetchedPage> work ABSL_GUARDED_BY(work_mu);
  std::vector<ProcessedPage> processed ABSL_GUARDED_BY(work_mu);
  size_t work_outstanding ABSL_GUARDED_BY(work_mu) = 0;  // queued or being processed
  bool workers_stop ABSL_GUARDED_BY(work_mu) = false;
  std::vector<std::thread> workers;

  // ---- stats
  mutable absl::Mutex stats_mu;
  FetcherStats stats ABSL_GUARDED_BY(stats_mu);

  void Wake() {
    if (http != nullptr) http->Wakeup();
  }

  void Count(uint64_t FetcherStats::*field, uint64_t n = 1) {
    absl::MutexLock lock(&stats_mu);
    stats.*field += n;
  }

  void Schedule(HostWork& h, absl::Duration at) {
    h.wake_at = at;
    ready.emplace(at, h.key);
  }

  // ------------------------------------------------------------------ workers
  void WorkerLoop() {
    while (true) {
      std::vector<FetchedPage> batch;
      {
        absl::MutexLock lock(&work_mu);
        work_mu.Await(absl::Condition(
            +[](Impl* impl) ABSL_EXCLUSIVE_LOCKS_REQUIRED(impl->work_mu) {
              return impl->workers_stop || !impl->work.empty();
            },
            this));
        if (work.empty() && workers_stop) return;
        while (!work.empty() && batch.size() < options.worker_batch) {
          batch.push_back(std::move(work.front()));
          work.pop_front();
        }
      }
      const size_t n = batch.size();
      std::vector<ProcessedPage> results = processor.Process(std::move(batch));
      {
        absl::MutexLock lock(&work_mu);
        for (ProcessedPage& p : results) processed.push_back(std::move(p));
        work_outstanding -= n;
      }
      Wake();
    }
  }

  // ------------------------------------------------------------------ frontier traffic
  void Complete(frontier::FetchOutcome outcome) { pending_outcomes.push_back(std::move(outcome)); }

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
                                   .detail = std::move(detail)});
    }
  }

  // Hands the completions and outlinks gathered so far to the I/O thread, which sends them when
  // flush_batch are pending or flush_interval has passed (at once with `force`). Returns the
  // first frontier error so far.
  absl::Status Flush(bool force) {
    absl::MutexLock lock(&io_mu);
    if (!pending_adds.empty()) {
      if (io_adds.empty()) {
        io_adds.swap(pending_adds);
      } else {
        for (frontier::UrlToAdd& u : pending_adds) io_adds.push_back(std::move(u));
        pending_adds.clear();
      }
    }
    if (!pending_outcomes.empty()) {
      if (io_outcomes.empty()) {
        io_outcomes.swap(pending_outcomes);
      } else {
        for (frontier::FetchOutcome& o : pending_outcomes) io_outcomes.push_back(std::move(o));
        pending_outcomes.clear();
      }
    }
    // Only what is pending can be sent at once: a flag left standing with nothing to send would
    // keep the I/O thread from ever sleeping.
    if (force && (!io_adds.empty() || !io_outcomes.empty())) io_flush_now = true;
    return io_status;
  }

  // Takes the tasks the I/O thread has leased and tells it how many more fit.
  absl::Status Refill() {
    const absl::Duration now = clock.MonotonicNow();
    std::vector<LeasedUrl> leased;
    {
      absl::MutexLock lock(&io_mu);
      leased.swap(io_leased);
      const size_t held = buffered + leased.size();
      io_lease_wanted =
          stop || held > options.max_buffered_tasks / 2 ? 0 : options.max_buffered_tasks - held;
    }
    for (auto& [lease, parsed] : leased) {
      if (stop) {
        // Abandoned like every task not started at a stop: re-queued at lease expiry or by the
        // next process.
        Count(&FetcherStats::abandoned);
        continue;
      }
      if (!parsed.ok()) {
        CompleteWithoutRequest(lease, OutcomeClass::kOutOfScope,
                               absl::StrCat("invalid URL: ", parsed.status().message()));
        continue;
      }
      auto& slot = hosts[lease.host_key];
      if (slot == nullptr) {
        slot = std::make_unique<HostWork>();
        slot->key = lease.host_key;
        slot->host = std::string(parsed->host());
        slot->port = parsed->effective_port();
        slot->origin =
            absl::StrCat(std::string(parsed->scheme()), "://", std::string(parsed->host()),
                         parsed->port().empty() ? "" : ":", std::string(parsed->port()));
        Schedule(*slot, now);
      }
      slot->tasks.push_back(Task{std::move(lease), *std::move(parsed)});
      ++buffered;
    }
    return absl::OkStatus();
  }

  // True when nothing is on its way to or from the frontier.
  bool IoIdle() {
    absl::MutexLock lock(&io_mu);
    return !io_busy && io_outcomes.empty() && io_adds.empty() && io_leased.empty();
  }

  // The I/O thread. Outlinks are sent before the completions of the same hand-over: a
  // completion must never be durable while the links it produced are not (a crash in between
  // would lose them).
  void IoLoop() {
    absl::Duration last_send = clock.MonotonicNow();
    while (true) {
      std::vector<frontier::UrlToAdd> adds;
      std::vector<frontier::FetchOutcome> outcomes;
      size_t want = 0;
      absl::Duration now;
      {
        absl::MutexLock lock(&io_mu);
        auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(io_mu) {
          const size_t pending = io_outcomes.size() + io_adds.size();
          return io_stop || io_flush_now || pending >= options.flush_batch ||
                 (io_lease_wanted > 0 && clock.MonotonicNow() >= io_lease_not_before);
        };
        // The timeout makes flush_interval and the lease back-off take effect.
        io_mu.AwaitWithTimeout(absl::Condition(&wake), absl::Milliseconds(5));
        now = clock.MonotonicNow();
        const size_t pending = io_outcomes.size() + io_adds.size();
        if (pending > 0 && (io_stop || io_flush_now || pending >= options.flush_batch ||
                            now - last_send >= options.flush_interval)) {
          adds.swap(io_adds);
          outcomes.swap(io_outcomes);
          io_flush_now = false;
        }
        if (!io_stop && !stop && io_status.ok() && now >= io_lease_not_before) {
          want = io_lease_wanted;
        }
        if (adds.empty() && outcomes.empty() && want == 0) {
          if (io_stop) return;
          continue;
        }
        io_busy = true;
      }
      absl::Status status = absl::OkStatus();
      if (!adds.empty() || !outcomes.empty()) {
        last_send = now;
        if (!adds.empty()) {
          status = frontier.AddUrls(adds).status();
          if (status.ok()) Count(&FetcherStats::outlinks_sent, adds.size());
        }
        if (status.ok() && !outcomes.empty()) {
          status = frontier.Complete(outcomes).status();
          if (status.ok()) Count(&FetcherStats::completed, outcomes.size());
        }
      }
      std::vector<LeasedUrl> leased;
      if (status.ok() && want > 0) {
        absl::StatusOr<std::vector<frontier::LeasedTask>> got =
            frontier.Lease(std::min(options.lease_batch, want), options.lease_max_per_host);
        if (!got.ok()) {
          status = got.status();
        } else {
          Count(&FetcherStats::leased, got->size());
          leased.reserve(got->size());
          for (frontier::LeasedTask& t : *got) {
            absl::StatusOr<url::Url> parsed = url::Url::Parse(t.canonical_url);
            leased.push_back(LeasedUrl{std::move(t), std::move(parsed)});
          }
        }
      }
      bool exit = false;
      {
        absl::MutexLock lock(&io_mu);
        io_busy = false;
        if (!status.ok()) {
          // Keep what was not sent (the final flush at the end of Run tries again), in order.
          if (!adds.empty()) {
            for (frontier::UrlToAdd& u : io_adds) adds.push_back(std::move(u));
            io_adds.swap(adds);
          }
          if (!outcomes.empty()) {
            for (frontier::FetchOutcome& o : io_outcomes) outcomes.push_back(std::move(o));
            io_outcomes.swap(outcomes);
          }
          if (io_status.ok()) io_status = status;
          // Stopping: one more attempt was made; give up rather than retry forever.
          exit = io_stop;
        } else if (want > 0) {
          if (leased.empty()) {
            // Nothing ready: ask again soon, not in a tight loop.
            io_lease_not_before = now + absl::Milliseconds(20);
          } else {
            io_lease_wanted -= std::min(io_lease_wanted, leased.size());
            for (LeasedUrl& t : leased) io_leased.push_back(std::move(t));
          }
        }
      }
      // The loop takes the leased tasks, sees the error, or (everything sent) may find the
      // crawl finished.
      Wake();
      if (exit) return;
    }
  }

  // ------------------------------------------------------------------ per-host state machine
  void FailHost(HostWork& h, OutcomeClass outcome, const std::string& detail) {
    for (Task& t : h.tasks) CompleteWithoutRequest(t.lease, outcome, detail);
    buffered -= h.tasks.size();
    h.tasks.clear();
  }

  bool EnsureAddress(HostWork& h) {
    if (h.address == HostWork::Address::kReady) return true;
    if (!connect_to_ip.empty()) {
      h.address = HostWork::Address::kReady;  // politeness per IP is meaningless here
      return true;
    }
    std::optional<absl::StatusOr<std::vector<net::IpAddress>>> cached = resolver.Cached(h.host);
    if (!cached.has_value()) {
      if (h.address != HostWork::Address::kResolving) {
        h.address = HostWork::Address::kResolving;
        resolver.Request(h.host);
      }
      return false;
    }
    if (!cached->ok()) {
      // Name errors are final for these URLs (retried through the frontier's attempt limit).
      for (Task& t : h.tasks) {
        Complete(frontier::FetchOutcome{.lease_id = t.lease.lease_id,
                                        .outcome = OutcomeClass::kNetworkError,
                                        .fetch_time = clock.Now(),
                                        .retry = absl::IsUnavailable(cached->status())});
        if (observer != nullptr) {
          observer->OnFetch(
              FetchEvent{.time = clock.Now(),
                         .url = t.lease.canonical_url,
                         .outcome = OutcomeClass::kNetworkError,
                         .detail = absl::StrCat("dns: ", cached->status().message())});
        }
      }
      buffered -= h.tasks.size();
      h.tasks.clear();
      h.address = HostWork::Address::kUnknown;
      return false;
    }
    // The first address the SSRF guard accepts.
    for (const net::IpAddress& a : **cached) {
      if (guard.IsAllowed(a)) {
        h.ip = a.ToString();
        h.address = HostWork::Address::kReady;
        return true;
      }
    }
    const std::string reason = std::string(guard.RefusalReason((**cached)[0]));
    FailHost(h, OutcomeClass::kOutOfScope,
             absl::StrCat("address refused (", reason, "): ", (**cached)[0].ToString()));
    return false;
  }

  // Returns the rules if known and fresh; otherwise starts (or waits for) the robots.txt fetch.
  const RobotsEntry* Robots(HostWork& h, absl::Duration now) {
    auto it = robots_cache.find(h.key);
    if (it != robots_cache.end() && it->second.expires > clock.Now()) return &it->second;
    if (h.robots_fetching) return nullptr;
    if (Claim(h, now)) {
      const std::string url = h.robots_next_url.empty() ? absl::StrCat(h.origin, "/robots.txt")
                                                        : std::exchange(h.robots_next_url, "");
      Launch(h, std::nullopt, url);
    }
    return nullptr;
  }

  // Asks for the politeness claim of one request to `h`. When refused, reschedules the host for
  // when the claim could succeed.
  bool Claim(HostWork& h, absl::Duration now) {
    std::optional<absl::Duration> crawl_delay;
    if (auto it = robots_cache.find(h.key); it != robots_cache.end()) {
      crawl_delay = it->second.rules.CrawlDelay(options.robots_agent);
    }
    absl::StatusOr<politeness::ClaimResult> claim =
        politeness.Claim({.host_key = h.key, .ip = h.ip, .crawl_delay = crawl_delay});
    if (!claim.ok()) {
      // Shared politeness state unreachable: fail closed, try again shortly.
      Schedule(h, now + absl::Milliseconds(200));
      return false;
    }
    if (claim->granted) return true;
    Count(&FetcherStats::politeness_waits);
    if (claim->wait > absl::ZeroDuration()) {
      // The wait counts from the claim, not from `now` (the start of this loop turn): woken
      // before the claim can succeed, the host would be refused again for a sliver of time.
      Schedule(h, std::max(now, clock.MonotonicNow()) + claim->wait);
    } else {
      // A connection limit (of the host, or of its address shared with other hosts): look again
      // shortly; a transfer of this host ending also wakes it.
      Schedule(h, now + absl::Milliseconds(10));
    }
    return false;
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
      Count(&FetcherStats::requests_started);
    } else {
      h.robots_fetching = true;
      Count(&FetcherStats::robots_requests);
    }
    transfers.emplace(id, Pending{h.key, std::move(task), url});
    ++h.in_flight;
    http->Start(std::move(request));
  }

  void Advance(HostWork& h, absl::Duration now) {
    while (!h.tasks.empty() && http->in_flight() < options.max_in_flight) {
      if (!EnsureAddress(h)) return;
      const RobotsEntry* robots = nullptr;
      if (options.obey_robots) {
        robots = Robots(h, now);
        if (robots == nullptr) return;
      }
      Task& task = h.tasks.front();
      if (clock.Now() > task.lease.deadline - options.lease_safety_margin) {
        // Too late to start: let the lease expire so the frontier re-queues the URL.
        Count(&FetcherStats::abandoned);
        h.tasks.pop_front();
        --buffered;
        continue;
      }
      if (robots != nullptr) {
        const std::string path(task.url.path());
        const std::string target =
            task.url.has_query() ? absl::StrCat(path, "?", std::string(task.url.query())) : path;
        robots::MatchResult match = robots->rules.Match(options.robots_agent, target);
        if (!match.allowed) {
          Count(&FetcherStats::robots_denied);
          CompleteWithoutRequest(task.lease, OutcomeClass::kRobotsDenied,
                                 robots->unavailable
                                     ? absl::StrCat("robots.txt unavailable (", robots->why, ")")
                                 : match.rule.has_value() ? "Disallow: " + match.rule->pattern
                                                          : "",
                                 /*retry=*/robots->unavailable,
                                 // A retry before robots.txt is fetched again would meet the
                                 // same cached verdict and use up the URL's attempts while the
                                 // host may have recovered.
                                 robots->unavailable ? robots->expires : absl::InfinitePast());
          h.tasks.pop_front();
          --buffered;
          continue;
        }
      }
      if (!Claim(h, now)) return;
      Task next = std::move(h.tasks.front());
      h.tasks.pop_front();
      --buffered;
      const std::string url = next.lease.canonical_url;
      Launch(h, std::move(next), url);
    }
  }

  // ------------------------------------------------------------------ results
  void OnRobotsResult(HostWork& h, Pending& pending, HttpResult& result) {
    h.robots_fetching = false;
    robots::RobotsFetchOutcome outcome;
    outcome.redirects_followed = h.robots_redirects;
    std::optional<http::ResponseHead> head;
    if (result.error == TransportError::kNone) {
      absl::StatusOr<http::ResponseHead> parsed = http::ResponseHead::Parse(result.raw_headers);
      if (parsed.ok()) head = *std::move(parsed);
    }
    std::optional<std::string> location;
    if (head.has_value()) {
      outcome.http_status = head->status();
      outcome.max_age = MaxAge(*head);
      if (auto l = head->Get("Location"); l.has_value()) location = std::string(*l);
      outcome.has_location = location.has_value();
    }
    auto old = robots_cache.find(h.key);
    outcome.has_last_known_rules = old != robots_cache.end();
    const robots::RobotsDecision decision = robots_policy.Decide(outcome);

    std::optional<robots::RobotsRules> rules;
    switch (decision.action) {
      case robots::RobotsAction::kParseBody: {
        std::string body = result.body;
        if (auto te = head->Get("Transfer-Encoding"); te.has_value() && http::IsChunked(*te)) {
          absl::StatusOr<http::DechunkedBody> d = http::DecodeChunked(body);
          body = d.ok() ? std::move(d->data) : std::string();
        }
        absl::StatusOr<std::string> decoded =
            http::DecodeContent(body, head->content_encodings(), kMaxRobotsBytes);
        // A robots.txt too large to decode is parsed up to the limit (RFC 9309 §2.5).
        rules =
            robots::RobotsRules::Parse(decoded.ok() ? *decoded : body.substr(0, kMaxRobotsBytes));
        break;
      }
      case robots::RobotsAction::kFollowRedirect: {
        absl::StatusOr<url::Url> base = url::Url::Parse(pending.url);
        absl::StatusOr<url::Url> target =
            base.ok() ? url::Url::Parse(*location, *base) : base.status();
        // RFC 9309 §2.3.1.2: follow redirects, even across authorities (http -> https is
        // common); the rules found apply to this host. The hop is fetched like any request of
        // this host, when its politeness claim allows (the next Advance).
        if (target.ok()) {
          ++h.robots_redirects;
          h.robots_next_url = target->href();
          return;
        }
        rules = robots::RobotsRules::AllowAll();  // an unusable Location: "unavailable"
        break;
      }
      case robots::RobotsAction::kAllowAll:
        rules = robots::RobotsRules::AllowAll();
        break;
      case robots::RobotsAction::kDisallowAll:
        rules = robots::RobotsRules::DisallowAll();
        break;
      case robots::RobotsAction::kKeepLastKnown:
        if (old != robots_cache.end()) rules = old->second.rules;
        if (!rules.has_value()) rules = robots::RobotsRules::DisallowAll();
        break;
    }
    h.robots_redirects = 0;
    if (robots_cache.size() >= options.max_robots_entries) {
      // Bounded: drop expired entries, or an arbitrary one if none expired.
      const absl::Time wall = clock.Now();
      absl::erase_if(robots_cache, [&](const auto& e) { return e.second.expires <= wall; });
      if (robots_cache.size() >= options.max_robots_entries)
        robots_cache.erase(robots_cache.begin());
    }
    if (options.queue_robots_sitemaps) {
      for (const std::string& sitemap : rules->Sitemaps()) {
        absl::StatusOr<url::Url> u = url::Url::Parse(sitemap);
        if (!u.ok()) continue;
        absl::StatusOr<url::CanonicalUrl> c = url::Canonicalize(*u, options.processing.canonical);
        if (!c.ok() || scope.Check(*u, c->str(), 1) != scope::Verdict::kInScope) continue;
        pending_adds.push_back(frontier::UrlToAdd{.canonical_url = c->str(),
                                                  .host_key = url::HostKey::Of(*u).str(),
                                                  .depth = 1,
                                                  .discovered_from = pending.url});
      }
    }
    const bool unavailable = decision.action == robots::RobotsAction::kDisallowAll;
    // Without a response, the transport error says why (a refused connection, a timeout...).
    const std::string why = head.has_value() ? absl::StrCat("HTTP ", head->status())
                            : result.error == TransportError::kNone
                                ? std::string("malformed response head")
                                : std::string(TransportErrorName(result.error));
    robots_cache.insert_or_assign(
        h.key, RobotsEntry{*std::move(rules), clock.Now() + decision.cache_lifetime, unavailable,
                           unavailable ? why : ""});
    if (warc != nullptr && head.has_value()) {
      // robots.txt is archived like a page (replay tools and audits want it): request and
      // response records, the request naming the response.
      warc::WarcRecord response;
      response.type = warc::RecordType::kResponse;
      response.record_id = warc->NewRecordId();
      response.target_uri = pending.url;
      response.ip_address = result.remote_ip;
      response.content_type = std::string(warc::kHttpResponseContentType);
      response.truncated = result.truncated;
      response.block = head->raw() + result.body;
      warc::WarcRecord request;
      request.type = warc::RecordType::kRequest;
      request.target_uri = pending.url;
      request.content_type = std::string(warc::kHttpRequestContentType);
      request.concurrent_to = response.record_id;
      request.block = result.request_head;
      if (warc->Write(std::move(response)).ok() && !request.block.empty()) {
        warc->Write(std::move(request)).IgnoreError();
      }
    }
    if (observer != nullptr) {
      observer->OnFetch(FetchEvent{
          .time = clock.Now(),
          .url = pending.url,
          .http_status = head.has_value() ? head->status() : 0,
          .bytes = result.body.size(),
          .duration = result.total_time,
          .outcome = head.has_value() ? OutcomeClass::kFetched : OutcomeClass::kNetworkError,
          .detail = head.has_value()
                        ? std::string(robots::RobotsActionName(decision.action))
                        : absl::StrCat(std::string(robots::RobotsActionName(decision.action)), " (",
                                       why, result.error_message.empty() ? "" : ": ",
                                       result.error_message, ")"),
          .robots_txt = true});
    }
  }

  void OnResult(HttpResult result) {
    auto it = transfers.find(result.id);
    if (it == transfers.end()) return;
    Pending pending = std::move(it->second);
    transfers.erase(it);
    auto host_it = hosts.find(pending.host_key);
    HostWork* h = host_it == hosts.end() ? nullptr : host_it->second.get();

    // Release the politeness claim with what the host told us. This thread needs only the
    // status code (and Retry-After, rarely): the workers parse the whole head.
    const int status = result.error == TransportError::kNone
                           ? http::ResponseHead::PeekStatus(result.raw_headers).value_or(0)
                           : 0;  // 0: no valid response head
    std::optional<absl::Duration> retry_after;
    if (status == 429 || status == 503) {
      absl::StatusOr<http::ResponseHead> head = http::ResponseHead::Parse(result.raw_headers);
      if (auto v = head.ok() ? head->Get("Retry-After") : std::nullopt; v.has_value()) {
        retry_after = politeness::ParseRetryAfter(*v, clock.Now());
      }
    }
    politeness
        .Release({.host_key = pending.host_key,
                  .ip = h != nullptr ? h->ip : std::string(),
                  .response_time = result.total_time,
                  .failed = status == 0 || status >= 500,
                  .retry_after = retry_after})
        .IgnoreError();

    if (h != nullptr) {
      --h->in_flight;
      Schedule(*h, clock.MonotonicNow());
    }
    if (!pending.task.has_value()) {
      if (h != nullptr) OnRobotsResult(*h, pending, result);
      return;
    }
    FetchedPage page{.task = std::move(pending.task->lease),
                     .url = std::move(pending.task->url),
                     .http = std::move(result),
                     .fetch_time = clock.Now()};
    absl::MutexLock lock(&work_mu);
    work.push_back(std::move(page));
    ++work_outstanding;
  }

  void CollectProcessed() {
    std::vector<ProcessedPage> done;
    {
      absl::MutexLock lock(&work_mu);
      done = std::exchange(processed, {});
    }
    for (ProcessedPage& p : done) {
      for (frontier::UrlToAdd& u : p.outlinks) pending_adds.push_back(std::move(u));
      if (!p.archive_status.ok()) {
        // Not completed: the lease expires and the URL is fetched again (by a later run: the
        // crawl stops here, since the next pages would not be archived either).
        Count(&FetcherStats::abandoned);
        if (archive_status.ok()) archive_status = p.archive_status;
        stop = true;
        continue;
      }
      Complete(std::move(p.outcome));
    }
  }

  bool WorkIdle() {
    absl::MutexLock lock(&work_mu);
    return work_outstanding == 0 && processed.empty();
  }

  // True when max_in_flight fetched pages wait for (or are in) a worker: starting more
  // transfers would only grow that backlog. A worker wakes the loop after each batch.
  bool WorkBacklogged() {
    absl::MutexLock lock(&work_mu);
    return work_outstanding >= options.max_in_flight;
  }

  void PublishStats() {
    absl::MutexLock lock(&stats_mu);
    stats.in_flight = http->in_flight();
    stats.buffered = buffered;
    stats.hosts = hosts.size();
  }

  // ------------------------------------------------------------------ the loop
  absl::Status Run() {
    for (int i = 0; i < options.worker_threads; ++i) {
      workers.emplace_back([this] {
        pthread_setname_np(pthread_self(), "fetch-worker");
        WorkerLoop();
      });
    }
    io_thread = std::thread([this] {
      pthread_setname_np(pthread_self(), "fetch-frontier");
      IoLoop();
    });
    absl::Status status = Loop();
    {
      absl::MutexLock lock(&work_mu);
      workers_stop = true;
    }
    for (std::thread& t : workers) t.join();
    workers.clear();
    CollectProcessed();
    Flush(/*force=*/true).IgnoreError();
    {
      absl::MutexLock lock(&io_mu);
      io_stop = true;
    }
    io_thread.join();
    absl::Status flushed;
    {
      absl::MutexLock lock(&io_mu);
      flushed = io_status;
      // Leased but never taken: re-queued at lease expiry or by the next process.
      Count(&FetcherStats::abandoned, io_leased.size());
      io_leased.clear();
    }
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
    while (true) {
      const absl::Duration now = clock.MonotonicNow();
      for (AsyncResolver::Result& r : resolver.Drain()) {
        // Every host waiting for this name gets another look.
        for (auto& [key, h] : hosts) {
          if (h->host == r.host && h->address == HostWork::Address::kResolving) {
            h->address = HostWork::Address::kUnknown;
            Schedule(*h, now);
          }
        }
      }
      CollectProcessed();
      // With nothing in flight here, a fuller batch is not coming: waiting for one would only
      // delay the frontier (at the end of a crawl, its verdict on exhaustion).
      const bool drained = http->in_flight() == 0 && buffered == 0 && WorkIdle();
      if (absl::Status s = Flush(/*force=*/drained); !s.ok()) return s;
      if (absl::Status s = Refill(); !s.ok()) return s;

      const bool backlogged = !stop && WorkBacklogged();
      if (stop) {
        // Leased URLs not started are abandoned: the frontier re-queues them at lease expiry (or
        // at the next start: a new process re-queues every lease it finds).
        for (auto& [key, h] : hosts) {
          Count(&FetcherStats::abandoned, h->tasks.size());
          buffered -= h->tasks.size();
          h->tasks.clear();
        }
      } else if (!backlogged) {
        while (!ready.empty() && ready.top().first <= now &&
               http->in_flight() < options.max_in_flight) {
          const std::string key = ready.top().second;
          ready.pop();
          auto it = hosts.find(key);
          if (it == hosts.end()) continue;
          HostWork& h = *it->second;
          if (h.wake_at > now) continue;  // rescheduled later; a later entry exists
          Advance(h, now);
          if (h.tasks.empty() && h.in_flight == 0 && !h.robots_fetching) hosts.erase(it);
        }
      }
      PublishStats();

      const bool idle = http->in_flight() == 0 && buffered == 0 && WorkIdle() &&
                        pending_outcomes.empty() && pending_adds.empty() && IoIdle();
      // With nothing on its way to the frontier, every completion is durable there: its
      // verdict on exhaustion is final.
      if (idle && stop) return absl::OkStatus();
      if (idle) {
        absl::StatusOr<bool> exhausted = frontier.IsExhausted();
        if (!exhausted.ok()) return exhausted.status();
        if (*exhausted) return absl::OkStatus();
      }

      absl::Duration timeout = absl::Milliseconds(20);
      if (!ready.empty() && http->in_flight() < options.max_in_flight && !backlogged) {
        // From the clock as it is now, not at the start of this turn: the turn's work would
        // otherwise make every politeness wake-up late by its duration.
        timeout =
            std::clamp(ready.top().first - clock.MonotonicNow(), absl::ZeroDuration(), timeout);
      }
      for (HttpResult& r : http->Poll(timeout)) OnResult(std::move(r));
    }
  }
};

Fetcher::Fetcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Fetcher::~Fetcher() = default;

absl::StatusOr<std::unique_ptr<Fetcher>> Fetcher::Create(
    const FetcherOptions& options, frontier::FrontierClient& frontier, dedup::DedupClient* dedup,
    politeness::Politeness& politeness, Resolver& resolver, const net::AddressPolicy& guard,
    const scope::Scope& scope, warc::WarcWriter* warc, const Clock& clock,
    FetchObserver* observer) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  auto impl = std::make_unique<Impl>(options, frontier, dedup, politeness, resolver, guard, scope,
                                     warc, clock, observer);
  absl::StatusOr<std::unique_ptr<HttpClient>> http = HttpClient::Create(options.http, guard);
  if (!http.ok()) return http.status();
  impl->http = *std::move(http);
  if (!options.http.connect_to.empty()) {
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
    impl->connect_to_ip = ip->ToString();
  }
  return std::unique_ptr<Fetcher>(new Fetcher(std::move(impl)));
}

absl::Status Fetcher::Run() { return impl_->Run(); }

void Fetcher::Stop() {
  impl_->stop = true;
  impl_->Wake();
}

FetcherStats Fetcher::Stats() const {
  absl::MutexLock lock(&impl_->stats_mu);
  return impl_->stats;
}

}  // namespace crawler::fetcher
