// The reshard calls of the Frontier service (frontier.proto, "A reshard"): conversion between
// the core's values (host_transfer.h) and their messages. A moved URL's record and a host's
// header travel in the frontier's storage encoding (storage_format.h), so a move loses nothing
// the store keeps.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_FRONTIER_GRPC_HOST_MOVE_CONVERT_H_
#define CRAWLER_SERVICES_FRONTIER_GRPC_HOST_MOVE_CONVERT_H_

#include "absl/status/statusor.h"
#include "crawler/v1/frontier.pb.h"
#include "services/frontier/host_transfer.h"

namespace crawler::frontier {

v1::HostChunk ToProto(const HostChunk& chunk);
// kInvalidArgument for a chunk without a host key, a record or header that does not decode,
// or a queue position out of range.
absl::StatusOr<HostChunk> FromProto(const v1::HostChunk& chunk);

v1::ListHostsToMoveResponse ToProto(const HostsToMove& page);
HostsToMove FromProto(const v1::ListHostsToMoveResponse& page);

v1::ListHeldUrlsResponse ToProto(const HeldUrls& page);
// kInvalidArgument for a priority out of [0, 255].
absl::StatusOr<HeldUrls> FromProto(const v1::ListHeldUrlsResponse& page);

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_GRPC_HOST_MOVE_CONVERT_H_
