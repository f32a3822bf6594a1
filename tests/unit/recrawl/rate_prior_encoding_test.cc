// The storage and RPC forms of the fitted prior and the fleet evidence (rate_prior.h,
// rate_prior_encoding.cc): round trips, rejection of damaged input, and merging partitions'
// evidence as the scheduler does.
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/recrawl/rate_prior.h"
#include "tests/unit/recrawl/test_histories.h"

namespace crawler::recrawl {
namespace {

using testing_histories::kDay;
using testing_histories::Regular;

// Mixed histories: regular and irregular intervals, changes with and without Last-Modified.
std::vector<VisitHistory> SomeHistories(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> visits(1, 20);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<VisitHistory> out;
  for (int i = 0; i < count; ++i) {
    VisitHistory history(32);
    const int n = visits(rng);
    for (int v = 0; v < n; ++v) {
      const auto interval = static_cast<uint32_t>((0.1 + 5 * unit(rng)) * kDay);
      const bool changed = unit(rng) < 0.4;
      const bool timed = changed && unit(rng) < 0.3;
      history.Append(Visit{interval, changed, timed,
                           timed ? static_cast<uint32_t>(unit(rng) * interval) : 0});
    }
    out.push_back(history);
  }
  return out;
}

void ExpectNear(const FleetEvidence& a, const FleetEvidence& b) {
  EXPECT_NEAR(a.page_count(), b.page_count(), 1e-9);
  const std::vector<FleetEvidence::CellEntry> x = a.cells();
  const std::vector<FleetEvidence::CellEntry> y = b.cells();
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].key, y[i].key);
    EXPECT_NEAR(x[i].pages, y[i].pages, 1e-9);
  }
}

// Equal up to rounding: the fit sums cells in hash order, and RatePrior renormalises.
void ExpectSameWeights(const RatePrior& a, const RatePrior& b, double tolerance) {
  for (int k = 0; k < RatePrior::kPoints; ++k) {
    EXPECT_NEAR(a.weight(k), b.weight(k), tolerance * (1e-12 + b.weight(k))) << k;
  }
}

TEST(FleetEvidenceEncoding, RoundTrips) {
  FleetEvidence evidence;
  for (const VisitHistory& h : SomeHistories(500, 1)) evidence.Add(h);
  ASSERT_GT(evidence.cell_count(), 10u);
  const std::string bytes = evidence.Encode();
  absl::StatusOr<FleetEvidence> decoded = FleetEvidence::Decode(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, evidence);
  EXPECT_EQ(decoded->Encode(), bytes);  // deterministic: cells in key order
  // The fit sees the same evidence.
  const RatePrior start = RatePrior::FromGamma(GammaPrior{2.0, 10.0});
  ExpectSameWeights(decoded->Fit(start, {}), evidence.Fit(start, {}), 1e-9);
}

TEST(FleetEvidenceEncoding, EmptyRoundTrips) {
  absl::StatusOr<FleetEvidence> decoded = FleetEvidence::Decode(FleetEvidence().Encode());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->page_count(), 0);
  EXPECT_EQ(decoded->cell_count(), 0u);
}

TEST(FleetEvidenceEncoding, RejectsDamage) {
  FleetEvidence evidence;
  for (const VisitHistory& h : SomeHistories(50, 2)) evidence.Add(h);
  const std::string bytes = evidence.Encode();
  EXPECT_EQ(FleetEvidence::Decode("").status().code(), absl::StatusCode::kDataLoss);
  std::string version = bytes;
  version[0] = 9;
  EXPECT_EQ(FleetEvidence::Decode(version).status().code(), absl::StatusCode::kUnimplemented);
  for (size_t cut = 1; cut < bytes.size(); cut += 7) {
    EXPECT_EQ(FleetEvidence::Decode(bytes.substr(0, cut)).status().code(),
              absl::StatusCode::kDataLoss)
        << cut;
  }
  EXPECT_EQ(FleetEvidence::Decode(bytes + "x").status().code(), absl::StatusCode::kDataLoss);
  // A cell count far beyond the bytes: rejected before anything is reserved for it.
  std::string huge(1, '\x02');
  huge.append(8, '\0');
  huge.append("\xff\xff\xff\xff\x0f");
  EXPECT_EQ(FleetEvidence::Decode(huge).status().code(), absl::StatusCode::kDataLoss);
  // A negative page count.
  std::string negative = bytes;
  const double minus = -1;
  std::memcpy(&negative[1], &minus, sizeof minus);
  EXPECT_EQ(FleetEvidence::Decode(negative).status().code(), absl::StatusCode::kDataLoss);
}

TEST(FleetEvidenceEncoding, RefusesVersionOneAndKeysOffTheGrid) {
  // Version 1 pooled every untimed interval in one group: it cannot be split, so it is refused
  // as an unknown version and the frontier rebuilds its evidence from the URL records.
  std::string v1(1, '\x01');
  v1.append(8, '\0');
  v1.push_back('\0');
  EXPECT_EQ(FleetEvidence::Decode(v1).status().code(), absl::StatusCode::kUnimplemented);
  // One cell whose change-free days lie in bin 200 (the grid has 101).
  FleetEvidence one;
  one.Add(Regular(3, 0, 1.0));
  std::string bytes = one.Encode();
  const uint64_t bad_key = uint64_t{3} << 32 | uint64_t{200} << 16;
  std::string cell;
  for (uint64_t v = bad_key; ; v >>= 7) {
    if (v < 0x80) {
      cell.push_back(static_cast<char>(v));
      break;
    }
    cell.push_back(static_cast<char>((v & 0x7f) | 0x80));
  }
  std::string damaged = bytes.substr(0, 1 + 8 + 1) + cell + bytes.substr(bytes.size() - 8);
  EXPECT_EQ(FleetEvidence::Decode(damaged).status().code(), absl::StatusCode::kDataLoss);
}

TEST(FleetEvidenceEncoding, CommitmentsTravelWithTheCellsAndTheFitIgnoresThem) {
  const std::vector<VisitHistory> histories = SomeHistories(200, 5);
  FleetEvidence plain;
  FleetEvidence committed;
  for (size_t i = 0; i < histories.size(); ++i) {
    plain.Add(histories[i]);
    // Every other page reports a commitment, the rest none (a new page, another policy).
    committed.Add(histories[i], 1.0, i % 2 == 0 ? 0.1 * (1 + i % 7) : -1.0);
  }
  EXPECT_EQ(committed.cell_count(), plain.cell_count());
  absl::StatusOr<FleetEvidence> decoded = FleetEvidence::Decode(committed.Encode());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, committed);
  double pages = 0;
  double visits = 0;
  for (const FleetEvidence::CellPosterior& cell :
       committed.Posteriors(RatePrior::FromGamma({}))) {
    pages += cell.committed_pages;
    visits += cell.committed_visits_per_day;
  }
  EXPECT_NEAR(pages, 100, 1e-9);
  double expected = 0;
  for (size_t i = 0; i < histories.size(); i += 2) expected += 0.1 * (1 + i % 7);
  EXPECT_NEAR(visits, expected, 1e-9);
  const RatePrior start = RatePrior::FromGamma(GammaPrior{2.0, 10.0});
  ExpectSameWeights(committed.Fit(start, {}), plain.Fit(start, {}), 1e-9);
  // Removing with the same commitment takes it out again.
  for (size_t i = 0; i < histories.size(); i += 2) {
    committed.Remove(histories[i], 1.0, 0.1 * (1 + i % 7));
    committed.Add(histories[i]);
  }
  for (const FleetEvidence::CellEntry& cell : committed.cells()) {
    EXPECT_NEAR(cell.committed_pages, 0, 1e-9);
    EXPECT_NEAR(cell.committed_visits_per_day, 0, 1e-9);
  }
}

TEST(FleetEvidenceEncoding, MergedPartitionsEqualTheUnion) {
  // Three partitions' evidence, merged as the scheduler merges it, against the evidence of all
  // pages kept in one place.
  const std::vector<VisitHistory> histories = SomeHistories(900, 3);
  FleetEvidence all;
  std::array<FleetEvidence, 3> parts;
  for (size_t i = 0; i < histories.size(); ++i) {
    all.Add(histories[i]);
    parts[i % 3].Add(histories[i]);
  }
  FleetEvidence merged;
  for (const FleetEvidence& part : parts) {
    absl::StatusOr<FleetEvidence> shipped = FleetEvidence::Decode(part.Encode());
    ASSERT_TRUE(shipped.ok());
    merged.Merge(*shipped);
  }
  ExpectNear(merged, all);
  const RatePrior start = RatePrior::FromGamma(GammaPrior{2.0, 10.0});
  ExpectSameWeights(merged.Fit(start, {}), all.Fit(start, {}), 1e-6);
}

TEST(FleetEvidenceEncoding, RemoveThenAddMatchesFreshEvidence) {
  // The frontier's way: each visit Removes the page's old history and Adds the new one.
  const std::vector<VisitHistory> before = SomeHistories(300, 4);
  std::vector<VisitHistory> after = before;
  FleetEvidence incremental;
  for (const VisitHistory& h : before) incremental.Add(h);
  for (size_t i = 0; i < after.size(); i += 2) {
    incremental.Remove(after[i]);
    after[i].Append(Visit{kDay, i % 4 == 0, false, 0});
    incremental.Add(after[i]);
  }
  FleetEvidence fresh;
  for (const VisitHistory& h : after) fresh.Add(h);
  ExpectNear(incremental, fresh);
}

TEST(RatePriorWeights, RoundTripAndValidation) {
  const RatePrior prior = RatePrior::FromGamma(GammaPrior{2.0, 10.0});
  absl::StatusOr<RatePrior> back = RatePrior::FromWeights(prior.weights());
  ASSERT_TRUE(back.ok());
  ExpectSameWeights(*back, prior, 1e-14);

  std::vector<double> weights(prior.weights().begin(), prior.weights().end());
  EXPECT_EQ(RatePrior::FromWeights(std::vector<double>(weights.begin(), weights.end() - 1))
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<double> bad = weights;
  bad[3] = -0.5;
  EXPECT_EQ(RatePrior::FromWeights(bad).status().code(), absl::StatusCode::kInvalidArgument);
  bad[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(RatePrior::FromWeights(bad).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RatePrior::FromWeights(std::vector<double>(RatePrior::kPoints, 0.0)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::recrawl
