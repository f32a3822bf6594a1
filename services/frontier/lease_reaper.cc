#include "services/frontier/lease_reaper.h"

#include <utility>

namespace crawler::frontier {

LeaseReaper::LeaseReaper(LeaseReaperOptions options, std::vector<Frontier*> frontiers,
                         std::function<void(const absl::Status&)> on_error)
    : options_(options), frontiers_(std::move(frontiers)), on_error_(std::move(on_error)) {}

void LeaseReaper::Tick(absl::Time now) {
  if (now - last_run_ < options_.interval) return;
  last_run_ = now;
  for (Frontier* frontier : frontiers_) {
    absl::StatusOr<size_t> expired = frontier->ExpireLeases();
    if (expired.ok()) {
      expired_ += *expired;
    } else if (on_error_) {
      on_error_(expired.status());
    }
  }
}

}  // namespace crawler::frontier
