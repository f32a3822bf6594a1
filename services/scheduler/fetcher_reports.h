// FetcherReports: the fetchers' counters as the scheduler keeps them. Each fetcher process (an
// incarnation of fetcher k) reports its cumulative counters per collection every few seconds;
// the last report of each incarnation is kept in the store, so that neither a fetcher's restart
// nor the scheduler's loses what was counted. A partition's oldest incarnations beyond
// `max_incarnations_per_partition` are folded into one retired record of that partition, so the
// sums stay whole while the store stays bounded.
//
// Thread-safety: thread-safe.
#ifndef CRAWLER_SERVICES_SCHEDULER_FETCHER_REPORTS_H_
#define CRAWLER_SERVICES_SCHEDULER_FETCHER_REPORTS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/scheduler/record_codec.h"
#include "services/scheduler/scheduler_api.h"

namespace crawler::scheduler {

class FetcherReports {
 public:
  // The column family the reports are kept in. Key: the partition as 8 hex digits, '/', the
  // incarnation. Value: the report (RecordCodec).
  static constexpr char kFamily[] = "fetcher_reports";

  // Loads the reports in `store`. kDataLoss for a report that does not decode. `store` and
  // `codec` must outlive the object.
  static absl::StatusOr<std::unique_ptr<FetcherReports>> Open(
      kv::KvStore& store, const RecordCodec& codec, size_t max_incarnations_per_partition);

  // Keeps `report` as its incarnation's latest. kInvalidArgument for an empty incarnation or a
  // partition not below `partition_count`; a store error as it is.
  absl::Status Take(const FetcherReport& report, uint32_t partition_count);

  // Writes `batch` (e.g. the deletion of the collection's record) together with the removal of
  // `collection`'s counters from every report: a collection created later under the same name
  // starts from zero.
  absl::Status Forget(const std::string& collection, kv::WriteBatch batch);

  // `collection`'s counters summed over every report into `stats`: outcomes, robots denials,
  // duplicates, URLs exchanged (sent to another partition than the sender's) and suppressed.
  // Counters of another `generation` of the name (CollectionGeneration; 0: unknown, counted)
  // are left out.
  void AddTo(const std::string& collection, uint64_t generation, CollectionStats& stats) const;

 private:
  using Key = std::pair<uint32_t, std::string>;  // partition, incarnation
  FetcherReports(kv::KvStore& store, const RecordCodec& codec, size_t max_incarnations)
      : store_(store), codec_(codec), max_incarnations_(max_incarnations) {}

  kv::KvStore& store_;
  const RecordCodec& codec_;
  const size_t max_incarnations_;
  mutable absl::Mutex mu_;
  std::map<Key, FetcherReport> reports_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_FETCHER_REPORTS_H_
