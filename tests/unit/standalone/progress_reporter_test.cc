// ProgressReporter tests (FakeClock): the progress lines' exact format (docs/configuration.md,
// "What a crawl reports"; scripts parse them), their interval, and the rate since the last line.
#include "services/standalone/progress_reporter.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"

namespace crawler::standalone {
namespace {

using fetcher::CrawlTotals;

TEST(FormatProgress, TheLineAsDocumented) {
  CrawlTotals totals;
  totals.pages = 5120;
  totals.errors = 12;
  totals.duplicates = 40;
  totals.robots_denied = 7;
  frontier::FrontierStats fs;
  fs.queued_urls = 20311;
  fs.waiting_urls = 3;
  EXPECT_EQ(FormatProgress(absl::Milliseconds(12900), 431.0, totals, fs, 256, std::nullopt),
            "[12s] pages 5120 (431.0/s)  queued 20311  waiting 3  in flight 256  errors 12  "
            "duplicates 40  robots-denied 7\n");
}

TEST(FormatProgress, ReVisitLineWhenTuned) {
  frontier::FrontierStats fs;
  fs.revisits_scheduled = 9;
  fs.changes_detected = 4;
  fs.revisits_waited = 2;
  fs.revisit_wait_seconds = 120;
  fs.revisit_spend_visits_per_day = 236;
  scheduler::RevisitTuning tuning;
  tuning.pages = 40;
  tuning.observed_rate_per_day = 1.5;
  tuning.budget_visits_per_day = 240;
  const std::string untuned = FormatProgress(absl::Seconds(1), 0, {}, fs, 0, tuning);
  EXPECT_NE(untuned.find("\n  revisits: pages 40  re-visits 9  changes seen 4  observed rate "
                         "1.5/d  prior fleet-mean  budget 240/d  spent 236/d  waited 2 (mean 1m)  "
                         "mu -  expected freshness -\n"),
            std::string::npos)
      << untuned;
  tuning.mu = 0.25;
  tuning.expected_freshness = 0.8;
  tuning.prior_mean_rate_per_day = 2.25;
  const std::string tuned = FormatProgress(absl::Seconds(1), 0, {}, fs, 0, tuning);
  EXPECT_NE(tuned.find("mu 0.25  expected freshness 0.800\n"), std::string::npos) << tuned;
  EXPECT_NE(tuned.find("observed rate 1.5/d  prior fitted (mean 2.25/d)  budget"),
            std::string::npos)
      << tuned;
  tuning.prior_mean_rate_per_day.reset();
  tuning.fleet_beyond_prior_grid = true;
  const std::string fast = FormatProgress(absl::Seconds(1), 0, {}, fs, 0, tuning);
  EXPECT_NE(fast.find("prior fleet-mean (fleet too fast for the fit)  budget"), std::string::npos)
      << fast;
}

// Lines go to a memory stream; the clock is fake, so no test waits.
class Capture {
 public:
  Capture() : file_(open_memstream(&buffer_, &size_)) {}
  ~Capture() {
    std::fclose(file_);
    std::free(buffer_);
  }
  std::FILE* file() { return file_; }
  std::string Text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

TEST(ProgressReporter, OneLinePerIntervalWithTheRateSinceTheLast) {
  FakeClock clock;
  const absl::Time start = clock.Now();
  uint64_t pages = 0;
  Capture out;
  ProgressReporter reporter({.interval = absl::Seconds(5)}, start,
                            {.totals =
                                 [&pages] {
                                   CrawlTotals t;
                                   t.pages = pages;
                                   return t;
                                 },
                             .frontier = [] { return frontier::FrontierStats{}; },
                             .in_flight = [] { return uint64_t{2}; }},
                            out.file());
  pages = 10;
  clock.Advance(absl::Seconds(4));
  reporter.Tick(clock.Now());
  EXPECT_EQ(out.Text(), "");
  clock.Advance(absl::Seconds(1));
  reporter.Tick(clock.Now());
  EXPECT_EQ(out.Text(),
            "[5s] pages 10 (2.0/s)  queued 0  waiting 0  in flight 2  errors 0  duplicates 0  "
            "robots-denied 0\n");
  pages = 60;
  clock.Advance(absl::Seconds(10));
  reporter.Tick(clock.Now());
  EXPECT_NE(out.Text().find("[15s] pages 60 (5.0/s)"), std::string::npos) << out.Text();
}

TEST(ProgressReporter, NoReVisitLineBeforeATuning) {
  FakeClock clock;
  Capture out;
  ProgressReporter reporter({.interval = absl::Seconds(1)}, clock.Now(),
                            {.totals = [] { return CrawlTotals{}; },
                             .frontier = [] { return frontier::FrontierStats{}; },
                             .in_flight = [] { return uint64_t{0}; },
                             .tuning = [] { return std::optional<scheduler::RevisitTuning>(); }},
                            out.file());
  clock.Advance(absl::Seconds(1));
  reporter.Tick(clock.Now());
  EXPECT_EQ(out.Text().find("revisits"), std::string::npos);
}

}  // namespace
}  // namespace crawler::standalone
