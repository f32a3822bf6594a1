// The simulator's change processes and freshness accounting against the closed forms of Cho &
// Garcia-Molina, TODS 2003, §4: Monte Carlo within 1% at r = 0.25, 1 and 4 for the fixed,
// random and purely random visit orders.
#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "lib/recrawl/freshness.h"
#include "tools/crawlsim/change_process.h"
#include "tools/crawlsim/freshness_meter.h"
#include "tools/crawlsim/random.h"

namespace crawler::crawlsim {
namespace {

using recrawl::VisitOrder;

constexpr int kCycles = 1'000'000;  // visits per case: ~0.3% standard error on the age

struct Measured {
  double freshness;
  double age;
};

// One page with change rate r, visited once per unit time in the given order.
Measured Simulate(VisitOrder order, double r, uint64_t seed) {
  ChangeProcess changes(StreamKey(seed, 1, 0), r);
  FreshnessMeter meter(kCycles, kCycles, 0.0);
  double last_visit = 0;
  double fresh_until = changes.next_change_days();
  double purely_random_clock = 0;
  for (int k = 0; k < kCycles; ++k) {
    double visit = 0;
    switch (order) {
      case VisitOrder::kFixed:
        visit = k + 1.0;
        break;
      case VisitOrder::kRandom:  // once in each cycle [k, k + 1), at a uniform point
        visit = k + StreamUniform(StreamKey(seed, 2, 0), static_cast<uint64_t>(k));
        break;
      case VisitOrder::kPurelyRandom:  // Poisson visits
        purely_random_clock -= std::log(StreamUniform(StreamKey(seed, 3, 0), k));
        visit = purely_random_clock;
        break;
    }
    if (visit >= kCycles) break;
    meter.AddInterval(last_visit, visit, fresh_until, 1.0);
    changes.AdvanceTo(visit);
    fresh_until = changes.next_change_days();
    last_visit = visit;
  }
  meter.AddInterval(last_visit, kCycles, fresh_until, 1.0);
  return {meter.WindowFreshness(1.0), meter.WindowAgeDays(1.0)};
}

const char* Name(VisitOrder order) {
  switch (order) {
    case VisitOrder::kFixed: return "fixed";
    case VisitOrder::kRandom: return "random";
    case VisitOrder::kPurelyRandom: return "purely random";
  }
  return "";
}

TEST(Tods2003_4, MonteCarloMatchesTheClosedFormsWithinOnePercent) {
  for (VisitOrder order : {VisitOrder::kFixed, VisitOrder::kRandom, VisitOrder::kPurelyRandom}) {
    for (double r : {0.25, 1.0, 4.0}) {
      const Measured m = Simulate(order, r, 2024);
      const double freshness = recrawl::ExpectedFreshness(order, r, 1.0);
      const double age = recrawl::ExpectedAgeDays(order, r, 1.0);
      EXPECT_NEAR(m.freshness / freshness, 1.0, 0.01) << Name(order) << " r=" << r;
      EXPECT_NEAR(m.age / age, 1.0, 0.01) << Name(order) << " r=" << r;
    }
  }
}

TEST(FreshnessMeter, IntegratesFreshAndAgeingTimeExactly) {
  // One page over 10 days, window from day 4: copy taken at 0, page changes at 3, visit at 6
  // (age 0..3 on [3, 6]), then fresh until the end.
  FreshnessMeter meter(10.0, 2.0, 4.0);
  meter.AddInterval(0.0, 6.0, 3.0, 1.0);
  meter.AddInterval(6.0, 10.0, 20.0, 1.0);
  EXPECT_DOUBLE_EQ(meter.WindowFreshness(1.0), 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(meter.WindowAgeDays(1.0), (0.5 * 9 - 0.5 * 1) / 6.0);  // age 1..3 on [4, 6]
  ASSERT_EQ(meter.bucket_count(), 5);
  EXPECT_DOUBLE_EQ(meter.BucketFreshness(1, 1.0), 0.5);  // [2, 4): fresh until 3
  EXPECT_DOUBLE_EQ(meter.BucketAgeDays(1, 1.0), 0.25);    // age 0..1 on [3, 4)
  EXPECT_DOUBLE_EQ(meter.BucketFreshness(4, 1.0), 1.0);
}

}  // namespace
}  // namespace crawler::crawlsim
