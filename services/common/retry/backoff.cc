#include "services/common/retry/backoff.h"

#include <algorithm>
#include <random>

namespace crawler::retry {

bool IsRetryable(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status) ||
         absl::IsResourceExhausted(status) || absl::IsAborted(status);
}

absl::Duration Backoff::Next() {
  absl::Duration wait = options_.initial;
  for (uint32_t i = 0; i < failures_ && wait < options_.max; ++i) wait *= 2;
  wait = std::min(wait, options_.max);
  ++failures_;
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  return wait * (1.0 - std::clamp(options_.jitter, 0.0, 1.0) * u);
}

}  // namespace crawler::retry
