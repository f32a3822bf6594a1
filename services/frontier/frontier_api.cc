#include "services/frontier/frontier_api.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "lib/recrawl/visit_history.h"

namespace crawler::frontier {

absl::Status ValidateCollectionName(std::string_view name) {
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool ok = !name.empty() && name.size() <= 63 && lower_or_digit(name[0]);
  for (char c : name) ok = ok && (lower_or_digit(c) || c == '_' || c == '-');
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "name: \"", absl::CEscape(std::string(name.substr(0, 80))),
        "\" is not a collection name ([a-z0-9][a-z0-9_-]{0,62})"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRevisitOptions(const RevisitOptions& revisit) {
  if (!revisit.enabled) return absl::OkStatus();
  if (revisit.min_interval <= absl::ZeroDuration() ||
      revisit.max_interval < revisit.min_interval) {
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
    return absl::InvalidArgumentError(absl::StrCat(
        "revisit prior must be fitted or fleet-mean, not \"", revisit.prior, "\""));
  }
  if (absl::Status status = recrawl::MakeRevisitPolicy(revisit.policy, revisit.policy_options)
                                .status();
      !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("revisit policy: ", std::string(status.message())));
  }
  return absl::OkStatus();
}

absl::Status ValidateFocusOptions(const FocusOptions& options, uint64_t budget) {
  if (!options.enabled) return absl::OkStatus();
  if (options.max_in_flight < 1 || options.max_in_flight > 1024) {
    return absl::InvalidArgumentError(absl::StrCat("focus max_in_flight must be in [1, 1024], got ",
                                                   options.max_in_flight));
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

}  // namespace crawler::frontier
