#include "services/common/rate_limited_log.h"

#include <cstdio>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler {

RateLimitedLog::RateLimitedLog(absl::Duration interval, const Clock& clock,
                               std::function<void(std::string_view)> sink)
    : interval_(interval), clock_(clock), sink_(std::move(sink)) {}

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
  if (sink_) {
    sink_(out);
  } else {
    std::fprintf(stderr, "%s\n", out.c_str());
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
