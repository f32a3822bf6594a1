// Fetcher: the fetcher core (DESIGN.md §3, §6). It leases batches of URLs from the frontier,
// and for each host works through: resolve -> SSRF guard -> robots.txt (fetched once per host,
// cached per RFC 9309 §2.4) -> politeness claim -> HTTP GET. Finished transfers go to a pool of
// worker threads (PageProcessor: parse, fingerprint, dedup, WARC); their outcomes and outlinks
// go back to the frontier in batches.
//
// Politeness is enforced here and only here: no request (robots.txt included) starts without a
// granted claim for its host and address (DESIGN.md §2.1). The frontier's host order is a hint.
//
// No URL is lost: a leased URL is either completed, or abandoned before its lease deadline so
// that the frontier re-queues it (a request never starts on a lease about to expire, so a URL is
// not fetched twice because of a slow queue here).
//
// Threading: Run() drives the network loop on the calling thread; `worker_threads` more threads
// process pages, and one more talks to the frontier (AddUrls, Complete, Lease), so the loop never
// waits on the frontier while requests are due. Stop() may be called from any thread (e.g. a
// signal handler's helper).
#ifndef CRAWLER_SERVICES_FETCHER_FETCHER_H_
#define CRAWLER_SERVICES_FETCHER_FETCHER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/net/address_policy.h"
#include "lib/politeness/politeness.h"
#include "lib/robots/robots_policy.h"
#include "lib/scope/scope.h"
#include "lib/warc/warc_writer.h"
#include "services/dedup/dedup_client.h"
#include "services/fetcher/fetch_event.h"
#include "services/fetcher/http_client.h"
#include "services/fetcher/page_processor.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/frontier_client.h"

namespace crawler::fetcher {

struct FetcherOptions {
  HttpClientOptions http;
  PageProcessorOptions processing;
  AsyncResolverOptions resolver;
  robots::RobotsPolicyOptions robots_policy;
  // The product token matched against robots.txt User-agent lines (RFC 9309 §2.2.1), e.g.
  // "examplebot" for a User-Agent of "ExampleBot/1.0 (+https://example.org/bot)".
  std::string robots_agent = "crawler";
  bool obey_robots = true;
  // Queue the Sitemap: URLs a robots.txt lists (they then go through scope like any link).
  bool queue_robots_sitemaps = false;
  // Concurrent HTTP transfers, over all hosts. Fetched pages waiting for a worker are held to
  // the same number: no transfer starts while that many wait, so when the workers fall behind
  // the network, fetching slows down instead of the backlog (and memory) growing without bound.
  size_t max_in_flight = 256;
  // URLs per lease call, and per host per lease call. Leasing many URLs of one host only makes
  // them wait here; keep max_per_host x per-host delay well below the frontier's lease duration.
  size_t lease_batch = 512;
  size_t lease_max_per_host = 4;
  // Leased URLs held here, not yet started, at most; leasing resumes below half of it.
  size_t max_buffered_tasks = 4096;
  // A task whose lease ends within this margin is abandoned (the frontier re-queues it) rather
  // than started, so a slow response cannot outlive its lease.
  absl::Duration lease_safety_margin = absl::Seconds(15);
  int worker_threads = 2;
  size_t worker_batch = 16;  // pages per PageProcessor::Process call (one dedup call)
  // Completions and outlinks are sent when this many are pending or this much time passed.
  size_t flush_batch = 512;
  absl::Duration flush_interval = absl::Milliseconds(50);
  // Robots rules of this many hosts are kept (least recently fetched dropped first).
  size_t max_robots_entries = 100'000;

  absl::Status Validate() const;
};

// Live counters, for progress reports and metrics.
struct FetcherStats {
  uint64_t leased = 0;
  uint64_t requests_started = 0;
  uint64_t robots_requests = 0;
  uint64_t robots_denied = 0;
  uint64_t abandoned = 0;  // leases let expire (see lease_safety_margin)
  uint64_t completed = 0;
  uint64_t outlinks_sent = 0;
  uint64_t politeness_waits = 0;
  uint64_t in_flight = 0;
  uint64_t buffered = 0;
  uint64_t hosts = 0;
};

class Fetcher {
 public:
  // Every reference must outlive the Fetcher. `warc` and `dedup` may be null; `observer` may be
  // null. Errors: kInvalidArgument for bad options.
  static absl::StatusOr<std::unique_ptr<Fetcher>> Create(
      const FetcherOptions& options, frontier::FrontierClient& frontier, dedup::DedupClient* dedup,
      politeness::Politeness& politeness, Resolver& resolver, const net::AddressPolicy& guard,
      const scope::Scope& scope, warc::WarcWriter* warc, const Clock& clock,
      FetchObserver* observer);
  ~Fetcher();

  // Runs until the frontier is exhausted and everything here is finished (returns OK), until
  // Stop() (finishes the transfers in flight, returns OK; leases not started are abandoned and
  // re-queued by the frontier), until the frontier fails (returns its error), or until WARC
  // records cannot be written (finishes as after Stop() and returns kUnavailable; the pages not
  // archived are not completed, so their leases expire and they are fetched again).
  absl::Status Run();
  void Stop();

  FetcherStats Stats() const;

 private:
  struct Impl;
  explicit Fetcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_FETCHER_H_
