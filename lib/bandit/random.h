// Random: the seeded generator randomised policies are given. Results must not depend on the
// standard library (std:: distributions are implementation-defined), so it uses std::mt19937_64,
// whose output sequence the C++ standard fixes, and samples every distribution itself. The
// samplers call std::log/exp/sqrt/cos/pow, so runs are reproducible on one libm.
//
// Thread-safety: none; one generator per policy.
#ifndef CRAWLER_LIB_BANDIT_RANDOM_H_
#define CRAWLER_LIB_BANDIT_RANDOM_H_

#include <cstdint>
#include <random>

namespace crawler::bandit {

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}

  // Uniform in the open interval (0, 1), 53 random bits.
  double Uniform() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }
  // Uniform integer in [0, bound). REQUIRES: bound >= 1. Rejection keeps it unbiased.
  uint64_t Below(uint64_t bound);
  // Standard normal (Box-Muller, one value per pair of uniforms).
  double StandardNormal();
  // Gamma(shape, 1) by Marsaglia & Tsang ("A simple method for generating gamma variables", ACM
  // TOMS 26, 2000), boosted as Gamma(a) = Gamma(a + 1) U^(1/a) for a < 1. REQUIRES: shape > 0.
  double StandardGamma(double shape);

 private:
  std::mt19937_64 engine_;
};

}  // namespace crawler::bandit

#endif  // CRAWLER_LIB_BANDIT_RANDOM_H_
