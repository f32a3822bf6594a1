// The scheduler's own configuration keys (services/common/config/key_table.h): the re-visit
// tuner's over RevisitTunerOptions. A collection's keys are services/collections/collection_keys.h.
#ifndef CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CONFIG_H_
#define CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CONFIG_H_

#include "services/common/config/key_table.h"
#include "services/scheduler/revisit_tuner.h"

namespace crawler::scheduler {

// revisit_tune_interval.
const config::KeyTable<RevisitTunerOptions>& RevisitTunerKeys();

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CONFIG_H_
