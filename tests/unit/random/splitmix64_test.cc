#include "lib/random/splitmix64.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace crawler::random {
namespace {

// The first outputs of Vigna's reference splitmix64.c seeded with 1234567.
TEST(SplitMix64, MatchesTheReferenceImplementation) {
  SplitMix64 rng(1234567);
  constexpr uint64_t kExpected[] = {6457827717110365317ull, 3203168211198807973ull,
                                    9817491932198370423ull, 4593380528125082431ull,
                                    16408922859458223821ull};
  for (const uint64_t expected : kExpected) EXPECT_EQ(rng.Next(), expected);
}

TEST(SplitMix64, NextIsMix64OfTheStateAndAdvancesByTheGamma) {
  SplitMix64 rng(42);
  const uint64_t state = rng.state();
  EXPECT_EQ(rng.Next(), Mix64(state));
  EXPECT_EQ(rng.state(), state + kGoldenGamma);
}

static_assert(Mix64(1234567) == 6457827717110365317ull);

}  // namespace
}  // namespace crawler::random
