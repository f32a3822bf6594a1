// Fetcher: the fetcher core (docs/architecture.md §3, §6). It leases batches of URLs from the
// frontier, and for each host works through: resolve -> SSRF guard -> robots.txt (fetched once per
// host, cached per RFC 9309 §2.4) -> politeness claim -> HTTP GET. Finished transfers go to a pool
// of worker threads (PageProcessor: parse, fingerprint, dedup, WARC); their outcomes and outlinks
// go back to the frontier in batches.
//
// Politeness is enforced here and only here: no request (robots.txt included) starts without a
// granted claim for its host and address (docs/architecture.md §2.1). The frontier's host order is
// a hint.
//
// No URL is lost: a leased URL is either completed, or abandoned before its lease deadline so
// that the frontier re-queues it (a request never starts on a lease about to expire, so a URL is
// not fetched twice because of a slow queue here).
//
// Parts (each with its own contract): HostScheduler (per-host work, address, politeness claims
// and wake-ups), RobotsCache (robots.txt rules and their responses), WorkerPool (page
// processing threads), FrontierLink (the frontier I/O thread, batching and outages), over an
// HttpTransport (HttpClient in production). The Fetcher is the loop that drives them.
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
#include "services/collections/collection.h"
#include "services/common/retry/backoff.h"
#include "services/dedup/dedup_client.h"
#include "services/fetcher/fetch_event.h"
#include "services/fetcher/fetcher_stats.h"
#include "services/fetcher/http_client.h"
#include "services/fetcher/http_transport.h"
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
  // Where sitemaps are looked for: the Sitemap: URLs a robots.txt lists, and /sitemap.xml when
  // it lists none. They go through scope like links. A crawl takes its collection's
  // sitemap_discovery (on by default) through FetcherOptionsFor; a bare Fetcher looks nowhere.
  collections::SitemapDiscovery sitemap_discovery = collections::SitemapDiscovery::kOff;
  // Concurrent HTTP transfers, over all hosts. Fetched pages waiting for a worker are held to
  // the same number: no transfer starts while that many wait, so when the workers fall behind
  // the network, fetching slows down instead of the backlog (and memory) growing without bound.
  size_t max_in_flight = 256;
  // URLs per lease call, and per host per lease call. Leasing many URLs of one host only makes
  // them wait here; keep max_per_host x per-host delay well below the frontier's lease duration.
  size_t lease_batch = 512;
  size_t lease_max_per_host = 4;
  // After a lease that brought nothing, the next waits this long; after one that brought fewer
  // URLs than there was room for (the frontier's ready hosts are used up for now), this long.
  // In one process a lease costs microseconds; over gRPC every lease is a call, and pausing
  // keeps them to a few per thousand pages (the fetcher service sets 250 ms and 100 ms).
  absl::Duration lease_pause_empty = absl::Milliseconds(20);
  absl::Duration lease_pause_partial = absl::ZeroDuration();
  // Leased URLs held here, not yet started, at most; leasing resumes once a lease_batch fits.
  size_t max_buffered_tasks = 4096;
  // A task whose lease ends within this margin is abandoned (the frontier re-queues it) rather
  // than started, so a slow response cannot outlive its lease.
  absl::Duration lease_safety_margin = absl::Seconds(15);
  // After Stop(), transfers still running this long are aborted and their URLs handed back to
  // the frontier (not completed: fetched again when the crawl resumes). Under the 30 s a
  // container runtime usually waits between SIGTERM and SIGKILL, with room to flush.
  absl::Duration drain_timeout = absl::Seconds(20);
  // A loop turn that begins this long after the previous one (the process was stopped or
  // starved) starts nothing until the frontier has answered a call made since: the collection
  // whose leases are held may have been deleted or re-created meanwhile. A normal turn waits at
  // most 20 ms; a false alarm costs one frontier round trip.
  absl::Duration stall_confirm_after = absl::Milliseconds(250);
  int worker_threads = 2;
  size_t worker_batch = 16;  // pages per PageProcessor::Process call (one dedup call)
  // Completions and outlinks are sent when this many are pending or this much time passed.
  size_t flush_batch = 512;
  absl::Duration flush_interval = absl::Milliseconds(50);
  // The browser and the limits of each render, for collections whose render is not "never"
  // (processing.render; page_renderer.h). The browser starts with the first Fetcher that
  // renders (CollectionCrawl::NewFetcher).
  BrowserRenderOptions render;
  // Robots rules of this many hosts are kept (least recently fetched dropped first).
  size_t max_robots_entries = 100'000;
  // How the fetcher waits out a frontier that answers with a retryable error (unreachable,
  // overloaded): what it could not send is kept and sent again after a back-off from `initial`
  // (50 ms) doubling to `max` (5 s), with jitter; max_attempts is not used (the fetcher retries
  // for as long as it runs; only a non-retryable error stops it).
  retry::BackoffOptions frontier_retry;

  absl::Status Validate() const;
};

// What a Fetcher works with besides its options. Not owned: each must outlive the Fetcher.
// Processes build their Fetchers through CollectionCrawl (collection_crawl.h), which fills this in
// the same way for the standalone crawl and the fetcher service.
struct FetcherDeps {
  frontier::FrontierClient* frontier = nullptr;  // required
  politeness::Politeness* politeness = nullptr;  // required
  Resolver* resolver = nullptr;                  // required
  const net::AddressPolicy* guard = nullptr;     // required
  const scope::Scope* scope = nullptr;           // required
  const Clock* clock = nullptr;                  // required
  dedup::DedupClient* dedup = nullptr;           // null: no duplicate detection
  warc::WarcWriter* warc = nullptr;              // null: nothing archived
  FetchObserver* observer = nullptr;             // null: events go nowhere
  // Null: an HttpClient made from options.http. Tests give an in-memory transport
  // (options.http.connect_to is still checked and used for politeness).
  HttpTransport* transport = nullptr;
};

class Fetcher {
 public:
  // Errors: kInvalidArgument for bad options or a missing required part.
  static absl::StatusOr<std::unique_ptr<Fetcher>> Create(const FetcherOptions& options,
                                                         const FetcherDeps& deps);
  ~Fetcher();

  // Runs until the frontier is exhausted and everything here is finished (returns OK), until
  // Stop() (finishes the transfers in flight, for at most drain_timeout, then aborts the rest;
  // returns OK; leases not started or aborted are handed back and re-queued by the frontier), until the frontier fails with a non-retryable error (returns
  // it), or until WARC records of a page or of a robots.txt cannot be written (finishes as after
  // Stop() and returns kUnavailable; the pages not archived are not completed, so their leases
  // expire and they are fetched again). A frontier failing with retryable errors is waited out
  // (FrontierLink, frontier_link.h), counted in Stats(); stopped while it is still down, Run
  // returns its error and the completions not sent are re-leased by the frontier.
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
