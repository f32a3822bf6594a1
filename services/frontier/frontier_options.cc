#include "services/frontier/frontier_options.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/partition/layout.h"

namespace crawler::frontier {

FrontierOptions WithCollection(const FrontierOptions& base, const CollectionSettings& collection,
                               uint32_t partition_index,
                               const partition::PartitionLayout& layout) {
  FrontierOptions options = base;
  options.max_pages_total = collection.max_pages.value_or(FrontierOptions::kUnlimited);
  options.max_pages_per_host = collection.max_pages_per_host.value_or(FrontierOptions::kUnlimited);
  options.max_in_flight_per_host = collection.max_in_flight_per_host;
  options.max_depth = collection.max_depth.value_or(std::numeric_limits<uint32_t>::max());
  options.revisit = collection.revisit;
  options.focus = collection.focus;
  options.partition_index = partition_index;
  options.partition_count = layout.count;
  options.reshard_to = layout.reshard_to;
  options.resharded_from = layout.resharded_from;
  return options;
}

partition::PartitionLayout LayoutOf(const FrontierOptions& options) {
  return partition::PartitionLayout{.count = options.partition_count,
                                    .reshard_to = options.reshard_to,
                                    .resharded_from = options.resharded_from};
}

absl::Status ValidateFrontierOptions(const FrontierOptions& options) {
  if (options.lease_duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("lease_duration must be positive");
  }
  if (options.restored_lease_grace < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("restored_lease_grace must not be negative");
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
  if (absl::Status status = partition::ValidateLayout(LayoutOf(options), options.partition_index);
      !status.ok()) {
    return status;
  }
  if (options.focus.enabled) {
    if (options.revisit.enabled) {
      return absl::InvalidArgumentError("a focused collection cannot re-visit");
    }
    if (options.max_pages_total == FrontierOptions::kUnlimited) {
      return absl::InvalidArgumentError("a focused collection needs a page budget (max_pages)");
    }
    // A partition's share may be 0 pages (the scheduler's split gives nothing more to a
    // partition without work); its bandit is still built, for a budget of at least one page.
    if (absl::Status s =
            ValidateFocusOptions(options.focus, std::max<uint64_t>(1, options.max_pages_total));
        !s.ok()) {
      return s;
    }
  }
  if (!options.revisit.enabled) return absl::OkStatus();
  if (absl::Status s = ValidateRevisitOptions(options.revisit); !s.ok()) return s;
  if (options.max_pages_total != FrontierOptions::kUnlimited ||
      options.max_pages_per_host != FrontierOptions::kUnlimited) {
    return absl::InvalidArgumentError(
        "re-visiting cannot be combined with a page budget (max_pages_total, "
        "max_pages_per_host): a host at its cap would never be re-visited");
  }
  return absl::OkStatus();
}

}  // namespace crawler::frontier
