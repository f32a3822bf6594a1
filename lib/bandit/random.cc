#include "lib/bandit/random.h"

#include <cmath>
#include <numbers>

namespace crawler::bandit {

uint64_t Random::Below(uint64_t bound) {
  // The largest multiple of bound that fits, so every residue is equally likely.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  while (true) {
    const uint64_t bits = engine_();
    if (bits < limit) return bits % bound;
  }
}

double Random::StandardNormal() {
  const double u1 = Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Random::StandardGamma(double shape) {
  if (shape < 1.0) return StandardGamma(shape + 1.0) * std::pow(Uniform(), 1.0 / shape);
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    const double x = StandardNormal();
    const double v_root = 1.0 + c * x;
    if (v_root <= 0) continue;
    const double v = v_root * v_root * v_root;
    const double u = Uniform();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) {
      return d * v;
    }
  }
}

}  // namespace crawler::bandit
