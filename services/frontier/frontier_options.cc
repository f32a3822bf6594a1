#include "services/frontier/frontier_options.h"

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace crawler::frontier {

absl::Status ValidateFrontierOptions(const FrontierOptions& options) {
  if (options.lease_duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("lease_duration must be positive");
  }
  if (options.max_urls_per_lease < 1 || options.max_urls_per_lease > 65536) {
    return absl::InvalidArgumentError("max_urls_per_lease must be in [1, 65536]");
  }
  if (options.max_in_flight_per_host < 1 || options.max_in_flight_per_host > 1024) {
    return absl::InvalidArgumentError("max_in_flight_per_host must be in [1, 1024]");
  }
  if (options.ready_horizon < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("ready_horizon must not be negative");
  }
  if (options.max_url_bytes < 16) {
    return absl::InvalidArgumentError("max_url_bytes must be at least 16");
  }
  if (options.max_attempts < 1 || options.max_attempts > 100) {
    return absl::InvalidArgumentError("max_attempts must be in [1, 100]");
  }
  if (options.retry_backoff_initial <= absl::ZeroDuration() ||
      options.retry_backoff_max < options.retry_backoff_initial) {
    return absl::InvalidArgumentError(
        "retry backoff must satisfy 0 < retry_backoff_initial <= retry_backoff_max");
  }
  if (options.max_due_promotions_per_lease < 1) {
    return absl::InvalidArgumentError("max_due_promotions_per_lease must be at least 1");
  }
  return absl::OkStatus();
}

}  // namespace crawler::frontier
