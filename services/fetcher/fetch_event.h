// FetchEvent: one line of the crawl log, and what metrics and progress reports count. Emitted
// once per leased URL when its fetch (or decision not to fetch) is final.
#ifndef CRAWLER_SERVICES_FETCHER_FETCH_EVENT_H_
#define CRAWLER_SERVICES_FETCHER_FETCH_EVENT_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "services/frontier/url_record.h"

namespace crawler::fetcher {

struct FetchEvent {
  absl::Time time;  // when the response ended (wall clock)
  std::string url;
  int http_status = 0;  // 0: no HTTP response
  uint64_t bytes = 0;   // body bytes as transferred
  absl::Duration duration = absl::ZeroDuration();
  frontier::OutcomeClass outcome = frontier::OutcomeClass::kFetched;
  std::string content_type;  // sniffed essence, for fetched pages
  std::string detail;        // error text, duplicate-of URL, redirect target, ...
  uint32_t outlinks = 0;     // URLs sent to the frontier
  // Links of the page past its cap (html::ExtractOptions::max_links), not followed; the
  // detail then says "links cut: <links_cut> of <links found>".
  uint64_t links_cut = 0;
  // Links dropped as spider traps (lib/scope: too long, repeated path segments, too many query
  // parameters); the detail then says "trap links dropped: N (last: <verdict>)".
  uint64_t trap_links = 0;
  // Links past the collection's max_depth, not sent to the frontier (it would refuse them).
  uint64_t links_too_deep = 0;
  bool robots_txt = false;   // a robots.txt fetch, not a page of the collection
  // A sitemap read for the URLs it lists (frontier::LeasedTask::sitemap_level), not a page of
  // the collection; the crawl log's outcome column says "sitemap", the detail what it held.
  bool sitemap = false;
  uint32_t sitemap_urls = 0;  // page URLs it listed (before scope and dedup)
};

// Receives every event; implementations (crawl log, stats, metrics) must be thread-safe: events
// come from the fetcher's worker threads.
class FetchObserver {
 public:
  virtual ~FetchObserver() = default;
  virtual void OnFetch(const FetchEvent& event) = 0;
  // A worker's batch of events, in order. The default hands each to OnFetch; an observer that
  // pays per call (a write per crawl log line, a lock) takes the batch at once.
  virtual void OnFetchBatch(absl::Span<const FetchEvent* const> events) {
    for (const FetchEvent* event : events) OnFetch(*event);
  }
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_FETCH_EVENT_H_
