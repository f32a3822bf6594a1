// ProgressReporter: the periodic job that prints a crawl's progress line (docs/configuration.md,
// "What a crawl reports") every `interval`:
//   [12s] pages 5120 (431.0/s)  queued 20311  waiting 3  in flight 256  errors 12  duplicates 40
//   robots-denied 7
// and, when the crawl re-visits and a tuning exists, a second line with the re-visit policy's
// state (pages, re-visits, changes seen, observed rate, budget, mu, expected freshness). The rate
// is pages per second since the previous line.
//
// The numbers come from callbacks (ProgressSources), so the same reporter serves one process
// or a sum over partitions. Thread-safety: Tick runs on one thread at a time (a
// PeriodicRunner's); the callbacks are called from it.
#ifndef CRAWLER_SERVICES_STANDALONE_PROGRESS_REPORTER_H_
#define CRAWLER_SERVICES_STANDALONE_PROGRESS_REPORTER_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "services/common/periodic_runner.h"
#include "services/fetcher/crawl_report.h"
#include "services/frontier/frontier.h"
#include "services/scheduler/scheduler.h"

namespace crawler::standalone {

struct ProgressReporterOptions {
  // Time between progress lines; zero: none (the reporter should then not be run at all).
  absl::Duration interval = absl::Seconds(5);
};

struct ProgressSources {
  std::function<fetcher::CrawlTotals()> totals;
  std::function<frontier::FrontierStats()> frontier;
  std::function<uint64_t()> in_flight;  // transfers under way
  // Empty (or returning nothing): no re-visit line.
  std::function<std::optional<scheduler::RevisitTuning>()> tuning;
};

// The progress line(s) at `elapsed` (truncated to seconds) for `rate` pages per second, each
// ending in '\n'.
std::string FormatProgress(absl::Duration elapsed, double rate, const fetcher::CrawlTotals& totals,
                           const frontier::FrontierStats& frontier, uint64_t in_flight,
                           const std::optional<scheduler::RevisitTuning>& tuning);

class ProgressReporter final : public PeriodicJob {
 public:
  // `start` is the crawl's start (elapsed time and the first rate count from it); lines go to
  // `out` (not owned; stderr for a crawl).
  ProgressReporter(ProgressReporterOptions options, absl::Time start, ProgressSources sources,
                   std::FILE* out);

  void Tick(absl::Time now) override;

 private:
  const ProgressReporterOptions options_;
  const absl::Time start_;
  const ProgressSources sources_;
  std::FILE* const out_;
  absl::Time last_line_;
  uint64_t last_pages_ = 0;
};

}  // namespace crawler::standalone

#endif  // CRAWLER_SERVICES_STANDALONE_PROGRESS_REPORTER_H_
