#include "services/frontier/frontier_options.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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
  if (options.seen_cache_entries != 0 &&
      (options.seen_cache_entries < 8 || options.seen_cache_entries > (size_t{1} << 28))) {
    return absl::InvalidArgumentError("seen_cache_entries must be 0 (off) or in [8, 2^28]");
  }
  const RevisitOptions& revisit = options.revisit;
  if (!revisit.enabled) return absl::OkStatus();
  if (revisit.min_interval <= absl::ZeroDuration() ||
      revisit.max_interval < revisit.min_interval) {
    return absl::InvalidArgumentError(
        "revisit intervals must satisfy 0 < min_interval <= max_interval");
  }
  if (revisit.history_capacity < 1 ||
      revisit.history_capacity > recrawl::VisitHistory::kMaxCapacity) {
    return absl::InvalidArgumentError("revisit history_capacity must be in [1, 64]");
  }
  if (revisit.change_threshold_bits < 0 || revisit.change_threshold_bits > 64) {
    return absl::InvalidArgumentError("revisit change_threshold_bits must be in [0, 64]");
  }
  if (options.max_pages_total != FrontierOptions::kUnlimited ||
      options.max_pages_per_host != FrontierOptions::kUnlimited) {
    return absl::InvalidArgumentError(
        "re-visiting cannot be combined with a page budget (max_pages_total, "
        "max_pages_per_host): a host at its cap would never be re-visited");
  }
  if (absl::Status status = recrawl::MakeRevisitPolicy(revisit.policy, revisit.policy_options)
                                .status();
      !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("revisit policy: ", std::string(status.message())));
  }
  return absl::OkStatus();
}

}  // namespace crawler::frontier
