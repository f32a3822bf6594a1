// Conversion between the content index's API types (services/dedup/dedup_api.h) and their
// crawler.v1 messages (proto/crawler/v1/dedup.proto): the only code that knows both. The dedup
// service's handlers and its gRPC client use it; the core never sees a proto.
//
// Encoding cannot fail. Decoding returns kInvalidArgument naming the field path
// ("queries[3].content_key: ...") for a content key that is not 16 bytes, an UNSPECIFIED or
// unknown verdict, a duplicate verdict without its original, a distance outside [0, 64], a
// malformed time and a request of more than kMaxQueriesPerCall queries. Time conventions:
// services/common/grpc/proto_convert.h.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_CONVERT_H_
#define CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_CONVERT_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/v1/dedup.pb.h"
#include "services/dedup/dedup_api.h"

namespace crawler::dedup {

v1::Verdict ToProto(Verdict verdict);
absl::StatusOr<Verdict> FromProto(v1::Verdict verdict, std::string_view field);

v1::ContentQuery ToProto(const ContentQuery& query);
absl::StatusOr<ContentQuery> FromProto(const v1::ContentQuery& query, std::string_view field);

v1::ContentVerdict ToProto(const ContentVerdict& verdict);
absl::StatusOr<ContentVerdict> FromProto(const v1::ContentVerdict& verdict, std::string_view field);

// The most queries a Check or Record request may carry (decoding a larger one fails with
// kInvalidArgument on "queries"): each costs the server a storage lookup, and fetchers send
// batches of FetcherOptions::worker_batch (16 by default). Clients split larger batches.
inline constexpr size_t kMaxQueriesPerCall = 4096;

// Dedup.Check.
v1::CheckRequest ToCheckRequest(const std::vector<ContentQuery>& queries);
absl::StatusOr<std::vector<ContentQuery>> FromCheckRequest(const v1::CheckRequest& request);
v1::CheckResponse ToCheckResponse(const std::vector<ContentVerdict>& verdicts);
absl::StatusOr<std::vector<ContentVerdict>> FromCheckResponse(const v1::CheckResponse& response);

// Dedup.Record (the reply is the count recorded).
v1::RecordRequest ToRecordRequest(const std::vector<ContentQuery>& queries);
absl::StatusOr<std::vector<ContentQuery>> FromRecordRequest(const v1::RecordRequest& request);

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_CONVERT_H_
