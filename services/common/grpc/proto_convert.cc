#include "services/common/grpc/proto_convert.h"

#include <cstdint>

namespace crawler::grpc_common {
namespace {

// google/protobuf/timestamp.proto and duration.proto: the valid ranges.
constexpr int64_t kMinTimestampSeconds = -62'135'596'800;  // 0001-01-01T00:00:00Z
constexpr int64_t kMaxTimestampSeconds = 253'402'300'799;  // 9999-12-31T23:59:59Z
constexpr int64_t kMaxDurationSeconds = 315'576'000'000;   // 10,000 years
constexpr int32_t kMaxNanos = 999'999'999;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

google::protobuf::Timestamp MakeTimestamp(int64_t seconds, int32_t nanos) {
  google::protobuf::Timestamp timestamp;
  timestamp.set_seconds(seconds);
  timestamp.set_nanos(nanos);
  return timestamp;
}

google::protobuf::Duration MakeDuration(int64_t seconds, int32_t nanos) {
  google::protobuf::Duration duration;
  duration.set_seconds(seconds);
  duration.set_nanos(nanos);
  return duration;
}

}  // namespace

absl::Status InvalidField(std::string_view field, std::string_view what) {
  std::string message(field);
  message.append(": ").append(what);
  return absl::InvalidArgumentError(message);
}

std::string FieldPath(std::string_view parent, std::string_view child) {
  if (parent.empty()) return std::string(child);
  std::string path(parent);
  path.append(".").append(child);
  return path;
}

std::string FieldPath(std::string_view parent, size_t index) {
  std::string path(parent);
  path.append("[").append(std::to_string(index)).append("]");
  return path;
}

google::protobuf::Timestamp TimeToProto(absl::Time time) {
  const absl::Time min = absl::FromUnixSeconds(kMinTimestampSeconds);
  const absl::Time max = absl::FromUnixSeconds(kMaxTimestampSeconds) + absl::Nanoseconds(kMaxNanos);
  if (time <= min) return MakeTimestamp(kMinTimestampSeconds, 0);
  if (time >= max) return MakeTimestamp(kMaxTimestampSeconds, kMaxNanos);
  // Floor division, so that nanos is in [0, 1e9) for times before 1970 too.
  const absl::Duration since_epoch = time - absl::UnixEpoch();
  absl::Duration remainder;
  const int64_t seconds = absl::IDivDuration(since_epoch, absl::Seconds(1), &remainder);
  int64_t nanos = absl::ToInt64Nanoseconds(remainder);
  if (remainder < absl::ZeroDuration()) {
    // IDivDuration truncates towards zero; borrow a second. ToInt64Nanoseconds truncated the
    // quarter-nanoseconds towards zero as well, so step down one more nanosecond if any were
    // dropped, keeping the conversion a floor to the nanosecond throughout.
    if (remainder != absl::Nanoseconds(nanos)) --nanos;
    return MakeTimestamp(seconds - 1, static_cast<int32_t>(nanos + kNanosPerSecond));
  }
  return MakeTimestamp(seconds, static_cast<int32_t>(nanos));
}

absl::StatusOr<absl::Time> TimeFromProto(const google::protobuf::Timestamp& timestamp,
                                         std::string_view field) {
  if (timestamp.seconds() < kMinTimestampSeconds || timestamp.seconds() > kMaxTimestampSeconds ||
      timestamp.nanos() < 0 || timestamp.nanos() > kMaxNanos) {
    return InvalidField(field, "timestamp out of range");
  }
  if (timestamp.seconds() == kMinTimestampSeconds && timestamp.nanos() == 0) {
    return absl::InfinitePast();
  }
  if (timestamp.seconds() == kMaxTimestampSeconds && timestamp.nanos() == kMaxNanos) {
    return absl::InfiniteFuture();
  }
  return absl::FromUnixSeconds(timestamp.seconds()) + absl::Nanoseconds(timestamp.nanos());
}

absl::StatusOr<absl::Time> OptionalTimeFromProto(bool present,
                                                 const google::protobuf::Timestamp& timestamp,
                                                 absl::Time unset, std::string_view field) {
  if (!present) return unset;
  return TimeFromProto(timestamp, field);
}

google::protobuf::Duration DurationToProto(absl::Duration duration) {
  const absl::Duration max = absl::Seconds(kMaxDurationSeconds) + absl::Nanoseconds(kMaxNanos);
  if (duration >= max) return MakeDuration(kMaxDurationSeconds, kMaxNanos);
  if (duration <= -max) return MakeDuration(-kMaxDurationSeconds, -kMaxNanos);
  // Seconds and nanos truncated towards zero carry the same sign, as Duration requires.
  absl::Duration remainder;
  const int64_t seconds = absl::IDivDuration(duration, absl::Seconds(1), &remainder);
  return MakeDuration(seconds, static_cast<int32_t>(absl::ToInt64Nanoseconds(remainder)));
}

absl::StatusOr<absl::Duration> DurationFromProto(const google::protobuf::Duration& duration,
                                                 std::string_view field) {
  const int64_t seconds = duration.seconds();
  const int32_t nanos = duration.nanos();
  if (seconds < -kMaxDurationSeconds || seconds > kMaxDurationSeconds || nanos < -kMaxNanos ||
      nanos > kMaxNanos || (seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0)) {
    return InvalidField(field, "duration out of range");
  }
  if (seconds < 0 || nanos < 0) return InvalidField(field, "must not be negative");
  if (seconds == kMaxDurationSeconds && nanos == kMaxNanos) return absl::InfiniteDuration();
  return absl::Seconds(seconds) + absl::Nanoseconds(nanos);
}

absl::StatusOr<absl::Duration> OptionalDurationFromProto(bool present,
                                                         const google::protobuf::Duration& duration,
                                                         absl::Duration unset,
                                                         std::string_view field) {
  if (!present) return unset;
  return DurationFromProto(duration, field);
}

}  // namespace crawler::grpc_common
