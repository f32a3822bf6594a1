// FetcherMetrics: the fetcher's Prometheus metrics (docs/metrics.md, "Fetcher"), for the fetcher
// service and for `crawler crawl` alike, so the same dashboards serve both.
//
// Two halves:
// - per page, from the FetchEvents (ForCollection gives one FetchObserver per collection, its
//   counters resolved once): crawler_fetcher_pages_total{collection,outcome},
//   crawler_fetcher_bytes_total{collection,outcome},
//   crawler_fetcher_fetch_duration_seconds{outcome}, crawler_fetcher_robots_denied_total
//   {collection}, crawler_fetcher_duplicates_total{collection,kind};
// - when scraped, from counters the fetcher's parts keep anyway (AppendFetcherSnapshot): the
//   transfer and host gauges, the politeness claims, waits, Exchange times and store, the WARC
//   records and bytes, the outlink exchange.
//
// The outcome label is one of a fixed set (OutcomeLabel): success (2xx), not_modified (304),
// redirect (other 3xx), client_error (4xx), server_error (5xx and any other status),
// network_error (no HTTP response: DNS, connect, TLS, timeout, reset, protocol), robots_denied
// (no request: robots.txt disallows), blocked (no request: SSRF guard, scope). robots.txt
// fetches are not pages: they count in bytes_total and fetch_duration_seconds, not in
// pages_total. Duplicates are pages with their HTTP class (success) and count in
// duplicates_total{kind="exact"|"near"} as well.
//
// Thread-safety: thread-safe (the observers take events from every worker thread).
#ifndef CRAWLER_SERVICES_FETCHER_FETCHER_METRICS_H_
#define CRAWLER_SERVICES_FETCHER_FETCHER_METRICS_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "lib/browser/browser.h"
#include "lib/politeness/politeness.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "services/common/metrics/snapshot_collector.h"
#include "services/fetcher/fetch_event.h"
#include "services/fetcher/fetcher_stats.h"
#include "services/fetcher/outlink_outbox.h"
#include "services/frontier/routed_frontier_client.h"

namespace crawler::fetcher {

// The outcome classes of the metrics' `outcome` label.
enum class OutcomeLabel : uint8_t {
  kSuccess,
  kNotModified,
  kRedirect,
  kClientError,
  kServerError,
  kNetworkError,
  kRobotsDenied,
  kBlocked,
};
inline constexpr size_t kOutcomeLabels = 8;
std::string_view OutcomeLabelName(OutcomeLabel label);
OutcomeLabel OutcomeLabelOf(const FetchEvent& event);

class FetcherMetrics {
 public:
  explicit FetcherMetrics(prometheus::Registry& registry);
  ~FetcherMetrics();
  FetcherMetrics(const FetcherMetrics&) = delete;
  FetcherMetrics& operator=(const FetcherMetrics&) = delete;

  // The observer counting `collection`'s events; made on first use, valid as long as this.
  FetchObserver& ForCollection(const std::string& collection);

 private:
  class CollectionObserver;

  prometheus::Family<prometheus::Counter>& pages_;
  prometheus::Family<prometheus::Counter>& bytes_;
  prometheus::Family<prometheus::Counter>& robots_denied_;
  prometheus::Family<prometheus::Counter>& duplicates_;
  // Per outcome, shared by the collections (the label set has no collection).
  std::array<prometheus::Histogram*, kOutcomeLabels> duration_{};
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<CollectionObserver>> collections_
      ABSL_GUARDED_BY(mu_);
};

// What the snapshot half reads: the fetchers' counters (summed over a process's fetchers) and,
// when there are such, the politeness store's and the outlink router's.
struct FetcherSnapshot {
  FetcherStats fetcher;
  // What each collection's WARC writers wrote (WarcWriter::RecordsWritten, BytesWritten), over
  // the process's life.
  struct Warc {
    std::string collection;
    uint64_t records = 0;
    uint64_t bytes = 0;
  };
  std::vector<Warc> warc;
  std::optional<politeness::PolitenessStats> politeness;
  std::optional<frontier::RoutingStats> routing;
  // The outlinks kept for other partitions (a distributed fetcher's OutlinkOutboxes, summed).
  std::optional<OutboxStats> outbox;
  // The browsers of the collections that render (CollectionCrawl::browser_totals, summed);
  // absent when none does.
  std::optional<browser::BrowserStats> browser;
};
void AppendFetcherSnapshot(const FetcherSnapshot& snapshot, metrics::SnapshotFamilies& out);

// Adds `from`'s counters and gauges to `into` (a process runs one fetcher per collection).
void AddFetcherStats(const FetcherStats& from, FetcherStats& into);
// Adds one browser's figures to `into`: counts and current memory summed, the peak the larger.
void AddBrowserStats(const browser::BrowserStats& from, browser::BrowserStats& into);

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_FETCHER_METRICS_H_
