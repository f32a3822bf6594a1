#include "lib/fingerprint/change_detection.h"

#include "absl/strings/str_cat.h"

namespace crawler::fingerprint {

absl::Status ValidateChangeDetectionOptions(const ChangeDetectionOptions& options) {
  if (options.threshold_bits < 0 || options.threshold_bits > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("threshold_bits must be in [0, 64], got ", options.threshold_bits));
  }
  return absl::OkStatus();
}

std::optional<bool> ContentChanged(const ContentSignature& before, const ContentSignature& after,
                                   const ChangeDetectionOptions& options) {
  if (before.digest && after.digest) return *before.digest != *after.digest;
  if (before.simhash && after.simhash) {
    return SignificantlyChanged(*before.simhash, *after.simhash, options);
  }
  return std::nullopt;
}

}  // namespace crawler::fingerprint
