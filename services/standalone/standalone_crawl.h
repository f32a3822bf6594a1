// StandaloneCrawl: the four cores wired in one process (`crawler crawl`): RocksDB in
// <data_dir>/state holding the frontier and dedup column families, in-process politeness, the
// scheduler feeding seeds, the fetcher crawling, WARC files, the crawl log, progress lines and
// the final summary. While the fetcher runs, a PeriodicRunner drives the housekeeping jobs a
// distributed service's main composes the same way: LeaseReaper (frontier), RunLimit (run_for),
// RevisitTuner (scheduler, when re-visiting) and ProgressReporter (progress_interval).
//
// Resuming: opening an existing data_dir continues the crawl (the frontier re-queues leases of
// the previous process; seeds already seen are not queued again; the dedup index remembers
// earlier content). Nothing is lost on SIGKILL: RocksDB's WAL holds every batch the frontier
// acknowledged.
//
// Thread-safety: Run() blocks; Stop() may be called from another thread.
#ifndef CRAWLER_SERVICES_STANDALONE_STANDALONE_CRAWL_H_
#define CRAWLER_SERVICES_STANDALONE_STANDALONE_CRAWL_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "lib/politeness/politeness_options.h"
#include "services/fetcher/collection_crawl.h"
#include "services/fetcher/crawl_report.h"
#include "services/standalone/crawl_config.h"

namespace crawler::metrics {
class MetricsServer;
}  // namespace crawler::metrics

namespace crawler::standalone {

// The crawl's settings for its collection's assembly (fetcher::CollectionCrawl, the same as the
// fetcher service's): paths under the data dir, the user agent, WARC rotation and fsync.
// `config` must be finalized.
fetcher::CollectionCrawlSettings CrawlSettingsFor(const CrawlConfig& config);

class StandaloneCrawl {
 public:
  // Opens the state and output; kInvalidArgument for bad configuration, kUnavailable when the
  // data directory is unusable (e.g. another crawl holds its lock, <data_dir>/crawl.lock: the
  // message says so plainly, with that crawl's pid), kFailedPrecondition for a directory that
  // holds other files but no crawl (nothing is written into it).
  //
  // With `metrics` (may be null; must outlive the crawl) the crawl's metrics are served there
  // (docs/metrics.md: the fetcher's, the frontier partitions', the politeness store's).
  //
  // `log` ("crawl") says what the crawl does: seeds, refusals, limits reached, recoveries.
  static absl::StatusOr<std::unique_ptr<StandaloneCrawl>> Open(
      CrawlConfig config, const Clock& clock, metrics::MetricsServer* metrics = nullptr,
      const Logger& log = {});
  ~StandaloneCrawl();

  // Crawls until the frontier is exhausted, a limit is reached, or Stop(). Writes the summary
  // (stats_json) at the end. Returns the totals; kFailedPrecondition, saying why, when nothing
  // was fetched because every seed was refused (out of scope, or by the SSRF guard).
  absl::StatusOr<fetcher::CrawlTotals> Run();
  void Stop();

 private:
  struct Parts;
  explicit StandaloneCrawl(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

}  // namespace crawler::standalone

#endif  // CRAWLER_SERVICES_STANDALONE_STANDALONE_CRAWL_H_
