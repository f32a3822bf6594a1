#include "services/scheduler/scheduler_config.h"

namespace crawler::scheduler {

const config::KeyTable<RevisitTunerOptions>& RevisitTunerKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<RevisitTunerOptions>;
    t->Add({"revisit_tune_interval", "--revisit-tune-interval",
            "How often the re-visit policy is re-tuned"},
           &RevisitTunerOptions::interval);
    return t;
  }();
  return *table;
}

}  // namespace crawler::scheduler
