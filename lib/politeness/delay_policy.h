// DelayPolicy: the pure arithmetic of docs/architecture.md §5. Given what the crawler knows about a
// host (robots Crawl-delay, last response time, consecutive failures, a Retry-After), it returns
// how long to wait before the next request starts. No clock and no state: callers pass the facts
// in.
//
// delay = clamp(max(min_delay, min(crawl_delay, max_crawl_delay), delay_factor x response_time),
//               min_delay, max_delay)
// then at least the operator's host delay (uncapped: it is the operator's decision),
// then, after n >= 1 consecutive failures, at least the back-off
//   min(error_backoff_base x 2^(n-1), error_backoff_max) x (1 +- jitter_fraction),
// and after a Retry-After, at least that (capped by max_retry_after).
//
// Thread-safety: immutable after construction.
#ifndef CRAWLER_LIB_POLITENESS_DELAY_POLICY_H_
#define CRAWLER_LIB_POLITENESS_DELAY_POLICY_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

#include "absl/time/time.h"
#include "lib/politeness/politeness_options.h"

namespace crawler::politeness {

// What the crawler has learned about a host so far.
struct HostFeedback {
  std::optional<absl::Duration> crawl_delay;  // from robots.txt, uncapped
  absl::Duration last_response_time = absl::ZeroDuration();
  int consecutive_failures = 0;
  std::optional<absl::Duration> retry_after;  // from the last 429/503, uncapped
  absl::Duration host_delay = absl::ZeroDuration();  // the operator's, uncapped
};

class DelayPolicy {
 public:
  // REQUIRES: options.Validate().ok().
  explicit DelayPolicy(const PolitenessOptions& options) : options_(options) {}

  // `jitter_unit` is a uniform random number in [0, 1) drawn by the caller from a seeded
  // generator (so a test can replay it); it only matters when there are failures.
  absl::Duration NextDelay(const HostFeedback& feedback, double jitter_unit) const;

  const PolitenessOptions& options() const { return options_; }

 private:
  const PolitenessOptions options_;
};

// A jitter_unit for NextDelay: 53 random bits -> [0, 1). (std::uniform_real_distribution is not
// reproducible across standard libraries, and seeded runs should be.)
inline double JitterUnit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Parses an HTTP Retry-After value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, relative
// to `now`. Returns nullopt for malformed values; dates in the past give zero.
std::optional<absl::Duration> ParseRetryAfter(std::string_view value, absl::Time now);

}  // namespace crawler::politeness

#endif  // CRAWLER_LIB_POLITENESS_DELAY_POLICY_H_
