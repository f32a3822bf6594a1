// Conversion between the scheduler's API types (services/scheduler/scheduler_api.h) and their
// crawler.v1 messages (proto/crawler/v1/admin.proto, scheduler.proto): the only code that knows
// both. The Admin and SchedulerInternal handlers, the gRPC scheduler client and the records'
// codec use it; the scheduler core never sees a proto.
//
// Encoding cannot fail. Decoding checks what the wire cannot (a collection that does not decode,
// an UNSPECIFIED state, malformed times) and returns kInvalidArgument naming the field path;
// outcome classes this build does not know are left out of a report's counts rather than
// refusing the report (a newer fetcher may count a class an older scheduler lacks). Time
// conventions: services/common/grpc/proto_convert.h.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_SCHEDULER_GRPC_SCHEDULER_CONVERT_H_
#define CRAWLER_SERVICES_SCHEDULER_GRPC_SCHEDULER_CONVERT_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/v1/admin.pb.h"
#include "crawler/v1/scheduler.pb.h"
#include "services/scheduler/scheduler_api.h"

namespace crawler::scheduler {

v1::CollectionState ToProto(CollectionState state);
absl::StatusOr<CollectionState> FromProto(v1::CollectionState state, std::string_view field);

v1::CollectionInfo ToProto(const CollectionInfo& info);
absl::StatusOr<CollectionInfo> FromProto(const v1::CollectionInfo& info, std::string_view field);

v1::StoredCollection ToProto(const StoredCollection& stored);
absl::StatusOr<StoredCollection> FromProto(const v1::StoredCollection& stored);

v1::ReportFetcherStatsRequest ToProto(const FetcherReport& report);
// Requires the start time to be valid when set; an unset one decodes to InfinitePast.
absl::StatusOr<FetcherReport> FromProto(const v1::ReportFetcherStatsRequest& report);

// A live collection fetchers are told of. Decoding: kInvalidArgument naming the field.
absl::StatusOr<FetcherCollection> FromProto(const v1::FetcherCollection& collection,
                                            std::string_view field);

// A live collection that does not decode goes to `unreadable` (with why) rather than failing the
// whole reply: the fetcher keeps crawling the others.
v1::ReportFetcherStatsResponse ToProto(const FetcherReportReply& reply);
FetcherReportReply FromProto(const v1::ReportFetcherStatsResponse& reply);

v1::CollectionStats ToProto(const CollectionStats& stats);

v1::ExplainUrlResponse ToProto(const std::vector<UrlExplanation>& explanations);

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_GRPC_SCHEDULER_CONVERT_H_
