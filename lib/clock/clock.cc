#include "lib/clock/clock.h"

#include <chrono>

#include "absl/time/clock.h"

namespace crawler {

absl::Time SystemClock::Now() const { return absl::Now(); }

absl::Duration SystemClock::MonotonicNow() const {
  return absl::FromChrono(std::chrono::steady_clock::now().time_since_epoch());
}

}  // namespace crawler
