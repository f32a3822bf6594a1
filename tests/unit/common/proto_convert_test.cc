// The time conventions of every converter (services/common/grpc/proto_convert.h): infinities
// at the ends of the Timestamp and Duration ranges, nanosecond precision, floors before 1970,
// and kInvalidArgument naming the field for malformed or negative values.
#include "services/common/grpc/proto_convert.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler::grpc_common {
namespace {

using ::testing::HasSubstr;

absl::Time RoundTrip(absl::Time t) {
  absl::StatusOr<absl::Time> back = TimeFromProto(TimeToProto(t), "t");
  EXPECT_TRUE(back.ok()) << back.status();
  return back.value_or(absl::UnixEpoch());
}

absl::Duration RoundTrip(absl::Duration d) {
  absl::StatusOr<absl::Duration> back = DurationFromProto(DurationToProto(d), "d");
  EXPECT_TRUE(back.ok()) << back.status();
  return back.value_or(absl::ZeroDuration());
}

void ExpectInvalid(const absl::Status& status, const std::string& field) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(field)) << status;
}

TEST(ProtoTimeTest, TimesRoundTripToTheNanosecond) {
  for (int64_t nanos : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{1'764'160'000'123'456'789},
                        int64_t{-1'500'000'001}, std::numeric_limits<int64_t>::min(),
                        std::numeric_limits<int64_t>::max()}) {
    const absl::Time t = absl::FromUnixNanos(nanos);
    EXPECT_EQ(RoundTrip(t), t) << nanos;
    const google::protobuf::Timestamp p = TimeToProto(t);
    EXPECT_GE(p.nanos(), 0);
    EXPECT_LT(p.nanos(), 1'000'000'000);
  }
  // Quarter nanoseconds are floored, before 1970 too.
  EXPECT_EQ(RoundTrip(absl::UnixEpoch() - absl::Nanoseconds(1) / 4),
            absl::UnixEpoch() - absl::Nanoseconds(1));
  EXPECT_EQ(RoundTrip(absl::UnixEpoch() + absl::Nanoseconds(1) / 4), absl::UnixEpoch());
}

TEST(ProtoTimeTest, InfinitiesAreTheEndsOfTheTimestampRange) {
  EXPECT_EQ(RoundTrip(absl::InfinitePast()), absl::InfinitePast());
  EXPECT_EQ(RoundTrip(absl::InfiniteFuture()), absl::InfiniteFuture());
  EXPECT_EQ(TimeToProto(absl::InfinitePast()).seconds(), -62'135'596'800);
  EXPECT_EQ(TimeToProto(absl::InfiniteFuture()).seconds(), 253'402'300'799);
  EXPECT_EQ(TimeToProto(absl::InfiniteFuture()).nanos(), 999'999'999);
  // Finite times beyond the range saturate to them.
  EXPECT_EQ(RoundTrip(absl::FromUnixSeconds(-70'000'000'000)), absl::InfinitePast());
  EXPECT_EQ(RoundTrip(absl::FromUnixSeconds(300'000'000'000)), absl::InfiniteFuture());
}

TEST(ProtoTimeTest, UnsetTimestampsTakeTheFieldsMeaning) {
  absl::StatusOr<absl::Time> t =
      OptionalTimeFromProto(false, {}, absl::InfiniteFuture(), "next_ready_time");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, absl::InfiniteFuture());
  t = OptionalTimeFromProto(true, {}, absl::InfiniteFuture(), "next_ready_time");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, absl::UnixEpoch());
}

TEST(ProtoTimeTest, MalformedTimestampsNameTheField) {
  google::protobuf::Timestamp p;
  p.set_nanos(-1);
  ExpectInvalid(TimeFromProto(p, "outcomes[1].fetch_time").status(), "outcomes[1].fetch_time");
  p.set_nanos(1'000'000'000);
  ExpectInvalid(TimeFromProto(p, "a").status(), "a");
  p.set_nanos(0);
  p.set_seconds(253'402'300'800);
  ExpectInvalid(TimeFromProto(p, "b").status(), "b");
  p.set_seconds(-62'135'596'801);
  ExpectInvalid(OptionalTimeFromProto(true, p, absl::InfinitePast(), "c").status(), "c");
}

TEST(ProtoDurationTest, DurationsRoundTripAndInfinityIsTheLargest) {
  for (absl::Duration d :
       {absl::ZeroDuration(), absl::Nanoseconds(1), absl::Seconds(1), absl::Milliseconds(1500),
        absl::Hours(24 * 365 * 9999), absl::InfiniteDuration()}) {
    EXPECT_EQ(RoundTrip(d), d) << d;
  }
  EXPECT_EQ(DurationToProto(absl::InfiniteDuration()).seconds(), 315'576'000'000);
  EXPECT_EQ(RoundTrip(absl::Hours(24 * 365 * 20000)), absl::InfiniteDuration());
  EXPECT_EQ(RoundTrip(absl::Nanoseconds(3) / 4), absl::ZeroDuration());
}

TEST(ProtoDurationTest, NegativeAndMalformedDurationsNameTheField) {
  ExpectInvalid(DurationFromProto(DurationToProto(-absl::Seconds(1)), "min_delay").status(),
                "min_delay");
  ExpectInvalid(DurationFromProto(DurationToProto(-absl::Nanoseconds(1)), "x").status(), "x");
  ExpectInvalid(DurationFromProto(DurationToProto(-absl::InfiniteDuration()), "max_delay").status(),
                "max_delay");
  google::protobuf::Duration p;
  p.set_seconds(1);
  p.set_nanos(-1);  // signs differ
  ExpectInvalid(DurationFromProto(p, "y").status(), "y");
  p.set_seconds(315'576'000'001);
  p.set_nanos(0);
  ExpectInvalid(OptionalDurationFromProto(true, p, absl::Seconds(1), "z").status(), "z");
  absl::StatusOr<absl::Duration> unset = OptionalDurationFromProto(false, p, absl::Seconds(1), "z");
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(*unset, absl::Seconds(1));
}

TEST(FieldPathTest, BuildsDottedAndIndexedPaths) {
  EXPECT_EQ(FieldPath("", "collection"), "collection");
  EXPECT_EQ(FieldPath(FieldPath("outcomes", 3), "lease_id"), "outcomes[3].lease_id");
  const absl::Status s = InvalidField("a.b", "required");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()), "a.b: required");
}

}  // namespace
}  // namespace crawler::grpc_common
