#include "services/scheduler/collection.h"

#include "absl/strings/str_cat.h"

namespace crawler::scheduler {

absl::Status Collection::Validate() const {
  if (name.empty()) return absl::InvalidArgumentError("collection name must not be empty");
  if (seeds.empty()) return absl::InvalidArgumentError("a collection needs at least one seed");
  if (limits.max_pages == 0) return absl::InvalidArgumentError("max_pages must be >= 1");
  if (limits.max_pages_per_host == 0) {
    return absl::InvalidArgumentError("max_pages_per_host must be >= 1");
  }
  if (absl::Status s = politeness.Validate(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("politeness: ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace crawler::scheduler
