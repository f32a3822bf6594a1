// FetcherStats: the fetcher's live counters, for progress reports and metrics; FetcherCounters:
// the one place the fetcher's parts add to them.
//
// Thread-safety: FetcherCounters is thread-safe (one mutex; the parts update it per batch or per
// transfer, never per byte). FetcherStats is a plain value.
#ifndef CRAWLER_SERVICES_FETCHER_FETCHER_STATS_H_
#define CRAWLER_SERVICES_FETCHER_FETCHER_STATS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace crawler::fetcher {

// Durations counted by upper bound, for a metrics histogram: counts[i] holds the durations in
// (bounds[i-1], bounds[i]] seconds (not cumulative), counts.back() those above the last bound.
struct DurationHistogram {
  explicit DurationHistogram(std::span<const double> bounds_seconds)
      : bounds(bounds_seconds), counts(bounds_seconds.size() + 1, 0) {}
  void Observe(absl::Duration d);
  // Adds `other`'s counts (same bounds).
  void Add(const DurationHistogram& other);

  std::span<const double> bounds;  // seconds, ascending; static storage
  std::vector<uint64_t> counts;
  double sum_seconds = 0;
  uint64_t count = 0;
};

// The bounds of FetcherStats' histograms (docs/metrics.md): a politeness wait runs from nothing
// to a long Crawl-delay or Retry-After; a claim batch from a local call to a slow store.
inline constexpr double kPolitenessWaitBounds[] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                   2.5,  5,     10,   30,  60,   120, 300};
inline constexpr double kClaimDurationBounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                  0.05,   0.1,   0.25,   0.5,   1};

struct FetcherStats {
  uint64_t leased = 0;
  uint64_t requests_started = 0;
  uint64_t robots_requests = 0;
  uint64_t robots_denied = 0;
  uint64_t abandoned = 0;  // leases let expire (see lease_safety_margin)
  // Leases not started when the fetcher stopped, handed back to the frontier (ReleaseLeases)
  // and re-queued there at once; those it could not hand back count as abandoned.
  uint64_t leases_released = 0;
  // Transfers still running at the drain deadline after a stop (FetcherOptions::drain_timeout),
  // aborted; their leases are handed back with the unstarted ones.
  uint64_t drain_aborted = 0;
  // Loop turns that began more than stall_confirm_after after the one before (the process was
  // stopped or starved); each waits for the frontier to confirm the collection.
  uint64_t loop_stalls = 0;
  uint64_t completed = 0;
  uint64_t outlinks_sent = 0;
  uint64_t politeness_waits = 0;
  // Claims refused because the shared politeness store (Redis) could not be reached: no request
  // was sent for them (fail closed).
  uint64_t politeness_unavailable = 0;
  uint64_t in_flight = 0;
  uint64_t buffered = 0;
  uint64_t hosts = 0;
  // Of `hosts`, those with a request ready whose politeness claim is pending (waiting for the
  // host's or its address's slot); the others wait for an address, robots.txt, a transfer of
  // their own or nothing (hosts_ready = hosts - hosts_waiting).
  uint64_t hosts_waiting = 0;
  // Frontier calls that failed (each retried later, or fatal), and the outages they formed: an
  // outage starts at a failure after a success (or at the first call) and ends at the next
  // success, so a report can say "frontier unreachable" once per outage, not once per call.
  uint64_t frontier_errors = 0;
  uint64_t frontier_outages = 0;
  std::string frontier_last_error;  // empty until a frontier call fails
  // Pages whose dedup check failed (the index unreachable): archived in full as new content,
  // their crawl log lines say "dedup unavailable: ...".
  uint64_t dedup_unavailable = 0;
  // Links not followed because their page had more than html::ExtractOptions::max_links, and
  // the pages that had (their crawl log lines say "links cut: N of M").
  uint64_t links_cut = 0;
  uint64_t pages_with_links_cut = 0;
  // Links dropped as spider traps (FetchEvent::trap_links).
  uint64_t trap_links = 0;
  // Pages rendered in the browser (page_renderer.h), the links rendering added to the static
  // HTML's, and the renders that ended other than settled (time limit, hung script, crash).
  uint64_t pages_rendered = 0;
  uint64_t rendered_links = 0;
  uint64_t renders_cut = 0;
  // Per request started (robots.txt included): from the first loop turn its host had the
  // request ready and wanted a politeness slot, to the claim's grant (HostWork::wants_slot_since).
  DurationHistogram politeness_wait{kPolitenessWaitBounds};
  // Per politeness Exchange (one batch of releases and claims): its wall time.
  DurationHistogram claim_duration{kClaimDurationBounds};
};

class FetcherCounters {
 public:
  void Add(uint64_t FetcherStats::*field, uint64_t n = 1) {
    absl::MutexLock lock(&mu_);
    stats_.*field += n;
  }
  void Observe(DurationHistogram FetcherStats::*field, absl::Duration d) {
    absl::MutexLock lock(&mu_);
    (stats_.*field).Observe(d);
  }
  // The gauges, set by the network loop once per turn.
  void SetGauges(uint64_t in_flight, uint64_t buffered, uint64_t hosts, uint64_t hosts_waiting) {
    absl::MutexLock lock(&mu_);
    stats_.in_flight = in_flight;
    stats_.buffered = buffered;
    stats_.hosts = hosts;
    stats_.hosts_waiting = hosts_waiting;
  }
  // A failed frontier call; `new_outage` when the call before it had succeeded.
  void FrontierFailed(const absl::Status& error, bool new_outage) {
    absl::MutexLock lock(&mu_);
    ++stats_.frontier_errors;
    if (new_outage) ++stats_.frontier_outages;
    stats_.frontier_last_error = error.ToString();
  }
  FetcherStats Snapshot() const {
    absl::MutexLock lock(&mu_);
    return stats_;
  }

 private:
  mutable absl::Mutex mu_;
  FetcherStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_FETCHER_STATS_H_
