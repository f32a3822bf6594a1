#include "services/frontier/revisit_budget.h"

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace crawler::frontier {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

TEST(RevisitBudget, ReleasesAtMostTheBudgetPlusWhatWasSaved) {
  RevisitBudget budget;
  EXPECT_TRUE(budget.TryTake(kStart));  // unlimited before the first SetRate
  budget.SetRate(24, absl::Hours(3), kStart);  // one a hour, up to 3 saved
  EXPECT_TRUE(budget.TryTake(kStart));          // the one token it starts with
  EXPECT_FALSE(budget.TryTake(kStart + absl::Minutes(59)));
  int taken = 0;
  while (budget.TryTake(kStart + absl::Hours(10))) ++taken;
  EXPECT_EQ(taken, 3);  // ten hours unspent, but only a burst's worth saved
}

TEST(RevisitBudget, SpendBeforeAnyIsMeasuredIsZero) {
  RevisitBudget budget;
  EXPECT_EQ(budget.spent_visits_per_day(kStart), 0);
  budget.SetRate(100, absl::Hours(1), kStart);
  EXPECT_EQ(budget.spent_visits_per_day(kStart), 0);
  EXPECT_EQ(budget.spent_visits_per_day(kStart + absl::Hours(1)), 0);
}

// The time constant is 100 budgeted visits; long before it passes, the figure is the mean since
// the measurement began, not an average still warming up from 0.
TEST(RevisitBudget, EarlySpendIsTheMeanSinceTheStart) {
  RevisitBudget budget;
  budget.SetRate(86400 * 20.0, absl::Hours(1), kStart);  // 20 a second: a 5 s time constant
  for (int tick = 1; tick <= 10; ++tick) {
    budget.RecordSpend(2, kStart + absl::Milliseconds(100 * tick));  // 20 a second
  }
  EXPECT_NEAR(budget.spent_visits_per_day(kStart + absl::Seconds(1)) / 86400, 20, 0.5);
}

TEST(RevisitBudget, SteadySpendMeasuresItsRateAndFollowsAChange) {
  RevisitBudget budget;
  budget.SetRate(86400 * 20.0, absl::Hours(1), kStart);
  absl::Time now = kStart;
  for (int tick = 0; tick < 600; ++tick) {  // 60 s at 10 a second
    now += absl::Milliseconds(100);
    budget.RecordSpend(1, now);
  }
  EXPECT_NEAR(budget.spent_visits_per_day(now) / 86400, 10, 0.2);
  for (int tick = 0; tick < 600; ++tick) {  // 60 s (12 time constants) at 30 a second
    now += absl::Milliseconds(100);
    budget.RecordSpend(3, now);
  }
  EXPECT_NEAR(budget.spent_visits_per_day(now) / 86400, 30, 0.5);
  // Nothing more: the figure decays (e^-1 after one time constant, 5 s).
  EXPECT_NEAR(budget.spent_visits_per_day(now + absl::Seconds(5)) / 86400, 30 / M_E, 0.5);
}

}  // namespace
}  // namespace crawler::frontier
