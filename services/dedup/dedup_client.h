// DedupClient: the content index as fetchers see it. Standalone, the core in this process
// (LocalDedupClient below); distributed, a gRPC stub. Calls carry batches.
#ifndef CRAWLER_SERVICES_DEDUP_DEDUP_CLIENT_H_
#define CRAWLER_SERVICES_DEDUP_DEDUP_CLIENT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "services/dedup/dedup.h"

namespace crawler::dedup {

class DedupClient {
 public:
  virtual ~DedupClient() = default;
  virtual absl::StatusOr<std::vector<ContentVerdict>> Check(
      const std::vector<ContentQuery>& queries) = 0;
  // Dedup::Record: for the unique captures of a Check, once their WARC records are written.
  virtual absl::StatusOr<size_t> Record(const std::vector<ContentQuery>& queries) = 0;
};

class LocalDedupClient final : public DedupClient {
 public:
  // `dedup` must outlive this object.
  explicit LocalDedupClient(Dedup& dedup) : dedup_(dedup) {}
  absl::StatusOr<std::vector<ContentVerdict>> Check(
      const std::vector<ContentQuery>& queries) override {
    return dedup_.Check(queries);
  }
  absl::StatusOr<size_t> Record(const std::vector<ContentQuery>& queries) override {
    return dedup_.Record(queries);
  }

 private:
  Dedup& dedup_;
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_DEDUP_CLIENT_H_
