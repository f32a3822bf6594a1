// Conversion between a collection's re-visit options (services/collections/revisit_options.h)
// and their crawler.v1 message (proto/crawler/v1/common.proto), part of both a collection
// (admin.proto) and what a frontier partition runs (frontier.proto). Unset fields decode to the
// defaults of RevisitOptions and the policy option structs. Intervals the domain keeps as days
// travel as Durations rounded to the nanosecond. BayesClassifierOptions::update is not carried:
// the policy name decides it (lib/recrawl/policy_factory.h), and decoding sets it from the name.
// Errors: kInvalidArgument naming the field path. Time conventions:
// services/common/grpc/proto_convert.h.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_COLLECTIONS_GRPC_REVISIT_CONVERT_H_
#define CRAWLER_SERVICES_COLLECTIONS_GRPC_REVISIT_CONVERT_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "crawler/v1/common.pb.h"
#include "services/collections/revisit_options.h"

namespace crawler::collections {

v1::RevisitOptions ToProto(const RevisitOptions& revisit);
absl::StatusOr<RevisitOptions> FromProto(const v1::RevisitOptions& revisit, std::string_view field);

}  // namespace crawler::collections

#endif  // CRAWLER_SERVICES_COLLECTIONS_GRPC_REVISIT_CONVERT_H_
