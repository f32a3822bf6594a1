// FakeClock: a Clock for tests that moves only when told to. Wall and monotonic time advance
// together. Thread-safe.
#ifndef CRAWLER_LIB_CLOCK_FAKE_CLOCK_H_
#define CRAWLER_LIB_CLOCK_FAKE_CLOCK_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"

namespace crawler {

class FakeClock final : public Clock {
 public:
  // Starts at 2024-01-01T00:00:00Z, monotonic zero, unless told otherwise.
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1704067200)) : now_(start) {}

  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  absl::Duration MonotonicNow() const override {
    absl::MutexLock lock(&mu_);
    return monotonic_;
  }

  // REQUIRES: d >= absl::ZeroDuration().
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
    monotonic_ += d;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  absl::Duration monotonic_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
};

}  // namespace crawler

#endif  // CRAWLER_LIB_CLOCK_FAKE_CLOCK_H_
