// The samplers of lib/bandit/random.h: reproducible per seed, right first two moments of Gamma.
#include "lib/bandit/random.h"

#include <cmath>

#include "gtest/gtest.h"

namespace crawler::bandit {
namespace {

TEST(Random, SameSeedSameSequence) {
  Random a(11);
  Random b(11);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(a.Uniform(), b.Uniform());
    EXPECT_EQ(a.StandardGamma(0.5), b.StandardGamma(0.5));
  }
}

TEST(Random, MomentsOfGamma) {
  Random random(2);
  constexpr int kDraws = 200000;
  for (const double shape : {0.3, 1.0, 7.5}) {
    double sum = 0;
    double squares = 0;
    for (int i = 0; i < kDraws; ++i) {
      const double x = random.StandardGamma(shape);
      sum += x;
      squares += x * x;
    }
    const double mean = sum / kDraws;
    EXPECT_NEAR(mean, shape, 0.02 * std::max(1.0, shape)) << shape;
    EXPECT_NEAR(squares / kDraws - mean * mean, shape, 0.05 * std::max(1.0, shape)) << shape;
  }
}

TEST(Random, BelowIsInRange) {
  Random random(5);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 30000; ++i) ++counts[random.Below(3)];
  for (const int c : counts) EXPECT_NEAR(c, 10000, 500);
}

}  // namespace
}  // namespace crawler::bandit
