#include "lib/recrawl/freshness.h"

#include <cassert>
#include <cmath>
#include <limits>

namespace crawler::recrawl {
namespace {

// Below this r the closed forms lose digits to cancellation; the series (truncated after the
// r^5 or r^6 term) are then accurate to ~1e-13 relative, and above it the closed forms are.
constexpr double kSeriesBelow = 0.01;

// q = (1 - e^-r) / r.
double Q(double r) { return -std::expm1(-r) / r; }

// 1 - q without cancellation.
double OneMinusQ(double r) {
  if (r < kSeriesBelow) {
    return r * (1.0 / 2 - r * (1.0 / 6 - r * (1.0 / 24 - r * (1.0 / 120 - r / 720))));
  }
  return 1.0 - Q(r);
}

double FixedFreshness(double r) { return Q(r); }

double FixedAgeTimesF(double r) {  // A / I
  if (r < kSeriesBelow) {
    return r * (1.0 / 6 - r * (1.0 / 24 - r * (1.0 / 120 - r * (1.0 / 720 - r / 5040))));
  }
  return 0.5 - 1.0 / r + Q(r) / r;
}

double RandomFreshness(double r) {
  const double one_minus_q = OneMinusQ(r);
  return one_minus_q * (2.0 - one_minus_q) / r;  // (1 - q^2) / r
}

double RandomAgeTimesF(double r) {  // A / I
  if (r < kSeriesBelow) {
    return r * (1.0 / 4 -
                r * (31.0 / 360 - r * (1.0 / 40 - r * (127.0 / 20160 - r * 17.0 / 12096))));
  }
  const double one_minus_q = OneMinusQ(r);
  return 7.0 / 12 - 1.0 / r + one_minus_q * (2.0 - one_minus_q) / (r * r);
}

}  // namespace

double ExpectedFreshness(VisitOrder order, double rate_per_day, double visits_per_day) {
  assert(rate_per_day >= 0 && visits_per_day >= 0);
  if (rate_per_day <= 0) return 1.0;
  if (visits_per_day <= 0) return 0.0;
  const double r = rate_per_day / visits_per_day;
  switch (order) {
    case VisitOrder::kFixed:
      return FixedFreshness(r);
    case VisitOrder::kRandom:
      return RandomFreshness(r);
    case VisitOrder::kPurelyRandom:
      return 1.0 / (1.0 + r);
  }
  return 0.0;
}

double ExpectedAgeDays(VisitOrder order, double rate_per_day, double visits_per_day) {
  assert(rate_per_day >= 0 && visits_per_day >= 0);
  if (rate_per_day <= 0) return 0.0;
  if (visits_per_day <= 0) return std::numeric_limits<double>::infinity();
  const double r = rate_per_day / visits_per_day;
  const double interval = 1.0 / visits_per_day;
  switch (order) {
    case VisitOrder::kFixed:
      return interval * FixedAgeTimesF(r);
    case VisitOrder::kRandom:
      return interval * RandomAgeTimesF(r);
    case VisitOrder::kPurelyRandom:
      return interval * r / (1.0 + r);
  }
  return 0.0;
}

double FixedOrderFreshnessDerivative(double rate_per_day, double visits_per_day) {
  assert(rate_per_day >= 0 && visits_per_day >= 0);
  if (rate_per_day <= 0) return 0.0;
  if (visits_per_day <= 0) return 1.0 / rate_per_day;
  const double r = rate_per_day / visits_per_day;
  // 1 - e^-r (1 + r), with the series r^2/2 - r^3/3 + r^4/8 - r^5/30 + r^6/144 where it cancels.
  const double g =
      r < kSeriesBelow ? r * r * (0.5 - r * (1.0 / 3 - r * (1.0 / 8 - r * (1.0 / 30 - r / 144))))
                       : -std::expm1(-r) - r * std::exp(-r);
  return g / rate_per_day;
}

}  // namespace crawler::recrawl
