// RateLimitedLog: the log line of an event that can repeat many times a second (a refused call
// from a misbehaving or hostile client, a periodic job failing on every round): at most one
// line per `interval`; the lines held back meanwhile are counted, and the next line that goes
// out says how many there were. So an attacker, or a disk that stays full, cannot fill the log
// (and the disk under it), while the first occurrence is always seen.
//
// Lines go to a Logger (which adds the role) at the level given.
//
// Thread-safety: thread-safe. The clock must outlive the log.
#ifndef CRAWLER_SERVICES_COMMON_RATE_LIMITED_LOG_H_
#define CRAWLER_SERVICES_COMMON_RATE_LIMITED_LOG_H_

#include <cstdint>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"

namespace crawler {

class RateLimitedLog {
 public:
  // `log` receives each line written, at `level`.
  RateLimitedLog(absl::Duration interval, const Clock& clock, Logger log,
                 LogLevel level = LogLevel::kWarning);

  // Writes `line` unless a line went out less than `interval` ago; then only counts it.
  void Log(std::string_view line);

  // Lines written and held back so far.
  uint64_t written() const;
  uint64_t held_back() const;

 private:
  const absl::Duration interval_;
  const Clock& clock_;
  const Logger log_;
  const LogLevel level_;
  mutable absl::Mutex mu_;
  bool any_ ABSL_GUARDED_BY(mu_) = false;
  absl::Duration last_ ABSL_GUARDED_BY(mu_);
  uint64_t pending_ ABSL_GUARDED_BY(mu_) = 0;  // held back since the last line written
  uint64_t written_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t held_back_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace crawler

#endif  // CRAWLER_SERVICES_COMMON_RATE_LIMITED_LOG_H_
