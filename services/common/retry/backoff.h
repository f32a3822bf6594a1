// Backoff and RetryCall: how a caller of a remote component (a frontier, the content index)
// keeps going through that component's outage. Each failed attempt waits longer, from
// `initial` doubling up to `max`, with up to `jitter` of each wait drawn at random so the
// fetchers of a fleet do not retry in step; RetryCall gives up after `max_attempts` (0: never)
// or at the first error that retrying cannot cure.
//
// Only the codes a transient outage produces are retried (IsRetryable); a kInvalidArgument or
// kFailedPrecondition answer would come back the same way every time.
//
// Thread-safety: Backoff is a plain value for one caller; RetryCall is reentrant.
#ifndef CRAWLER_SERVICES_COMMON_RETRY_BACKOFF_H_
#define CRAWLER_SERVICES_COMMON_RETRY_BACKOFF_H_

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace crawler::retry {

struct BackoffOptions {
  absl::Duration initial = absl::Milliseconds(50);
  absl::Duration max = absl::Seconds(5);
  // Share of each wait drawn at random, [0, 1]: wait x (1 - jitter x u), u uniform in [0, 1).
  double jitter = 0.2;
  // Attempts in all, the first included; 0: retry for as long as the caller lives.
  uint32_t max_attempts = 0;
};

// True for the codes a transient outage produces: kUnavailable, kDeadlineExceeded,
// kResourceExhausted, kAborted.
bool IsRetryable(const absl::Status& status);

class Backoff {
 public:
  // `seed` makes the jitter reproducible.
  explicit Backoff(const BackoffOptions& options, uint64_t seed = 1)
      : options_(options), random_(seed) {}
  // The wait before the next attempt; each call doubles the next (up to max).
  absl::Duration Next();
  void Reset() { failures_ = 0; }
  uint32_t failures() const { return failures_; }

 private:
  BackoffOptions options_;
  std::mt19937_64 random_;
  uint32_t failures_ = 0;
};

// Calls `call` until it returns OK, a non-retryable error, or max_attempts is reached, waiting
// with `sleep` between attempts (empty: absl::SleepFor; tests pass one that records).
// `on_failure` (may be empty) hears every failed attempt, e.g. to count or log it.
template <typename T>
absl::StatusOr<T> RetryCall(
    const std::function<absl::StatusOr<T>()>& call, const BackoffOptions& options,
    const std::function<void(absl::Duration)>& sleep = {},
    const std::function<void(const absl::Status&, uint32_t attempt)>& on_failure = {}) {
  Backoff backoff(options);
  for (uint32_t attempt = 1;; ++attempt) {
    absl::StatusOr<T> result = call();
    if (result.ok()) return result;
    if (on_failure) on_failure(result.status(), attempt);
    if (!IsRetryable(result.status()) ||
        (options.max_attempts != 0 && attempt >= options.max_attempts)) {
      return result;
    }
    const absl::Duration wait = backoff.Next();
    if (sleep) {
      sleep(wait);
    } else {
      absl::SleepFor(wait);
    }
  }
}

}  // namespace crawler::retry

#endif  // CRAWLER_SERVICES_COMMON_RETRY_BACKOFF_H_
