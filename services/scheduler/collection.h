// Collection: what to crawl and how (the "scope of a collection"): seeds, scope,
// politeness, limits, and what to store. The scheduler owns collections; the frontier and
// fetcher receive the parts they apply.
#ifndef CRAWLER_SERVICES_SCHEDULER_COLLECTION_H_
#define CRAWLER_SERVICES_SCHEDULER_COLLECTION_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/politeness/politeness_options.h"
#include "lib/scope/scope.h"

namespace crawler::scheduler {

struct CollectionLimits {
  static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();
  uint64_t max_pages = kUnlimited;           // pages fetched in total
  uint64_t max_pages_per_host = kUnlimited;  // pages fetched per host key
};

struct Collection {
  std::string name = "default";
  std::vector<std::string> seeds;  // absolute http(s) URLs
  scope::ScopeOptions scope;
  CollectionLimits limits;
  politeness::PolitenessOptions politeness;
  // Media types (essence, after sniffing) stored in WARC files; empty = everything fetched.
  std::vector<std::string> store_content_types;
  // Write WARC files at all ("whether to store bodies"). Off: the crawl only maps the site.
  bool store_bodies = true;

  // Checks every field; kInvalidArgument names the first bad one.
  absl::Status Validate() const;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_COLLECTION_H_
