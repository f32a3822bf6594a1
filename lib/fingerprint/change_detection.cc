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

}  // namespace crawler::fingerprint
