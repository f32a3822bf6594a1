// DiscountedUcb (Garivier & Moulines 2011) on a fixed reward sequence, worked out by hand.
#include "lib/bandit/discounted_ucb.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/bandit/trace.h"

namespace crawler::bandit {
namespace {

using ::crawler::bandit::testing::Trace;
using ::testing::ElementsAre;

TEST(DiscountedUcb, IndexTrace) {
  // gamma = 0.5, xi = 0.5; site 0 earns 1 per page, site 1 nothing; X_max = 1.
  //   after 0,1:     N = (0.5, 1),     n = 1.5:   I0 = 1 + 2 sqrt(.5 ln1.5 / .5) = 2.274,
  //                                               I1 = 2 sqrt(.5 ln1.5) = 0.900      -> 0
  //   after 0,1,0:   N = (1.25, 0.5),  n = 1.75:  I0 = 1.946, I1 = 1.496             -> 0
  //   after 0,1,0,0: N = (1.625, 0.25), n = 1.875: I0 = 1.880, I1 = 2.243            -> 1
  DiscountedUcb policy(2, {.discount = 0.5, .xi = 0.5, .initial_pulls = 1});
  EXPECT_THAT(Trace(policy, {{1, 1, 1, 1, 1}, {0, 0, 0}}, 4), ElementsAre(0, 1, 0, 0));
  EXPECT_NEAR(policy.Index(0), 1 + 2 * std::sqrt(0.5 * std::log(1.875) / 1.625), 1e-12);
  EXPECT_NEAR(policy.Index(1), 2 * std::sqrt(0.5 * std::log(1.875) / 0.25), 1e-12);
  EXPECT_EQ(policy.Choose(), 1);
}

TEST(DiscountedUcb, WithoutAnyLinkTheExplorationTermAloneDecides) {
  DiscountedUcb policy(3, {.discount = 1.0, .xi = 0.6, .initial_pulls = 1});
  EXPECT_THAT(Trace(policy, {{0, 0}, {0, 0}, {0, 0}}, 7), ElementsAre(0, 1, 2, 0, 1, 2, -1));
}

}  // namespace
}  // namespace crawler::bandit
