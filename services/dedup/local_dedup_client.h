// LocalDedupClient: a DedupClient that calls a Dedup core in this process.
//
// Thread-safety: as the Dedup (thread-safe). The Dedup must outlive this object.
#ifndef CRAWLER_SERVICES_DEDUP_LOCAL_DEDUP_CLIENT_H_
#define CRAWLER_SERVICES_DEDUP_LOCAL_DEDUP_CLIENT_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "services/dedup/dedup.h"
#include "services/dedup/dedup_client.h"

namespace crawler::dedup {

class LocalDedupClient final : public DedupClient {
 public:
  explicit LocalDedupClient(Dedup& dedup) : dedup_(dedup) {}
  absl::StatusOr<std::vector<ContentVerdict>> Check(
      const std::vector<ContentQuery>& queries) override {
    return dedup_.Check(queries);
  }
  absl::StatusOr<size_t> Record(const std::vector<ContentQuery>& queries) override {
    return dedup_.Record(queries);
  }
  absl::StatusOr<std::vector<bool>> MarkLinksSeen(std::string_view collection,
                                                  const std::vector<std::string>& keys) override {
    return dedup_.MarkLinksSeen(collection, keys);
  }

 private:
  Dedup& dedup_;
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_LOCAL_DEDUP_CLIENT_H_
