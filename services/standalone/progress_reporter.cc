#include "services/standalone/progress_reporter.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"

namespace crawler::standalone {

std::string FormatProgress(absl::Duration elapsed, double rate, const fetcher::CrawlTotals& totals,
                           const frontier::FrontierStats& frontier, uint64_t in_flight,
                           const std::optional<scheduler::RevisitTuning>& tuning) {
  std::string text = absl::StrFormat(
      "[%s] pages %llu (%.1f/s)  queued %llu  waiting %llu  in flight %llu  "
      "errors %llu  duplicates %llu  robots-denied %llu\n",
      absl::FormatDuration(absl::Trunc(elapsed, absl::Seconds(1))),
      static_cast<unsigned long long>(totals.pages), rate,
      static_cast<unsigned long long>(frontier.queued_urls),
      static_cast<unsigned long long>(frontier.waiting_urls),
      static_cast<unsigned long long>(in_flight), static_cast<unsigned long long>(totals.errors),
      static_cast<unsigned long long>(totals.duplicates),
      static_cast<unsigned long long>(totals.robots_denied));
  if (tuning.has_value()) {
    absl::StrAppendFormat(
        &text,
        "  revisits: pages %.0f  re-visits %llu  changes seen %llu  observed rate "
        "%.3g/d  prior %s  budget %.3g/d  spent %.3g/d  waited %llu (mean %s)  mu %s  expected "
        "freshness %s\n",
        tuning->pages, static_cast<unsigned long long>(frontier.revisits_scheduled),
        static_cast<unsigned long long>(frontier.changes_detected), tuning->observed_rate_per_day,
        tuning->prior_mean_rate_per_day.has_value()
            ? absl::StrFormat("fitted (mean %.3g/d)", *tuning->prior_mean_rate_per_day)
            : std::string(tuning->fleet_beyond_prior_grid ? "fleet-mean (fleet too fast for the fit)"
                                                          : "fleet-mean"),
        tuning->budget_visits_per_day, frontier.revisit_spend_visits_per_day,
        static_cast<unsigned long long>(frontier.revisits_waited),
        frontier.revisits_waited > 0
            ? absl::FormatDuration(absl::Trunc(
                  absl::Seconds(frontier.revisit_wait_seconds / frontier.revisits_waited),
                  absl::Seconds(1)))
            : std::string("-"),
        tuning->mu.has_value() ? absl::StrFormat("%.3g", *tuning->mu) : "-",
        tuning->expected_freshness.has_value()
            ? absl::StrFormat("%.3f", *tuning->expected_freshness)
            : "-");
  }
  return text;
}

ProgressReporter::ProgressReporter(ProgressReporterOptions options, absl::Time start,
                                   ProgressSources sources, std::FILE* out)
    : options_(options),
      start_(start),
      sources_(std::move(sources)),
      out_(out),
      last_line_(start) {}

void ProgressReporter::Tick(absl::Time now) {
  if (options_.interval <= absl::ZeroDuration() || now - last_line_ < options_.interval) return;
  const fetcher::CrawlTotals totals = sources_.totals();
  const frontier::FrontierStats frontier = sources_.frontier();
  const uint64_t in_flight = sources_.in_flight();
  const double rate = static_cast<double>(totals.pages - last_pages_) /
                      std::max(1e-9, absl::ToDoubleSeconds(now - last_line_));
  std::optional<scheduler::RevisitTuning> tuning;
  if (sources_.tuning) tuning = sources_.tuning();
  const std::string text = FormatProgress(now - start_, rate, totals, frontier, in_flight, tuning);
  // One write, so the lines of one report stay together.
  std::fwrite(text.data(), 1, text.size(), out_);
  last_line_ = now;
  last_pages_ = totals.pages;
}

}  // namespace crawler::standalone
