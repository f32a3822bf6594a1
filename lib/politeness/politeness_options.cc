#include "lib/politeness/politeness_options.h"

#include "absl/strings/str_cat.h"

namespace crawler::politeness {

absl::Status PolitenessOptions::Validate() const {
  const absl::Duration zero = absl::ZeroDuration();
  if (min_delay < zero) return absl::InvalidArgumentError("min_delay must be >= 0");
  if (max_delay < min_delay) {
    return absl::InvalidArgumentError(absl::StrCat("max_delay (", absl::FormatDuration(max_delay),
                                                   ") must be >= min_delay (",
                                                   absl::FormatDuration(min_delay), ")"));
  }
  if (!(delay_factor >= 0.0 && delay_factor <= 1000.0)) {
    return absl::InvalidArgumentError("delay_factor must be in [0, 1000]");
  }
  if (max_crawl_delay < zero) return absl::InvalidArgumentError("max_crawl_delay must be >= 0");
  if (max_connections_per_host < 1 || max_connections_per_host > 1024) {
    return absl::InvalidArgumentError("max_connections_per_host must be in [1, 1024]");
  }
  if (error_backoff_base < zero || error_backoff_max < error_backoff_base) {
    return absl::InvalidArgumentError("need 0 <= error_backoff_base <= error_backoff_max");
  }
  if (!(jitter_fraction >= 0.0 && jitter_fraction < 1.0)) {
    return absl::InvalidArgumentError("jitter_fraction must be in [0, 1)");
  }
  if (max_retry_after < zero) return absl::InvalidArgumentError("max_retry_after must be >= 0");
  return absl::OkStatus();
}

}  // namespace crawler::politeness
