#include "services/scheduler/scheduler_api.h"

namespace crawler::scheduler {

std::string_view CollectionStateName(CollectionState state) {
  switch (state) {
    case CollectionState::kActive:
      return "active";
    case CollectionState::kPaused:
      return "paused";
    case CollectionState::kFinished:
      return "finished";
  }
  return "unspecified";
}

uint64_t CollectionGeneration(absl::Time create_time) {
  if (create_time <= absl::UnixEpoch()) return 0;
  return static_cast<uint64_t>(absl::ToUnixMicros(create_time));
}

}  // namespace crawler::scheduler
