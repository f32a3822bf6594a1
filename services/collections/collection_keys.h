// The scheduler's configuration keys (services/common/config/key_table.h): a collection's
// definition (seeds, scope, limits, politeness, storage, re-visiting) over Collection, and the
// re-visit tuner's over RevisitTunerOptions. Defaults are those of the structs.
#ifndef CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CONFIG_H_
#define CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CONFIG_H_

#include "services/common/config/key_table.h"
#include "services/scheduler/collection.h"
#include "services/scheduler/revisit_tuner.h"

namespace crawler::scheduler {

// name, seeds (no flag: a command line takes seeds as URLs or files of URLs, its own way),
// store_bodies, fingerprints, store_content_types, the scope keys (allow_host_suffixes,
// same_site_only, include, exclude, max_depth), the limits (max_pages, max_pages_per_host), the
// politeness keys (min_delay, max_delay, delay_factor, max_crawl_delay, max_connections_per_host)
// and the re-visit keys (revisit, revisit_policy, revisit_budget, revisit_min_interval,
// revisit_max_interval, revisit_min_visits, revisit_prior, change_threshold_bits).
const config::KeyTable<Collection>& CollectionKeys();

// min_delay, max_delay, delay_factor, max_crawl_delay, max_connections_per_host: a collection's
// politeness, and a fetcher service's per-host budget.
const config::KeyTable<politeness::PolitenessOptions>& PolitenessKeys();

// revisit_tune_interval.
const config::KeyTable<RevisitTunerOptions>& RevisitTunerKeys();

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CONFIG_H_
