#include "lib/recrawl/optimal_frequency.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace crawler::recrawl {
namespace {

// The table covers logit(c) in [kYMin, kYMax] in steps of ~0.01. Above kYMax no double c < 1
// exists (1 - 2^-53 has logit ~36.7); below kYMin (c < 4e-18) the start r = sqrt(2c) is already
// exact to ~1e-9.
constexpr double kYMin = -40.0;
constexpr double kYMax = 38.0;
constexpr int kTableSize = 8193;
constexpr double kStep = (kYMax - kYMin) / (kTableSize - 1);

// g(r) = 1 - e^-r (1 + r), with its Taylor series where the closed form cancels.
double G(double r) {
  if (r < 0.01) {
    return r * r * (0.5 - r * (1.0 / 3 - r * (1.0 / 8 - r * (1.0 / 30 - r / 144))));
  }
  return -std::expm1(-r) - r * std::exp(-r);
}

// For c near 1, work with ln(1 - g(r)) = ln(1 + r) - r, which keeps its precision there.
double LogOneMinusG(double r) { return std::log1p(r) - r; }

// One Newton step towards g(r) = c in whichever form is well conditioned: g itself for
// c <= 0.5, ln(1 - g) = ln(1 + r) - r near 1 (log_one_minus_c = ln(1 - c)).
double NewtonStep(double r, double c, double log_one_minus_c) {
  if (c <= 0.5) {
    const double slope = r * std::exp(-r);  // g'(r)
    return r - (G(r) - c) / slope;
  }
  const double slope = -r / (1.0 + r);  // d/dr ln(1 - g(r))
  return r - (LogOneMinusG(r) - log_one_minus_c) / slope;
}

// Bisection on ln r; used only to build the table.
double SolveByBisection(double c) {
  double lo = std::log(1e-12);
  double hi = std::log(100.0);
  for (int i = 0; i < 64; ++i) {  // the bracket is ~32 wide in ln r: 64 halvings reach 2e-18
    const double mid = 0.5 * (lo + hi);
    const double r = std::exp(mid);
    const bool below = c <= 0.5 ? G(r) < c : LogOneMinusG(r) > std::log1p(-c);
    (below ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double Logit(double c) { return std::log(c) - std::log1p(-c); }

}  // namespace

OptimalFrequency::OptimalFrequency() : log_ratio_(kTableSize) {
  for (int i = 0; i < kTableSize; ++i) {
    const double y = kYMin + i * kStep;
    const double c = 1.0 / (1.0 + std::exp(-y));
    log_ratio_[i] = SolveByBisection(c);
  }
}

double OptimalFrequency::SolveRatio(double c) const {
  assert(c > 0 && c < 1);
  const double y = Logit(c);
  double r;
  if (y <= kYMin) {
    r = std::sqrt(2.0 * c);
  } else {
    const double position = std::min((y - kYMin) / kStep, kTableSize - 1.000001);
    const int i = static_cast<int>(position);
    const double fraction = position - i;
    r = std::exp(log_ratio_[i] + fraction * (log_ratio_[i + 1] - log_ratio_[i]));
  }
  // The interpolated start is within ~1e-5 relative (~1e-9 below the table); Newton doubles the
  // correct digits per step, so two steps reach double precision.
  const double log_one_minus_c = c > 0.5 ? std::log1p(-c) : 0.0;
  for (int step = 0; step < 2; ++step) {
    const double next = NewtonStep(r, c, log_one_minus_c);
    if (!(next > 0) || !std::isfinite(next)) break;
    r = next;
  }
  return r;
}

double OptimalFrequency::VisitsPerDay(double rate_per_day, double weight, double mu) const {
  assert(rate_per_day >= 0 && weight >= 0);
  if (rate_per_day <= 0 || weight <= 0) return 0.0;
  if (mu <= 0) return std::numeric_limits<double>::infinity();
  const double c = mu * (rate_per_day / weight);
  if (!(c < 1.0)) return 0.0;
  return rate_per_day / SolveRatio(c);
}

}  // namespace crawler::recrawl
