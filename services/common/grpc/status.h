// Conversion between absl::Status and grpc::Status: the one place in the crawler where it
// happens (docs/architecture.md §12). The canonical codes of both libraries are the same seventeen
// values with the same numbers, so codes map 1:1 and the message passes through unchanged, up to
// 2 KiB: a longer message (an error quoting megabytes of untrusted input) keeps its first 1,900
// bytes and says how much was cut, since it travels in the reply's metadata, which clients cap.
// Status payloads (absl::Status::SetPayload) do not cross the wire. A gRPC code outside the
// canonical range (only a broken peer sends one) becomes kUnknown.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_COMMON_GRPC_STATUS_H_
#define CRAWLER_SERVICES_COMMON_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace crawler::grpc_common {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace crawler::grpc_common

#endif  // CRAWLER_SERVICES_COMMON_GRPC_STATUS_H_
