// DedupClient: the content index as fetchers see it. In one process the core itself
// (LocalDedupClient, local_dedup_client.h); distributed, a gRPC stub. Calls carry batches and
// fail as remote calls do (kUnavailable for an index that cannot be reached); a fetcher that
// cannot reach the index archives its pages in full rather than stall (PageProcessor).
//
// Thread-safety: implementations are thread-safe.
#ifndef CRAWLER_SERVICES_DEDUP_DEDUP_CLIENT_H_
#define CRAWLER_SERVICES_DEDUP_DEDUP_CLIENT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "services/dedup/dedup_api.h"

namespace crawler::dedup {

class DedupClient {
 public:
  virtual ~DedupClient() = default;
  // Dedup::Check: one verdict per query, in order. Records nothing.
  virtual absl::StatusOr<std::vector<ContentVerdict>> Check(
      const std::vector<ContentQuery>& queries) = 0;
  // Dedup::Record: for the unique captures of a Check, once their WARC records are written.
  virtual absl::StatusOr<size_t> Record(const std::vector<ContentQuery>& queries) = 0;
  // Dedup::MarkLinksSeen: which of one page's link keys are new for `collection` (marking them
  // seen). Not split: one page's links are one call.
  virtual absl::StatusOr<std::vector<bool>> MarkLinksSeen(
      std::string_view collection, const std::vector<std::string>& keys) = 0;
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_DEDUP_CLIENT_H_
