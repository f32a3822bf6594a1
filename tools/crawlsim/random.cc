#include "tools/crawlsim/random.h"

#include <cmath>
#include <numbers>

namespace crawler::crawlsim {

double Sampler::Normal() {
  const double u1 = Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Sampler::Gamma(double shape, double scale) {
  if (shape < 1.0) {
    const double boosted = Gamma(shape + 1.0, 1.0);
    return scale * boosted * std::pow(Uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    const double x = Normal();
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = Uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return scale * d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

double Sampler::LogNormal(double mu, double sigma) { return std::exp(mu + sigma * Normal()); }

}  // namespace crawler::crawlsim
