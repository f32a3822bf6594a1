// SplitFocusBudget: a focused collection's page budget over its partitions (docs/focused.md,
// "Distributed mode").
#include "services/scheduler/focus_budget_tuner.h"

#include <cstdint>
#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler::scheduler {
namespace {

using ::testing::ElementsAre;

uint64_t Sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), 0ull); }

TEST(SplitFocusBudget, BeforeAnyPullThePriorSplitsEvenly) {
  const std::vector<uint64_t> b = SplitFocusBudget(101, {{}, {}, {}});
  EXPECT_EQ(Sum(b), 101u);
  EXPECT_THAT(b, ElementsAre(34, 34, 33));
}

TEST(SplitFocusBudget, WhatIsLeftGoesByPosteriorMeanRewardPerPage) {
  // Left: 100 - 40 = 60. Means (1 + 60) / (2 + 20) = 2.77 and (1 + 0) / (2 + 20) = 0.045.
  const std::vector<uint64_t> b = SplitFocusBudget(
      100, {{.spent = 20, .pulls = 20, .reward = 60}, {.spent = 20, .pulls = 20, .reward = 0}});
  EXPECT_THAT(b, ElementsAre(20 + 59, 20 + 1));
}

TEST(SplitFocusBudget, NeverTakesBackPagesSpentAndGivesNothingToAPartitionWithoutWork) {
  // Spent beyond the total (pulls in flight between reads): each keeps what it spent.
  EXPECT_THAT(SplitFocusBudget(10, {{.spent = 8, .pulls = 8}, {.spent = 5, .pulls = 5}}),
              ElementsAre(8, 5));
  // The partition out of work has the best mean and still gets no share.
  EXPECT_THAT(SplitFocusBudget(50, {{.spent = 10, .pulls = 10, .reward = 100, .has_work = false},
                                    {.spent = 10, .pulls = 10, .reward = 1}}),
              ElementsAre(10, 40));
  // No partition has work: the rest stays unassigned.
  EXPECT_THAT(SplitFocusBudget(50, {{.spent = 3, .has_work = false}}), ElementsAre(3));
}

}  // namespace
}  // namespace crawler::scheduler
