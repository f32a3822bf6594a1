// ThompsonSampling (Gamma-Poisson) and its discounted statistics. Sampling makes exact traces
// depend on the generator, so these tests pin the deterministic parts (initial round, retirement,
// seed reproducibility, the posterior it samples from) and the behaviour in clear-cut cases.
#include "lib/bandit/thompson_sampling.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/bandit/discounted_stats.h"
#include "tests/unit/bandit/trace.h"

namespace crawler::bandit {
namespace {

using ::crawler::bandit::testing::Trace;
using ::testing::ElementsAre;

TEST(DiscountedStats, GlobalDiscountAgesEveryArm) {
  DiscountedStats stats(2, 0.5, DiscountMode::kGlobal);
  stats.Add(0, 1);  // w = (1, 0)
  stats.Add(1, 0);  // w = (0.5, 1)
  stats.Add(0, 1);  // w = (1.25, 0.5), s0 = 1.25
  EXPECT_DOUBLE_EQ(stats.weight(0), 1.25);
  EXPECT_DOUBLE_EQ(stats.reward(0), 1.25);
  EXPECT_DOUBLE_EQ(stats.weight(1), 0.5);
  EXPECT_DOUBLE_EQ(stats.total_weight(), 1.75);
}

TEST(DiscountedStats, PerArmDiscountAgesOnlyThePulledArm) {
  DiscountedStats stats(2, 0.5, DiscountMode::kPerArm);
  stats.Add(0, 2);  // w0 = 1, s0 = 2
  stats.Add(1, 0);  // w1 = 1 (arm 0 untouched)
  stats.Add(0, 0);  // w0 = 1.5, s0 = 1
  EXPECT_DOUBLE_EQ(stats.weight(0), 1.5);
  EXPECT_DOUBLE_EQ(stats.reward(0), 1.0);
  EXPECT_DOUBLE_EQ(stats.weight(1), 1.0);
  EXPECT_DOUBLE_EQ(stats.total_weight(), 2.5);
}

TEST(DiscountedStats, NoDiscountIsPlainCounts) {
  DiscountedStats stats(1, 1.0);
  for (int i = 0; i < 5; ++i) stats.Add(0, 2);
  EXPECT_DOUBLE_EQ(stats.weight(0), 5);
  EXPECT_DOUBLE_EQ(stats.reward(0), 10);
}

TEST(ThompsonSampling, InitialRoundIsRoundRobin) {
  ThompsonSampling policy(3, {.initial_pulls = 2}, Random(1));
  EXPECT_THAT(Trace(policy, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, 6), ElementsAre(0, 1, 2, 0, 1, 2));
}

TEST(ThompsonSampling, SameSeedSameTraceAndRetiredArmsAreNeverChosen) {
  const std::vector<std::vector<double>> rewards = {
      {1, 0, 2, 0, 1, 3, 0, 0, 1, 0}, {0, 0, 0, 5, 5}, {2, 2, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}};
  ThompsonSampling a(3, {.discount = 0.9, .discount_mode = DiscountMode::kPerArm}, Random(42));
  ThompsonSampling b(3, {.discount = 0.9, .discount_mode = DiscountMode::kPerArm}, Random(42));
  const std::vector<int> trace = Trace(a, rewards, 28);
  EXPECT_EQ(trace, Trace(b, rewards, 28));
  // 27 pages in all: every page is fetched once, then nothing is left.
  EXPECT_EQ(trace[26] >= 0, true);
  EXPECT_EQ(trace[27], -1);
}

TEST(ThompsonSampling, ExploitsAClearlyBetterSite) {
  // After one page each, site 1's posterior Gamma(1 + 20, 1 + 1) (mean 10.5) dominates site 0's
  // Gamma(1, 2) (mean 0.5): P(draw0 > draw1) is below 1e-9.
  ThompsonSampling policy(2, {}, Random(7));
  policy.Observe(0, 0);
  policy.Observe(1, 20);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(policy.Choose(), 1);
}

TEST(ThompsonSampling, RestedDiscountRevisitsASiteWhoseLinksDriedUp) {
  // Site 0 had 10 links per page for 30 pages, then none; site 1 has 1 link per page. Without a
  // discount site 0's mean stays above 1 for ~270 further pages; with the per-arm discount 0.8
  // its evidence is its last ~5 pages, so site 1 takes over within a few dozen pulls.
  std::vector<double> site0(30, 10.0);
  site0.resize(400, 0.0);
  const std::vector<double> site1(400, 1.0);
  ThompsonSampling rested(2, {.discount = 0.8, .discount_mode = DiscountMode::kPerArm}, Random(5));
  ThompsonSampling stationary(2, {}, Random(5));
  auto pulls_of_site1 = [&](ThompsonSampling& policy) {
    const std::vector<int> trace = Trace(policy, {site0, site1}, 200);
    int count = 0;
    for (int arm : trace) count += arm == 1;
    return count;
  };
  EXPECT_GT(pulls_of_site1(rested), 100);
  EXPECT_LT(pulls_of_site1(stationary), 60);
}

}  // namespace
}  // namespace crawler::bandit
