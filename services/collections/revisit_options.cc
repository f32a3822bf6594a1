#include "services/collections/revisit_options.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "lib/recrawl/visit_history.h"

namespace crawler::collections {

recrawl::PolicyOptions EffectivePolicyOptions(const RevisitOptions& revisit) {
  recrawl::PolicyOptions options = revisit.policy_options;
  const double max_interval_days = absl::ToDoubleHours(revisit.max_interval) / 24;
  if (max_interval_days > 0 && std::isfinite(max_interval_days)) {
    options.optimal.min_visits_per_day =
        std::max(options.optimal.min_visits_per_day, 1 / max_interval_days);
  }
  return options;
}

absl::Status ValidateRevisitOptions(const RevisitOptions& revisit) {
  if (!revisit.enabled) return absl::OkStatus();
  if (revisit.min_interval <= absl::ZeroDuration() || revisit.max_interval < revisit.min_interval) {
    return absl::InvalidArgumentError(
        "revisit intervals must satisfy 0 < min_interval <= max_interval");
  }
  if (revisit.budget_burst < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("revisit budget_burst must be >= 0");
  }
  if (revisit.history_capacity < 1 ||
      revisit.history_capacity > recrawl::VisitHistory::kMaxCapacity) {
    return absl::InvalidArgumentError("revisit history_capacity must be in [1, 64]");
  }
  if (revisit.change_threshold_bits < 0 || revisit.change_threshold_bits > 64) {
    return absl::InvalidArgumentError("revisit change_threshold_bits must be in [0, 64]");
  }
  if (revisit.prior != "fitted" && revisit.prior != "fleet-mean") {
    return absl::InvalidArgumentError(
        absl::StrCat("revisit prior must be fitted or fleet-mean, not \"", revisit.prior, "\""));
  }
  if (absl::Status status =
          recrawl::MakeRevisitPolicy(revisit.policy, revisit.policy_options).status();
      !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("revisit policy: ", std::string(status.message())));
  }
  return absl::OkStatus();
}

}  // namespace crawler::collections
