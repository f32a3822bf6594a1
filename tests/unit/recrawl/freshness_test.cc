// Closed forms of Cho & Garcia-Molina, "Effective Page Refresh Policies for Web Crawlers",
// ACM TODS 2003, §4 (synchronization order). The Monte Carlo check of the same formulas against
// the simulator is in crawlsim_closed_forms_test.cc.
#include "lib/recrawl/freshness.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace crawler::recrawl {
namespace {

constexpr VisitOrder kOrders[] = {VisitOrder::kFixed, VisitOrder::kRandom,
                                  VisitOrder::kPurelyRandom};

TEST(Tods2003_4, FixedOrderValues) {
  EXPECT_NEAR(ExpectedFreshness(VisitOrder::kFixed, 1.0, 1.0), 1 - std::exp(-1.0), 1e-15);
  EXPECT_NEAR(ExpectedFreshness(VisitOrder::kFixed, 9.0, 0.5), (1 - std::exp(-18.0)) / 18, 1e-15);
  // A = I (1/2 - 1/r + (1 - e^-r) / r^2); r = 2, I = 2.
  EXPECT_NEAR(ExpectedAgeDays(VisitOrder::kFixed, 1.0, 0.5),
              2 * (0.5 - 0.5 + (1 - std::exp(-2.0)) / 4), 1e-15);
}

TEST(Tods2003_4, RandomOrderValues) {
  const double r = 2.0;
  const double q = (1 - std::exp(-r)) / r;
  EXPECT_NEAR(ExpectedFreshness(VisitOrder::kRandom, 2.0, 1.0), (1 - q * q) / r, 1e-15);
  EXPECT_NEAR(ExpectedAgeDays(VisitOrder::kRandom, 2.0, 1.0), 7.0 / 12 - 1 / r + (1 - q * q) / 4,
              1e-15);
}

TEST(Tods2003_4, PurelyRandomValues) {
  EXPECT_DOUBLE_EQ(ExpectedFreshness(VisitOrder::kPurelyRandom, 3.0, 1.0), 0.25);
  EXPECT_DOUBLE_EQ(ExpectedAgeDays(VisitOrder::kPurelyRandom, 3.0, 2.0), 0.5 * 1.5 / 2.5);
}

TEST(Tods2003_4, FixedOrderIsBestAndPurelyRandomWorst) {
  for (double r : {0.1, 1.0, 10.0}) {
    const double fixed = ExpectedFreshness(VisitOrder::kFixed, r, 1.0);
    const double random = ExpectedFreshness(VisitOrder::kRandom, r, 1.0);
    const double purely = ExpectedFreshness(VisitOrder::kPurelyRandom, r, 1.0);
    EXPECT_GT(fixed, random) << r;
    EXPECT_GT(random, purely) << r;
    EXPECT_LT(ExpectedAgeDays(VisitOrder::kFixed, r, 1.0),
              ExpectedAgeDays(VisitOrder::kRandom, r, 1.0));
    EXPECT_LT(ExpectedAgeDays(VisitOrder::kRandom, r, 1.0),
              ExpectedAgeDays(VisitOrder::kPurelyRandom, r, 1.0));
  }
}

TEST(Tods2003_4, SeriesAndClosedFormsAgreeAcrossTheSwitchOver) {
  for (VisitOrder order : kOrders) {
    const double below = 0.01 * (1 - 1e-9);
    const double above = 0.01 * (1 + 1e-9);
    EXPECT_NEAR(ExpectedFreshness(order, below, 1.0), ExpectedFreshness(order, above, 1.0), 1e-10);
    EXPECT_NEAR(ExpectedAgeDays(order, below, 1.0) / ExpectedAgeDays(order, above, 1.0), 1.0,
                1e-7);
  }
}

TEST(Tods2003_4, SmallRatioLimits) {
  // F -> 1 - r/2 + r^2/6 (fixed), A -> I r / 6 (fixed), I r / 4 (random), I r (purely random).
  const double r = 1e-6;
  EXPECT_NEAR(ExpectedFreshness(VisitOrder::kFixed, r, 1.0), 1 - r / 2 + r * r / 6, 1e-15);
  EXPECT_NEAR(ExpectedAgeDays(VisitOrder::kFixed, r, 1.0) / (r / 6), 1.0, 1e-6);
  EXPECT_NEAR(ExpectedAgeDays(VisitOrder::kRandom, r, 1.0) / (r / 4), 1.0, 1e-6);
  EXPECT_NEAR(ExpectedAgeDays(VisitOrder::kPurelyRandom, r, 1.0) / r, 1.0, 1e-6);
}

TEST(Tods2003_4, DegenerateRatesAndFrequencies) {
  for (VisitOrder order : kOrders) {
    EXPECT_EQ(ExpectedFreshness(order, 0.0, 0.0), 1.0);
    EXPECT_EQ(ExpectedFreshness(order, 1.0, 0.0), 0.0);
    EXPECT_EQ(ExpectedAgeDays(order, 0.0, 1.0), 0.0);
    EXPECT_EQ(ExpectedAgeDays(order, 1.0, 0.0), std::numeric_limits<double>::infinity());
  }
}

TEST(Tods2003_5, DerivativeMatchesFiniteDifferences) {
  for (double rate : {0.05, 1.0, 9.0}) {
    for (double f : {0.01, 0.3, 1.0, 5.0, 100.0}) {
      const double h = 1e-6 * f;
      const double numeric = (ExpectedFreshness(VisitOrder::kFixed, rate, f + h) -
                              ExpectedFreshness(VisitOrder::kFixed, rate, f - h)) /
                             (2 * h);
      EXPECT_NEAR(FixedOrderFreshnessDerivative(rate, f), numeric,
                  1e-6 * std::abs(numeric) + 1e-12)
          << rate << " " << f;
    }
  }
  EXPECT_DOUBLE_EQ(FixedOrderFreshnessDerivative(4.0, 0.0), 0.25);
  EXPECT_EQ(FixedOrderFreshnessDerivative(0.0, 1.0), 0.0);
}

}  // namespace
}  // namespace crawler::recrawl
