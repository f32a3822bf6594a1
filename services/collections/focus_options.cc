#include "services/collections/focus_options.h"

#include <memory>

#include "absl/strings/str_cat.h"

namespace crawler::collections {

absl::Status ValidateFocusOptions(const FocusOptions& options, uint64_t budget) {
  if (!options.enabled) return absl::OkStatus();
  if (options.max_in_flight < 1 || options.max_in_flight > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("focus max_in_flight must be in [1, 1024], got ", options.max_in_flight));
  }
  if (budget == 0 || budget > (uint64_t{1} << 40)) {
    return absl::InvalidArgumentError(
        "a focused collection needs a page budget (max_pages) of at most 2^40");
  }
  absl::StatusOr<std::unique_ptr<bandit::Policy>> probe = bandit::MakePolicy(
      options.policy, 1, static_cast<int64_t>(budget), options.policy_options, options.seed);
  if (!probe.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("focus_policy: ", probe.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace crawler::collections
