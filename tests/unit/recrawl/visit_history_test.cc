// VisitHistory: recording, the bounded ring, and the versioned byte layout documented in
// lib/recrawl/visit_history.h (round trips, and every kind of corrupt input yields a Status).
#include "lib/recrawl/visit_history.h"

#include <cstdint>
#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace crawler::recrawl {
namespace {

absl::Time Day(double d) { return absl::FromUnixSeconds(1'700'000'000) + absl::Hours(24 * d); }

VisitHistory SampleHistory() {
  VisitHistory history(8);
  history.Record(Day(0), false, std::nullopt);
  history.Record(Day(1), true, Day(0.5));
  history.Record(Day(3), false, Day(0.5));
  history.Record(Day(3.25), true, std::nullopt);
  return history;
}

TEST(VisitHistory, FirstRecordOnlyAnchorsTheClock) {
  VisitHistory history;
  history.Record(Day(0), true, Day(-3));
  EXPECT_TRUE(history.empty());
  ASSERT_TRUE(history.last_visit().has_value());
  EXPECT_EQ(*history.last_visit(), Day(0));
}

TEST(VisitHistory, RecordsIntervalsChangesAndLastModifiedAge) {
  const VisitHistory history = SampleHistory();
  ASSERT_EQ(history.size(), 3);
  EXPECT_EQ(history[0].interval_seconds, 86400u);
  EXPECT_TRUE(history[0].changed);
  ASSERT_TRUE(history[0].has_last_modified);
  EXPECT_EQ(history[0].since_last_modified_seconds, 43200u);
  EXPECT_EQ(history[1].interval_seconds, 2 * 86400u);
  EXPECT_FALSE(history[1].changed);
  EXPECT_DOUBLE_EQ(*history[1].since_last_modified_days(), 2.5);
  EXPECT_EQ(history[2].interval_seconds, 6 * 3600u);
  EXPECT_FALSE(history[2].has_last_modified);
  EXPECT_EQ(history[2].since_last_modified_days(), std::nullopt);
  EXPECT_EQ(history.changed_count(), 2);
  EXPECT_DOUBLE_EQ(history.total_interval_days(), 3.25);
}

TEST(VisitHistory, ClockSteppingBackCountsAsOneSecond) {
  VisitHistory history;
  history.Record(Day(2), false, std::nullopt);
  history.Record(Day(1), true, Day(5));  // earlier visit, Last-Modified in the future
  ASSERT_EQ(history.size(), 1);
  EXPECT_EQ(history[0].interval_seconds, 1u);
  EXPECT_EQ(history[0].since_last_modified_seconds, 0u);
  // The anchor did not move backwards: the next interval is measured from day 2 (+1 s).
  history.Record(Day(3), false, std::nullopt);
  EXPECT_EQ(history[1].interval_seconds, 86400u - 1);
}

TEST(VisitHistory, KeepsOnlyTheLastCapacityVisits) {
  VisitHistory history(3);
  for (uint32_t i = 1; i <= 5; ++i) history.Append(Visit{i, i % 2 == 0, false, 0});
  ASSERT_EQ(history.size(), 3);
  EXPECT_EQ(history[0].interval_seconds, 3u);
  EXPECT_EQ(history[2].interval_seconds, 5u);
  EXPECT_EQ(history.latest().interval_seconds, 5u);
}

TEST(VisitHistoryEncoding, RoundTripsIncludingAWrappedRing) {
  VisitHistory history(4);
  history.Record(Day(0), false, std::nullopt);
  for (int i = 1; i <= 7; ++i) {
    history.Record(Day(i * 1.5), i % 3 == 0, i % 2 == 0 ? std::optional(Day(i)) : std::nullopt);
  }
  const std::string bytes = history.Encode();
  absl::StatusOr<VisitHistory> decoded = VisitHistory::Decode(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, history);
  EXPECT_EQ(decoded->Encode(), bytes);
}

TEST(VisitHistoryEncoding, RoundTripsEmptyAndUnanchoredHistories) {
  for (const VisitHistory& history : {VisitHistory(1), VisitHistory(64)}) {
    absl::StatusOr<VisitHistory> decoded = VisitHistory::Decode(history.Encode());
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, history);
    EXPECT_FALSE(decoded->last_visit().has_value());
  }
}

TEST(VisitHistoryEncoding, RoundTripsExtremeValues) {
  VisitHistory history(2);
  history.Record(absl::FromUnixSeconds(-5'000'000'000), false, std::nullopt);
  history.Append(Visit{UINT32_MAX, true, true, UINT32_MAX});
  absl::StatusOr<VisitHistory> decoded = VisitHistory::Decode(history.Encode());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, history);
}

TEST(VisitHistoryEncoding, LayoutIsVersionOne) {
  // Pinned bytes: the layout is on disk, so any change must be a new version.
  VisitHistory history(2);
  history.Record(absl::FromUnixSeconds(1), false, std::nullopt);
  history.Append(Visit{300, true, true, 7});
  const std::string expected = {1, 2, 1, 1,
                                2,                                          // zigzag(1)
                                static_cast<char>(0xb3), 0x09,              // 300 << 2 | 3
                                7};
  EXPECT_EQ(history.Encode(), expected);
  EXPECT_EQ(history.Encode().size(), 8u);
}

TEST(VisitHistoryEncoding, TypicalHistoryIsCompact) {
  VisitHistory history;
  history.Record(Day(0), false, std::nullopt);
  for (int i = 1; i <= 40; ++i) history.Record(Day(i), i % 4 == 0, Day(i - 0.5));
  EXPECT_LE(history.Encode().size(), 4u + 5u + 32u * 6u);
}

struct CorruptCase {
  const char* name;
  std::string bytes;
  absl::StatusCode code;
};

TEST(VisitHistoryEncoding, CorruptInputYieldsAStatus) {
  const CorruptCase cases[] = {
      {"empty", "", absl::StatusCode::kDataLoss},
      {"future version", std::string{2, 4, 0, 0}, absl::StatusCode::kUnimplemented},
      {"version zero", std::string{0, 4, 0, 0}, absl::StatusCode::kUnimplemented},
      {"capacity zero", std::string{1, 0, 0, 0}, absl::StatusCode::kDataLoss},
      {"capacity 65", std::string{1, 65, 0, 0}, absl::StatusCode::kDataLoss},
      {"count over capacity", std::string{1, 2, 3, 1, 0}, absl::StatusCode::kDataLoss},
      {"unknown flag", std::string{1, 2, 0, 3, 0}, absl::StatusCode::kDataLoss},
      {"visits without anchor", std::string{1, 2, 1, 0, 4}, absl::StatusCode::kDataLoss},
      {"zero interval", std::string{1, 2, 1, 1, 0, 1}, absl::StatusCode::kDataLoss},
      {"trailing byte", std::string{1, 2, 0, 0, 0}, absl::StatusCode::kDataLoss},
      {"missing Last-Modified age", std::string{1, 2, 1, 1, 0, 6}, absl::StatusCode::kDataLoss},
      {"unterminated varint", std::string{1, 2, 0, 1, static_cast<char>(0x80)},
       absl::StatusCode::kDataLoss},
      {"varint over 64 bits",
       std::string{1, 2, 0, 1, '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff',
                   '\xff', 0x7f},
       absl::StatusCode::kDataLoss},
      {"interval over 32 bits",
       std::string{1, 2, 1, 1, 0, '\x80', '\x80', '\x80', '\x80', 0x40},
       absl::StatusCode::kDataLoss},
  };
  for (const CorruptCase& c : cases) {
    absl::StatusOr<VisitHistory> decoded = VisitHistory::Decode(c.bytes);
    EXPECT_EQ(decoded.status().code(), c.code) << c.name << ": " << decoded.status();
  }
}

TEST(VisitHistoryEncoding, EveryTruncationIsDetected) {
  const std::string bytes = SampleHistory().Encode();
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_EQ(VisitHistory::Decode(bytes.substr(0, n)).status().code(),
              absl::StatusCode::kDataLoss)
        << "prefix of " << n << " bytes";
  }
}

TEST(VisitHistoryEncoding, MutatedAndRandomBytesNeverCrash) {
  std::mt19937_64 engine(7);
  const std::string valid = SampleHistory().Encode();
  int accepted = 0;
  for (int i = 0; i < 100'000; ++i) {
    std::string bytes;
    if (i % 2 == 0) {
      bytes.resize(engine() % 24);
      for (char& b : bytes) b = static_cast<char>(engine());
    } else {
      bytes = valid;
      for (int m = 1 + static_cast<int>(engine() % 3); m > 0 && !bytes.empty(); --m) {
        const size_t at = engine() % bytes.size();
        switch (engine() % 3) {
          case 0: bytes[at] = static_cast<char>(engine()); break;
          case 1: bytes.erase(at, 1); break;
          default: bytes.insert(at, 1, static_cast<char>(engine())); break;
        }
      }
    }
    absl::StatusOr<VisitHistory> decoded = VisitHistory::Decode(bytes);
    if (decoded.ok()) {
      ++accepted;
      EXPECT_EQ(decoded->Encode(), bytes);  // an accepted input is the canonical encoding
    } else {
      EXPECT_TRUE(decoded.status().code() == absl::StatusCode::kDataLoss ||
                  decoded.status().code() == absl::StatusCode::kUnimplemented)
          << decoded.status();
    }
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
}  // namespace crawler::recrawl
