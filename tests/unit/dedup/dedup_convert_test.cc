// Round trips of the content index's API types through crawler.v1 (dedup_convert.h), and the
// named kInvalidArgument for malformed proto input.
#include "services/dedup/grpc/dedup_convert.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler::dedup {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

void ExpectInvalid(const absl::Status& status, const std::string& field) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(field)) << status;
}

std::vector<ContentQuery> SomeQueries() {
  return {
      {.url = "https://example.org/",
       .content_key = fingerprint::ContentKey(kMax64, 1),
       .simhash = fingerprint::SimHash64(kMax64),
       .fetch_time = absl::FromUnixNanos(1'764'160'000'000'000'001),
       .warc_record_id = "<urn:uuid:0f9a2c1e-0000-4000-8000-000000000000>",
       .payload_digest = "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
      // simhash 0 is a value, distinct from "no text"; times at both ends.
      {.url = "https://example.org/a",
       .content_key = fingerprint::ContentKey(0, 0),
       .simhash = fingerprint::SimHash64(0),
       .fetch_time = absl::InfiniteFuture()},
      {},  // no simhash, fetch time InfinitePast (unset on the wire)
  };
}

TEST(DedupConvertTest, EveryVerdictRoundTrips) {
  for (Verdict v : {Verdict::kUnique, Verdict::kExactDuplicate, Verdict::kNearDuplicate}) {
    absl::StatusOr<Verdict> back = FromProto(ToProto(v), "verdict");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, v);
  }
  ExpectInvalid(FromProto(v1::VERDICT_UNSPECIFIED, "verdicts[0].verdict").status(),
                "verdicts[0].verdict");
  ExpectInvalid(FromProto(static_cast<v1::Verdict>(17), "v").status(), "v");
}

TEST(DedupConvertTest, CheckAndRecordRequestsRoundTrip) {
  const std::vector<ContentQuery> queries = SomeQueries();
  EXPECT_FALSE(ToProto(queries[2]).has_simhash());
  EXPECT_TRUE(ToProto(queries[1]).has_simhash());

  absl::StatusOr<std::vector<ContentQuery>> back = FromCheckRequest(ToCheckRequest(queries));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, queries);
  back = FromRecordRequest(ToRecordRequest(queries));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, queries);
  back = FromCheckRequest(ToCheckRequest({}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->empty());
}

TEST(DedupConvertTest, CheckResponseRoundTrips) {
  const Original original{.url = "https://mirror.example/",
                          .fetch_time = absl::InfinitePast(),
                          .warc_record_id = "<urn:uuid:x>",
                          .payload_digest = "sha1:B"};
  const std::vector<ContentVerdict> verdicts = {
      {.verdict = Verdict::kUnique},
      {.verdict = Verdict::kExactDuplicate, .original = original},
      {.verdict = Verdict::kNearDuplicate,
       .original = Original{.url = "u", .fetch_time = absl::UnixEpoch()},
       .distance_bits = 64},
  };
  absl::StatusOr<std::vector<ContentVerdict>> back = FromCheckResponse(ToCheckResponse(verdicts));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, verdicts);
}

TEST(DedupConvertTest, RejectsMalformedQueries) {
  v1::CheckRequest request = ToCheckRequest(SomeQueries());
  request.mutable_queries(1)->set_content_key(std::string(15, 'x'));
  ExpectInvalid(FromCheckRequest(request).status(), "queries[1].content_key");
  request.mutable_queries(1)->clear_content_key();
  ExpectInvalid(FromCheckRequest(request).status(), "queries[1].content_key");

  v1::RecordRequest record = ToRecordRequest(SomeQueries());
  record.mutable_queries(2)->mutable_fetch_time()->set_nanos(1'000'000'000);
  ExpectInvalid(FromRecordRequest(record).status(), "queries[2].fetch_time");
}

TEST(DedupConvertTest, RejectsMalformedVerdicts) {
  const std::vector<ContentVerdict> verdicts = {
      {.verdict = Verdict::kUnique},
      {.verdict = Verdict::kNearDuplicate, .original = Original{}, .distance_bits = 3}};
  v1::CheckResponse response = ToCheckResponse(verdicts);
  response.mutable_verdicts(1)->clear_original();
  ExpectInvalid(FromCheckResponse(response).status(), "verdicts[1].original");

  response = ToCheckResponse(verdicts);
  response.mutable_verdicts(1)->set_distance_bits(65);
  ExpectInvalid(FromCheckResponse(response).status(), "verdicts[1].distance_bits");

  response = ToCheckResponse(verdicts);
  response.mutable_verdicts(0)->set_verdict(v1::VERDICT_UNSPECIFIED);
  ExpectInvalid(FromCheckResponse(response).status(), "verdicts[0].verdict");

  response = ToCheckResponse(verdicts);
  response.mutable_verdicts(1)->mutable_original()->mutable_fetch_time()->set_seconds(
      std::numeric_limits<int64_t>::min());
  ExpectInvalid(FromCheckResponse(response).status(), "verdicts[1].original.fetch_time");
}

}  // namespace
}  // namespace crawler::dedup
