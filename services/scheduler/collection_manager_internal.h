// What the files of CollectionManager share (collection_manager.cc: the records and their state
// machine; collection_sync.cc: the control loop; collection_queries.cc: statistics and
// explanations). Not part of the scheduler's API.
#ifndef CRAWLER_SERVICES_SCHEDULER_COLLECTION_MANAGER_INTERNAL_H_
#define CRAWLER_SERVICES_SCHEDULER_COLLECTION_MANAGER_INTERNAL_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "services/collections/collection.h"
#include "services/frontier/routed_frontier_client.h"
#include "services/scheduler/collection_manager.h"

namespace crawler::scheduler {

// The column family of the collections' records. Key: the name. Value: the record (RecordCodec).
inline constexpr char kCollectionsFamily[] = "collections";

struct CollectionManager::Entry {
  StoredCollection stored;  // the manager's mu_ guards it
  // stored.info.collection as built; an update builds a new Entry, so this never changes.
  collections::Collection collection;
  uint64_t generation = 0;  // CollectionGeneration(its create_time)
  // The definition as fetchers get it (seeds: only those its scope needs) and its digest.
  collections::Collection fetcher_definition;
  uint64_t fetcher_version = 0;
  std::unique_ptr<Scheduler> core;
  // Seeds go through a router without the popular-URL cache: a seed is always sent.
  std::unique_ptr<frontier::RoutedFrontierClient> router;
  std::unique_ptr<RevisitTuner> tuner;  // re-visiting collections only
  // Focused collections only: the page budget's split over the partitions, pushed by Open.
  std::unique_ptr<FocusBudgetTuner> focus_tuner;
  // Only on the Tick thread, but opened_everywhere, which an update sets too and the
  // Resharder reads (LiveCollections).
  absl::Time last_open = absl::InfinitePast();
  std::atomic<bool> opened_everywhere{false};
};

// kNotFound: "collection 'name' not found".
absl::Status CollectionNotFound(const std::string& name);

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_COLLECTION_MANAGER_INTERNAL_H_
