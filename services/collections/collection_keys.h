// A collection's configuration keys (services/common/config/key_table.h): its definition (seeds,
// scope, limits, politeness, storage, re-visiting, focus) over Collection, for a collection file
// (crawlctl) and a standalone crawl's configuration alike. Defaults are those of the structs.
#ifndef CRAWLER_SERVICES_COLLECTIONS_COLLECTION_KEYS_H_
#define CRAWLER_SERVICES_COLLECTIONS_COLLECTION_KEYS_H_

#include "services/collections/collection.h"
#include "services/common/config/key_table.h"

namespace crawler::collections {

// name, seeds (no flag: a command line takes seeds as URLs or files of URLs, its own way),
// sitemap_seeds, sitemap_discovery, store_bodies, fingerprints, store_content_types, the scope
// keys (allow_host_suffixes, same_site_only, include, exclude, max_depth), the limits
// (max_pages, max_pages_per_host), the politeness keys (min_delay, max_delay, delay_factor,
// max_crawl_delay, max_connections_per_host) and the re-visit keys (revisit, revisit_policy,
// revisit_budget, revisit_min_interval, revisit_max_interval, revisit_min_visits,
// revisit_prior, change_threshold_bits).
const config::KeyTable<Collection>& CollectionKeys();

}  // namespace crawler::collections

#endif  // CRAWLER_SERVICES_COLLECTIONS_COLLECTION_KEYS_H_
