#include "lib/politeness/politeness.h"

namespace crawler::politeness {

std::vector<absl::StatusOr<ClaimResult>> Politeness::ClaimAll(
    std::span<const ClaimRequest> requests) {
  std::vector<absl::StatusOr<ClaimResult>> results;
  results.reserve(requests.size());
  for (const ClaimRequest& r : requests) results.push_back(Claim(r));
  return results;
}

std::vector<absl::StatusOr<ReleaseResult>> Politeness::ReleaseAll(
    std::span<const ReleaseRequest> requests) {
  std::vector<absl::StatusOr<ReleaseResult>> results;
  results.reserve(requests.size());
  for (const ReleaseRequest& r : requests) results.push_back(Release(r));
  return results;
}

}  // namespace crawler::politeness
