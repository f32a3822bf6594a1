#include "services/frontier/lease_reaper.h"

#include <utility>

namespace crawler::frontier {

LeaseReaper::LeaseReaper(LeaseReaperOptions options, std::vector<Frontier*> frontiers,
                         std::function<void(const absl::Status&)> on_error)
    : LeaseReaper(
          options,
          [frontiers = std::move(frontiers)] {
            // Handles that own nothing: the caller keeps these cores alive.
            std::vector<std::shared_ptr<Frontier>> cores;
            for (Frontier* frontier : frontiers) cores.emplace_back(frontier, [](Frontier*) {});
            return cores;
          },
          std::move(on_error)) {}

LeaseReaper::LeaseReaper(LeaseReaperOptions options, Source source,
                         std::function<void(const absl::Status&)> on_error)
    : options_(options), source_(std::move(source)), on_error_(std::move(on_error)) {}

void LeaseReaper::Tick(absl::Time now) {
  if (now - last_run_ < options_.interval) return;
  last_run_ = now;
  for (const std::shared_ptr<Frontier>& frontier : source_()) {
    absl::StatusOr<size_t> expired = frontier->ExpireLeases();
    if (expired.ok()) {
      expired_ += *expired;
    } else if (on_error_) {
      on_error_(expired.status());
    }
  }
}

}  // namespace crawler::frontier
