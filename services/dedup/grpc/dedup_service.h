// DedupService: the crawler.v1.Dedup handlers (proto/crawler/v1/dedup.proto) over a Dedup core.
// Each handler converts the request (dedup_convert.h), calls the core and converts the answer
// back; a malformed request is INVALID_ARGUMENT naming the field ("queries[2].content_key: ..."),
// a core error keeps its code (services/common/grpc/status.h). No logic of its own.
//
// Thread-safety: as the core (thread-safe); gRPC calls handlers concurrently. The Dedup must
// outlive the service.
#ifndef CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_SERVICE_H_
#define CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_SERVICE_H_

#include <atomic>
#include <cstdint>

#include "crawler/v1/dedup.grpc.pb.h"
#include "services/common/grpc/call_auth.h"
#include "services/dedup/dedup.h"

namespace crawler::dedup {

class DedupService final : public v1::Dedup::Service {
 public:
  // `auth` (may be null: no check; must outlive the service): who may call (only fetchers ask
  // the index, grpc_common::CallAuth).
  explicit DedupService(Dedup& dedup, grpc_common::CallAuth* auth = nullptr)
      : dedup_(dedup), auth_(auth) {}

  // What the calls found since start: Check's verdicts by kind, the entries Record added to the
  // index, and the link keys MarkLinksSeen was given and those that were fresh. (How many calls
  // of each method were served is the RPC interceptor's, rpc_metrics.h.)
  struct Counts {
    uint64_t unique = 0;
    uint64_t exact = 0;
    uint64_t near = 0;
    uint64_t recorded = 0;
    uint64_t link_keys = 0;
    uint64_t fresh_links = 0;
  };
  Counts counts() const {
    return {.unique = unique_.load(std::memory_order_relaxed),
            .exact = exact_.load(std::memory_order_relaxed),
            .near = near_.load(std::memory_order_relaxed),
            .recorded = recorded_.load(std::memory_order_relaxed),
            .link_keys = link_keys_.load(std::memory_order_relaxed),
            .fresh_links = fresh_links_.load(std::memory_order_relaxed)};
  }

  grpc::Status Check(grpc::ServerContext* context, const v1::CheckRequest* request,
                     v1::CheckResponse* response) override;
  grpc::Status Record(grpc::ServerContext* context, const v1::RecordRequest* request,
                      v1::RecordResponse* response) override;
  grpc::Status MarkLinksSeen(grpc::ServerContext* context, const v1::MarkLinksSeenRequest* request,
                             v1::MarkLinksSeenResponse* response) override;

 private:
  Dedup& dedup_;
  grpc_common::CallAuth* const auth_;
  std::atomic<uint64_t> unique_{0}, exact_{0}, near_{0}, recorded_{0};
  std::atomic<uint64_t> link_keys_{0}, fresh_links_{0};
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_SERVICE_H_
