// Clock: the one source of "now" for domain and service code, injected so tests control time
// (domain code never reads system_clock::now() itself).
//
// Two notions of time are exposed because they answer different questions: Now() is wall time
// (what goes into WARC-Date, crawl logs and stored fetch times, and what survives a restart);
// MonotonicNow() only orders events inside one process (politeness gaps, timeouts) and never jumps
// backwards when the system clock is adjusted.
//
// Thread-safety: implementations must be safe to call from any thread.
#ifndef CRAWLER_LIB_CLOCK_CLOCK_H_
#define CRAWLER_LIB_CLOCK_CLOCK_H_

#include "absl/time/time.h"

namespace crawler {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time.
  virtual absl::Time Now() const = 0;
  // Time since an arbitrary fixed point in this process; never decreases.
  virtual absl::Duration MonotonicNow() const = 0;
};

// The real clocks of the machine.
class SystemClock final : public Clock {
 public:
  absl::Time Now() const override;
  absl::Duration MonotonicNow() const override;
};

}  // namespace crawler

#endif  // CRAWLER_LIB_CLOCK_CLOCK_H_
