// The pieces every proto <-> domain converter shares (services/*/grpc/*_convert.h): times,
// durations and the error that names a bad field. The conventions are those of
// proto/crawler/v1/common.proto:
//   - absl::InfinitePast() is the first Timestamp (0001-01-01T00:00:00Z) on the wire and
//     absl::InfiniteFuture() the last (9999-12-31T23:59:59.999999999Z), so both infinities
//     survive a round trip; a finite time outside that range saturates to them, and a finite
//     time is carried to the nanosecond (absl's quarter-nanoseconds are truncated);
//   - absl::InfiniteDuration() is the largest Duration (315,576,000,000 s + 999,999,999 ns);
//     finite durations are carried to the nanosecond and saturate at the largest Duration;
//   - a malformed Timestamp or Duration (out of range, nanos of the wrong sign or size) and a
//     negative Duration are kInvalidArgument "<field>: <what>".
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_COMMON_GRPC_PROTO_CONVERT_H_
#define CRAWLER_SERVICES_COMMON_GRPC_PROTO_CONVERT_H_

#include <google/protobuf/duration.pb.h>
#include <google/protobuf/timestamp.pb.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler::grpc_common {

// kInvalidArgument "<field>: <what>": the error of every converter.
absl::Status InvalidField(std::string_view field, std::string_view what);

// "<parent>.<child>" (or "<child>" at the top), and "<parent>[<index>]": field paths for errors.
std::string FieldPath(std::string_view parent, std::string_view child);
std::string FieldPath(std::string_view parent, size_t index);

// Decodes every element of a repeated field with `decode(element, "<field>[<i>]")`, which
// returns absl::StatusOr<T>; the first error is returned as it is.
template <typename T, typename Repeated, typename Decode>
absl::StatusOr<std::vector<T>> DecodeEach(const Repeated& elements, std::string_view field,
                                          Decode decode) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(elements.size()));
  for (int i = 0; i < elements.size(); ++i) {
    absl::StatusOr<T> element = decode(elements.Get(i), FieldPath(field, static_cast<size_t>(i)));
    if (!element.ok()) return element.status();
    out.push_back(*std::move(element));
  }
  return out;
}

google::protobuf::Timestamp TimeToProto(absl::Time time);
absl::StatusOr<absl::Time> TimeFromProto(const google::protobuf::Timestamp& timestamp,
                                         std::string_view field);
// For a Timestamp field whose absence means `unset` (e.g. InfinitePast: "never"): the value, or
// `unset` when `present` is false.
absl::StatusOr<absl::Time> OptionalTimeFromProto(bool present,
                                                 const google::protobuf::Timestamp& timestamp,
                                                 absl::Time unset, std::string_view field);

google::protobuf::Duration DurationToProto(absl::Duration duration);
// Rejects negative durations: no duration the crawler sends may be negative.
absl::StatusOr<absl::Duration> DurationFromProto(const google::protobuf::Duration& duration,
                                                 std::string_view field);
// For a Duration field whose absence means `unset` (its documented default).
absl::StatusOr<absl::Duration> OptionalDurationFromProto(bool present,
                                                         const google::protobuf::Duration& duration,
                                                         absl::Duration unset,
                                                         std::string_view field);

}  // namespace crawler::grpc_common

#endif  // CRAWLER_SERVICES_COMMON_GRPC_PROTO_CONVERT_H_
