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

}  // namespace crawler::scheduler
