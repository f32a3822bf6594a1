#include "services/dedup/grpc/grpc_dedup_client.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "services/common/grpc/status.h"
#include "services/dedup/grpc/dedup_convert.h"

namespace crawler::dedup {
namespace {

// Calls `call(first, last)` on consecutive slices of at most kMaxQueriesPerCall queries.
template <typename Call>
absl::Status ForEachSlice(const std::vector<ContentQuery>& queries, Call call) {
  for (size_t first = 0; first < queries.size(); first += kMaxQueriesPerCall) {
    const size_t last = std::min(queries.size(), first + kMaxQueriesPerCall);
    if (absl::Status s =
            call(std::vector<ContentQuery>(queries.begin() + first, queries.begin() + last));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status CallError(const char* method, const grpc::Status& status) {
  const absl::Status s = grpc_common::FromGrpcStatus(status);
  return absl::Status(s.code(), absl::StrCat("Dedup.", method, ": ", s.message()));
}

}  // namespace

GrpcDedupClient::GrpcDedupClient(std::shared_ptr<grpc::Channel> channel,
                                 GrpcDedupClientOptions options)
    : options_(options), stub_(v1::Dedup::NewStub(std::move(channel))) {}

absl::StatusOr<std::vector<ContentVerdict>> GrpcDedupClient::Check(
    const std::vector<ContentQuery>& queries) {
  std::vector<ContentVerdict> verdicts;
  verdicts.reserve(queries.size());
  absl::Status status = ForEachSlice(queries, [&](const std::vector<ContentQuery>& slice) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.call_timeout));
    v1::CheckResponse response;
    const grpc::Status s = stub_->Check(&context, ToCheckRequest(slice), &response);
    if (!s.ok()) return CallError("Check", s);
    absl::StatusOr<std::vector<ContentVerdict>> decoded = FromCheckResponse(response);
    if (!decoded.ok()) {
      return absl::InternalError(
          absl::StrCat("Dedup.Check: bad answer: ", decoded.status().message()));
    }
    if (decoded->size() != slice.size()) {
      return absl::InternalError(absl::StrCat("Dedup.Check: ", decoded->size(), " verdicts for ",
                                              slice.size(), " queries"));
    }
    for (ContentVerdict& v : *decoded) verdicts.push_back(std::move(v));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return verdicts;
}

absl::StatusOr<size_t> GrpcDedupClient::Record(const std::vector<ContentQuery>& queries) {
  size_t recorded = 0;
  absl::Status status = ForEachSlice(queries, [&](const std::vector<ContentQuery>& slice) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.call_timeout));
    v1::RecordResponse response;
    const grpc::Status s = stub_->Record(&context, ToRecordRequest(slice), &response);
    if (!s.ok()) return CallError("Record", s);
    recorded += response.recorded();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return recorded;
}

absl::StatusOr<std::vector<bool>> GrpcDedupClient::MarkLinksSeen(
    std::string_view collection, const std::vector<std::string>& keys) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + options_.call_timeout));
  v1::MarkLinksSeenRequest request;
  request.set_collection(std::string(collection));
  request.mutable_keys()->Add(keys.begin(), keys.end());
  v1::MarkLinksSeenResponse response;
  const grpc::Status s = stub_->MarkLinksSeen(&context, request, &response);
  if (!s.ok()) return CallError("MarkLinksSeen", s);
  if (static_cast<size_t>(response.fresh_size()) != keys.size()) {
    return absl::InternalError(absl::StrCat("Dedup.MarkLinksSeen: ", response.fresh_size(),
                                            " answers for ", keys.size(), " keys"));
  }
  return std::vector<bool>(response.fresh().begin(), response.fresh().end());
}

}  // namespace crawler::dedup
