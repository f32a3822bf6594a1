#include "services/common/rate_limited_log.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler {

RateLimitedLog::RateLimitedLog(absl::Duration interval, const Clock& clock, Logger log,
                               LogLevel level)
    : interval_(interval), clock_(clock), log_(std::move(log)), level_(level) {}

void RateLimitedLog::Log(std::string_view line) {
  std::string out;
  {
    absl::MutexLock lock(&mu_);
    const absl::Duration now = clock_.MonotonicNow();
    if (any_ && now - last_ < interval_) {
      ++pending_;
      ++held_back_;
      return;
    }
    any_ = true;
    last_ = now;
    ++written_;
    out = pending_ == 0 ? std::string(line)
                        : absl::StrCat(absl::string_view(line.data(), line.size()), " (and ",
                                       pending_,
                                       " more like it since the last one logged)");
    pending_ = 0;
  }
  switch (level_) {
    case LogLevel::kDebug:
      log_.Debug(out);
      break;
    case LogLevel::kInfo:
      log_.Info(out);
      break;
    case LogLevel::kWarning:
      log_.Warning(out);
      break;
    case LogLevel::kError:
      log_.Error(out);
      break;
  }
}

uint64_t RateLimitedLog::written() const {
  absl::MutexLock lock(&mu_);
  return written_;
}

uint64_t RateLimitedLog::held_back() const {
  absl::MutexLock lock(&mu_);
  return held_back_;
}

}  // namespace crawler
