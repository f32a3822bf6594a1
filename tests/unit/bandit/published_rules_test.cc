// BeeBot's rules R1-R3 (Pechnikov & Chernobrovkin 2012) on fixed reward sequences; every expected
// trace was worked out by hand (comments give the statistics at each decision).
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/bandit/explore_then_commit.h"
#include "lib/bandit/greedy_mean.h"
#include "lib/bandit/policy_factory.h"
#include "lib/bandit/ucb1.h"
#include "tests/unit/bandit/trace.h"

namespace crawler::bandit {
namespace {

using ::crawler::bandit::testing::Trace;
using ::testing::ElementsAre;

TEST(R1ExploreThenCommit, ExploresRoundRobinThenCommitsToMostLinksAndFallsBackOnRetirement) {
  ExploreThenCommit policy(3, {.explore_pulls = 2});
  // After two rounds: totals 1, 3, 2 -> commit to site 1. Its third page is its last: it retires,
  // and the runner-up by total (site 2, 2 links) takes over until it retires too; then site 0.
  const std::vector<int> trace = Trace(policy, {{1, 0, 5, 5, 5}, {0, 3, 1}, {2, 0, 0}}, 12);
  EXPECT_THAT(trace, ElementsAre(0, 1, 2, 0, 1, 2, 1, 2, 0, 0, 0, -1));
}

TEST(R1ExploreThenCommit, CommitsByTotalNotByMean) {
  // Site 0: 3 links on 2 pages (mean 1.5); site 1 retires after one page with 2 links (mean 2).
  // Site 2: 4 links on 2 pages. Commit goes to the largest total, site 2.
  ExploreThenCommit policy(3, {.explore_pulls = 2});
  EXPECT_THAT(Trace(policy, {{1, 2, 0, 0}, {2}, {0, 4, 0}}, 6), ElementsAre(0, 1, 2, 0, 2, 2));
}

TEST(R1ExploreThenCommit, DefaultExplorationIsBudgetOverSites) {
  // E = round(10 / 3) = 3: nine round-robin pulls, then the commit (site 1 has the most links).
  absl::StatusOr<std::unique_ptr<Policy>> policy = MakePolicy("r1", 3, 10, {}, 0);
  ASSERT_TRUE(policy.ok());
  EXPECT_THAT(Trace(**policy, {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}}, 10),
              ElementsAre(0, 1, 2, 0, 1, 2, 0, 1, 2, 1));
}

TEST(R2GreedyMean, LocksOntoEarlyWinnerAndNeverRetriesASiteWithNoEarlyLinks) {
  GreedyMean policy(3, {.batch_pulls = 2});
  // Initial round (2 pages each): means 0, 0.5, 0.5 -> site 1 (tie, lowest index) for a batch:
  // its mean drops to 1/4. Site 2 (mean 0.5) next; its third page is its last, so its batch ends
  // after one pull (retired). Site 1 (1/4, then 1/6, ...) beats site 0 (mean 0) until it runs
  // out of pages; only then does site 0 get pulled and its 9-link pages are found.
  const std::vector<int> trace =
      Trace(policy, {{0, 0, 9, 9, 9, 9}, {1, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 1}}, 18);
  EXPECT_THAT(trace, ElementsAre(0, 1, 2, 0, 1, 2, 1, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, -1));
}

TEST(R2GreedyMean, ChooseIsStableWithinABatch) {
  GreedyMean policy(2, {.batch_pulls = 1});
  policy.Observe(0, 1);
  policy.Observe(1, 0);
  EXPECT_EQ(policy.Choose(), 0);
  EXPECT_EQ(policy.Choose(), 0);
}

TEST(R3Ucb1, WithoutAnyLinkTheExplorationTermAloneMakesItRoundRobin) {
  // X_max = 0: index = sqrt(2 ln n / t(i)), largest for the least-pulled site (ties: lowest).
  Ucb1 policy(3, {.initial_pulls = 1});
  EXPECT_THAT(Trace(policy, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, 10),
              ElementsAre(0, 1, 2, 0, 1, 2, 0, 1, 2, -1));
}

TEST(R3Ucb1, IndexTrace) {
  // Site 0 earns 1 link per page, site 1 none; X_max = 1 after the first pull.
  //   n=2: I0 = 1 + sqrt(2 ln2 / 1) = 2.177, I1 = 1.177 -> 0
  //   n=3: I0 = 1 + sqrt(2 ln3 / 2) = 2.048, I1 = 1.482 -> 0
  //   n=4: I0 = 1 + sqrt(2 ln4 / 3) = 1.961, I1 = 1.665 -> 0
  //   n=5: I0 = 1 + sqrt(2 ln5 / 4) = 1.897, I1 = 1.794 -> 0
  //   n=6: I0 = 1 + sqrt(2 ln6 / 5) = 1.847, I1 = 1.893 -> 1
  //   n=7: I0 = 1 + sqrt(2 ln7 / 5) = 1.882, I1 = sqrt(2 ln7 / 2) = 1.395 -> 0
  Ucb1 policy(2, {.initial_pulls = 1});
  EXPECT_THAT(Trace(policy, {{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 0}}, 8),
              ElementsAre(0, 1, 0, 0, 0, 0, 1, 0));
  EXPECT_NEAR(policy.Index(0), 1 + std::sqrt(2 * std::log(8.0) / 6), 1e-12);
  EXPECT_NEAR(policy.Index(1), std::sqrt(2 * std::log(8.0) / 2), 1e-12);
}

TEST(R3Ucb1, MeanIsScaledByTheLargestRewardSeen) {
  Ucb1 policy(2, {.initial_pulls = 1});
  policy.Observe(0, 4);
  policy.Observe(1, 2);
  policy.Observe(0, 0);
  // mean(0) = 2, mean(1) = 2, X_max = 4, n = 3.
  EXPECT_NEAR(policy.Index(0), 0.5 + std::sqrt(2 * std::log(3.0) / 2), 1e-12);
  EXPECT_NEAR(policy.Index(1), 0.5 + std::sqrt(2 * std::log(3.0) / 1), 1e-12);
}

TEST(R3Ucb1, ExhaustedSiteLeavesTheGame) {
  // Site 0 has three pages: as in IndexTrace it is pulled at steps 1, 3, 4 and retires after its
  // third page; every later pull goes to site 1, the only one left.
  Ucb1 policy(2, {.initial_pulls = 1});
  EXPECT_THAT(Trace(policy, {{1, 1, 1}, {0, 0, 0, 0}}, 8), ElementsAre(0, 1, 0, 0, 1, 1, 1, -1));
  EXPECT_EQ(policy.total_pulls(), 7);
  EXPECT_EQ(policy.active_arms(), 0);
}

TEST(R3Ucb1, InitialPullsPerSite) {
  Ucb1 policy(2, {.initial_pulls = 2});
  EXPECT_THAT(Trace(policy, {{0, 0, 0}, {5, 5, 5}}, 4), ElementsAre(0, 1, 0, 1));
}

TEST(PolicyFactory, KnowsEveryNameAndRejectsOthers) {
  for (const std::string& name : PolicyNames()) {
    absl::StatusOr<std::unique_ptr<Policy>> policy = MakePolicy(name, 4, 100, {}, 7);
    ASSERT_TRUE(policy.ok()) << name;
    EXPECT_EQ((*policy)->name(), name);
  }
  EXPECT_EQ(MakePolicy("r4", 4, 100, {}, 7).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakePolicy("r1", 0, 100, {}, 7).status().code(), absl::StatusCode::kInvalidArgument);
  PolicyOptions bad;
  bad.r2.batch_pulls = 0;
  EXPECT_EQ(MakePolicy("r2", 4, 100, bad, 7).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Policy, EveryArmRetiredMeansNoChoice) {
  GreedyMean policy(2, {});
  policy.Retire(1);
  policy.Retire(1);
  EXPECT_EQ(policy.active_arms(), 1);
  EXPECT_EQ(policy.Choose(), 0);
  policy.Retire(0);
  EXPECT_EQ(policy.Choose(), -1);
}

TEST(PolicyDeathTest, ObservingARetiredArmIsABrokenRequirement) {
  Ucb1 policy(2, {});
  policy.Retire(0);
  EXPECT_DEATH(policy.Observe(0, 1), "retired");
  EXPECT_DEATH(policy.Observe(1, -1), "negative");
}

}  // namespace
}  // namespace crawler::bandit
