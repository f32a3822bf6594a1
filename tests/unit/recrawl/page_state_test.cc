#include "lib/recrawl/page_state.h"
#include "lib/recrawl/rate_histogram.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "absl/time/time.h"

namespace crawler::recrawl {
namespace {

PageRevisitState Sample() {
  PageRevisitState state;
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  state.history.Record(t0, false, std::nullopt);
  state.history.Record(t0 + absl::Hours(5), true, t0 + absl::Hours(4));
  state.history.Record(t0 + absl::Hours(9), false, std::nullopt);
  state.policy.interval_days = 0.25;
  state.policy.reference_days = 19675.5;
  state.policy.rate_per_day = 3.5;
  state.policy.category_probability = {0.5f, 0.25f, 0.25f};
  return state;
}

TEST(PageRevisitStateTest, RoundTrips) {
  const PageRevisitState state = Sample();
  absl::StatusOr<PageRevisitState> decoded = PageRevisitState::Decode(state.Encode());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->history, state.history);
  EXPECT_EQ(decoded->policy.interval_days, 0.25);
  EXPECT_EQ(decoded->policy.reference_days, 19675.5);
  EXPECT_EQ(decoded->policy.rate_per_day, 3.5);
  EXPECT_EQ(decoded->policy.category_probability, state.policy.category_probability);
  EXPECT_EQ(decoded->Encode(), state.Encode());
}

TEST(PageRevisitStateTest, EmptyStateIsSmall) {
  const PageRevisitState empty;
  const std::string bytes = empty.Encode();
  EXPECT_LE(bytes.size(), 48u);
  EXPECT_TRUE(PageRevisitState::Decode(bytes).ok());
}

TEST(PageRevisitStateTest, RejectsUnknownVersion) {
  std::string bytes = Sample().Encode();
  bytes[0] = 2;
  EXPECT_EQ(PageRevisitState::Decode(bytes).status().code(), absl::StatusCode::kUnimplemented);
}

TEST(PageRevisitStateTest, RejectsEveryTruncationAndTrailingBytes) {
  const std::string bytes = Sample().Encode();
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(PageRevisitState::Decode(bytes.substr(0, n)).ok()) << n;
  }
  EXPECT_EQ(PageRevisitState::Decode(bytes + "x").status().code(), absl::StatusCode::kDataLoss);
}

TEST(PageRevisitStateTest, RejectsNegativeOrNonFiniteNumbers) {
  PageRevisitState state = Sample();
  state.policy.rate_per_day = -1;
  EXPECT_EQ(PageRevisitState::Decode(state.Encode()).status().code(),
            absl::StatusCode::kDataLoss);
  state.policy.rate_per_day = std::numeric_limits<double>::infinity();
  EXPECT_EQ(PageRevisitState::Decode(state.Encode()).status().code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace crawler::recrawl

namespace crawler::recrawl {
namespace {

TEST(RateHistogramEncodingTest, RoundTripsAndMerges) {
  RateHistogram a;
  a.Add(0.5);
  a.Add(3.0, 2.0);
  a.Add(0);
  RateHistogram b;
  b.Add(100.0);
  absl::StatusOr<RateHistogram> decoded = RateHistogram::Decode(a.Encode());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->Encode(), a.Encode());
  EXPECT_EQ(decoded->page_count(), 3);
  EXPECT_EQ(decoded->static_pages(), 1);
  EXPECT_DOUBLE_EQ(decoded->total_rate(), 3.5);

  decoded->Merge(b);
  RateHistogram all = a;
  all.Add(100.0);
  EXPECT_EQ(decoded->Encode(), all.Encode());
  // An empty histogram is a few bytes: it is written with every completion batch.
  EXPECT_LE(RateHistogram().Encode().size(), 32u);
}

TEST(RateHistogramEncodingTest, RejectsCorruptInput) {
  RateHistogram a;
  a.Add(0.5);
  a.Add(7.0);
  const std::string bytes = a.Encode();
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(RateHistogram::Decode(bytes.substr(0, n)).ok()) << n;
  }
  EXPECT_EQ(RateHistogram::Decode(bytes + "x").status().code(), absl::StatusCode::kDataLoss);
  std::string wrong_version = bytes;
  wrong_version[0] = 9;
  EXPECT_EQ(RateHistogram::Decode(wrong_version).status().code(),
            absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace crawler::recrawl
