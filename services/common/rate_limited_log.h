// RateLimitedLog: the log line of an event that can repeat many times a second (a refused call
// from a misbehaving or hostile client, a periodic job failing on every round): at most one
// line per `interval`; the lines held back meanwhile are counted, and the next line that goes
// out says how many there were. So an attacker, or a disk that stays full, cannot fill the log
// (and the disk under it), while the first occurrence is always seen.
//
// Thread-safety: thread-safe. The clock must outlive the log.
#ifndef CRAWLER_SERVICES_COMMON_RATE_LIMITED_LOG_H_
#define CRAWLER_SERVICES_COMMON_RATE_LIMITED_LOG_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"

namespace crawler {

class RateLimitedLog {
 public:
  // `sink` receives each line (without a newline); empty: stderr.
  RateLimitedLog(absl::Duration interval, const Clock& clock,
                 std::function<void(std::string_view)> sink = nullptr);

  // Writes `line` unless a line went out less than `interval` ago; then only counts it.
  void Log(std::string_view line);

  // Lines written and held back so far.
  uint64_t written() const;
  uint64_t held_back() const;

 private:
  const absl::Duration interval_;
  const Clock& clock_;
  const std::function<void(std::string_view)> sink_;
  mutable absl::Mutex mu_;
  bool any_ ABSL_GUARDED_BY(mu_) = false;
  absl::Duration last_ ABSL_GUARDED_BY(mu_);
  uint64_t pending_ ABSL_GUARDED_BY(mu_) = 0;  // held back since the last line written
  uint64_t written_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t held_back_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace crawler

#endif  // CRAWLER_SERVICES_COMMON_RATE_LIMITED_LOG_H_
