// What a standalone crawl tells its user: the crawl log (one line per fetch), running totals for
// the progress line, and the final JSON summary.
//
// Crawl log format (tab separated, one line per fetch, a contract scripts rely on):
//   time  url  status  bytes  duration_ms  outcome  detail
// time is RFC 3339 UTC with milliseconds; status 0 means no HTTP response; outcome is the
// frontier's outcome class ("fetched", "redirect", "robots_denied", ...), "robots" for a
// robots.txt fetch or "sitemap" for a sitemap read for its URLs (whatever its outcome, which
// the detail then names unless it was fetched); detail is free text (error, duplicate-of,
// redirect target, what a sitemap held), possibly empty.
//
// Thread-safety: both observers are thread-safe (events come from fetcher worker threads).
#ifndef CRAWLER_SERVICES_FETCHER_CRAWL_REPORT_H_
#define CRAWLER_SERVICES_FETCHER_CRAWL_REPORT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "services/fetcher/fetch_event.h"

namespace crawler::fetcher {

// Each worker batch of lines is handed to the kernel in one write() on an O_APPEND descriptor
// (before its outcomes reach the frontier): a killed crawl loses no line of a recorded outcome
// and leaves no half line, and a resumed crawl appends to the same log.
class CrawlLog final : public fetcher::FetchObserver {
 public:
  // Opens `path` for appending. If a previous process left a last line without its newline
  // (it died inside write()), the newline is added so the next line starts clean.
  static absl::StatusOr<std::unique_ptr<CrawlLog>> Open(const std::string& path);
  ~CrawlLog() override;
  void OnFetch(const fetcher::FetchEvent& event) override;
  // The batch's lines in one write(): whole lines, never interleaved with other batches.
  void OnFetchBatch(absl::Span<const fetcher::FetchEvent* const> events) override;

 private:
  explicit CrawlLog(int fd) : fd_(fd) {}
  const int fd_;
};

// Totals of a crawl.
struct CrawlTotals {
  uint64_t fetches = 0;  // HTTP requests answered or failed (robots.txt included)
  uint64_t pages = 0;    // collection URLs that got an HTTP response
  uint64_t bytes = 0;    // body bytes as transferred
  uint64_t robots_txt = 0;
  // Sitemaps read (FetchEvent::sitemap, any outcome), and the page URLs they listed.
  uint64_t sitemaps = 0;
  uint64_t sitemap_urls = 0;
  uint64_t robots_denied = 0;
  uint64_t duplicates = 0;
  uint64_t errors = 0;                              // network errors and HTTP 4xx/5xx
  // Links not followed because their page had more than the per-page cap (max_links), and the
  // pages that had.
  uint64_t links_cut = 0;
  uint64_t pages_with_links_cut = 0;
  uint64_t trap_links = 0;  // links dropped as spider traps (FetchEvent::trap_links)
  uint64_t links_too_deep = 0;  // links past max_depth (FetchEvent::links_too_deep)
  // URLs the SSRF guard refused (their address is private, loopback, metadata...), and the
  // crawl log detail of the first ("address refused (loopback): 127.0.0.1").
  uint64_t address_refused = 0;
  std::string first_address_refusal;
  std::map<std::string, uint64_t> outcomes;         // by outcome class
  std::map<std::string, uint64_t> errors_by_class;  // "http_404", "timeout", ...
};

class CrawlStats final : public fetcher::FetchObserver {
 public:
  void OnFetch(const fetcher::FetchEvent& event) override;
  void OnFetchBatch(absl::Span<const fetcher::FetchEvent* const> events) override;
  CrawlTotals Totals() const;

 private:
  void CountLocked(const fetcher::FetchEvent& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  CrawlTotals totals_ ABSL_GUARDED_BY(mu_);
};

// Fans one event out to several observers.
class ObserverList final : public fetcher::FetchObserver {
 public:
  void Add(fetcher::FetchObserver* observer) { observers_.push_back(observer); }
  void OnFetch(const fetcher::FetchEvent& event) override {
    for (fetcher::FetchObserver* o : observers_) o->OnFetch(event);
  }
  void OnFetchBatch(absl::Span<const fetcher::FetchEvent* const> events) override {
    for (fetcher::FetchObserver* o : observers_) o->OnFetchBatch(events);
  }

 private:
  std::vector<fetcher::FetchObserver*> observers_;  // set up before the crawl starts
};

// The final summary as a JSON object (pages, bytes, errors by class, duplicates, robots-denied,
// pages/s, elapsed, ...). `extra` is spliced in as further members (already JSON).
std::string SummaryJson(const CrawlTotals& totals, absl::Duration elapsed,
                        const std::string& extra_members);

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_CRAWL_REPORT_H_
