// The syntax of a collection's name: it names a directory on every frontier partition's disk, a
// WARC file prefix and the crawl log of every fetcher.
//
// Thread-safety: pure function.
#ifndef CRAWLER_SERVICES_COLLECTIONS_COLLECTION_NAME_H_
#define CRAWLER_SERVICES_COLLECTIONS_COLLECTION_NAME_H_

#include <string_view>

#include "absl/status/status.h"

namespace crawler::collections {

// kInvalidArgument (naming "name") unless `name` matches [a-z0-9][a-z0-9_-]{0,62}.
absl::Status ValidateCollectionName(std::string_view name);

}  // namespace crawler::collections

#endif  // CRAWLER_SERVICES_COLLECTIONS_COLLECTION_NAME_H_
