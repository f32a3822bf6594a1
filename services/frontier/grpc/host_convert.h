// Proto conversion of host control (services/frontier/host_api.h <-> the host messages of
// proto/crawler/v1/frontier.proto), one to one, for the Frontier service, its client and the
// Admin service, which share the messages. Times that mean "never" (InfinitePast; next_due's
// InfiniteFuture) and unlimited page caps are unset fields.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_FRONTIER_GRPC_HOST_CONVERT_H_
#define CRAWLER_SERVICES_FRONTIER_GRPC_HOST_CONVERT_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "crawler/v1/frontier.pb.h"
#include "services/frontier/host_api.h"

namespace crawler::frontier {

v1::HostSummary ToProto(const HostSummary& summary);
absl::StatusOr<HostSummary> FromProto(const v1::HostSummary& p, std::string_view field);

v1::ListHostsRequest ToProto(std::string_view collection, const ListHostsRequest& request);
absl::StatusOr<ListHostsRequest> FromProto(const v1::ListHostsRequest& p);
v1::ListHostsResponse ToProto(const ListHostsResult& result);
absl::StatusOr<ListHostsResult> FromProto(const v1::ListHostsResponse& p);

v1::GetHostResponse ToProto(const HostDetail& detail);
absl::StatusOr<HostDetail> FromProto(const v1::GetHostResponse& p);

v1::ControlHostRequest ToProto(std::string_view collection, std::string_view host_key,
                               const HostControlChange& change);
// The host key and the change; kInvalidArgument without a change.
absl::StatusOr<std::pair<std::string, HostControlChange>> FromProto(
    const v1::ControlHostRequest& p);

v1::ControlHostResponse ToControlHostResponse(const HostChangeResult& result);
v1::DropHostQueueResponse ToDropHostQueueResponse(const HostChangeResult& result);
absl::StatusOr<HostChangeResult> FromProto(const v1::ControlHostResponse& p);
absl::StatusOr<HostChangeResult> FromProto(const v1::DropHostQueueResponse& p);

v1::ListHostUrlsRequest ToProto(std::string_view collection, const ListHostUrlsRequest& request);
absl::StatusOr<ListHostUrlsRequest> FromProto(const v1::ListHostUrlsRequest& p);
v1::ListHostUrlsResponse ToProto(const ListHostUrlsResult& result);
absl::StatusOr<ListHostUrlsResult> FromProto(const v1::ListHostUrlsResponse& p);

v1::GetHostControlsResponse ToProto(const FetcherControlTable& table);
absl::StatusOr<FetcherControlTable> FromProto(const v1::GetHostControlsResponse& p);

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_GRPC_HOST_CONVERT_H_
