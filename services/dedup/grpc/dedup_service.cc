#include "services/dedup/grpc/dedup_service.h"

#include <string>
#include <vector>

#include "services/common/grpc/status.h"
#include "services/dedup/grpc/dedup_convert.h"

namespace crawler::dedup {

using grpc_common::ToGrpcStatus;

grpc::Status DedupService::Check(grpc::ServerContext* context, const v1::CheckRequest* request,
                                 v1::CheckResponse* response) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->Check(*context, "Check"); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<ContentQuery>> queries = FromCheckRequest(*request);
  if (!queries.ok()) return ToGrpcStatus(queries.status());
  absl::StatusOr<std::vector<ContentVerdict>> verdicts = dedup_.Check(*queries);
  if (!verdicts.ok()) return ToGrpcStatus(verdicts.status());
  for (const ContentVerdict& v : *verdicts) {
    (v.verdict == Verdict::kExactDuplicate  ? exact_
     : v.verdict == Verdict::kNearDuplicate ? near_
                                            : unique_)
        .fetch_add(1, std::memory_order_relaxed);
  }
  *response = ToCheckResponse(*verdicts);
  return grpc::Status::OK;
}

grpc::Status DedupService::Record(grpc::ServerContext* context,
                                  const v1::RecordRequest* request, v1::RecordResponse* response) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->Check(*context, "Record"); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<ContentQuery>> queries = FromRecordRequest(*request);
  if (!queries.ok()) return ToGrpcStatus(queries.status());
  absl::StatusOr<size_t> recorded = dedup_.Record(*queries);
  if (!recorded.ok()) return ToGrpcStatus(recorded.status());
  recorded_.fetch_add(*recorded, std::memory_order_relaxed);
  response->set_recorded(*recorded);
  return grpc::Status::OK;
}

grpc::Status DedupService::MarkLinksSeen(grpc::ServerContext* context,
                                         const v1::MarkLinksSeenRequest* request,
                                         v1::MarkLinksSeenResponse* response) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->Check(*context, "MarkLinksSeen"); !s.ok()) return s;
  }
  link_keys_.fetch_add(static_cast<uint64_t>(request->keys_size()), std::memory_order_relaxed);
  const std::vector<std::string> keys(request->keys().begin(), request->keys().end());
  absl::StatusOr<std::vector<bool>> fresh = dedup_.MarkLinksSeen(request->collection(), keys);
  if (!fresh.ok()) return ToGrpcStatus(fresh.status());
  for (const bool f : *fresh) {
    response->add_fresh(f);
    if (f) fresh_links_.fetch_add(1, std::memory_order_relaxed);
  }
  return grpc::Status::OK;
}

}  // namespace crawler::dedup
