// Deterministic random numbers for the simulator. Results must not depend on the standard
// library: std:: distributions are implementation-defined, and absl's random engines are not
// stable across abseil versions. So the simulator uses std::mt19937_64 (whose output sequence the
// C++ standard fixes) or SplitMix64 (lib/random/splitmix64.h) as the bit source and samples
// every distribution itself. The samplers call std::exp/log/sqrt/cos, so results are
// reproducible on one libm; a different libm may change the last bits and, through them,
// individual events.
//
// Thread-safety: free functions are pure; engines are not shared.
#ifndef CRAWLER_TOOLS_CRAWLSIM_RANDOM_H_
#define CRAWLER_TOOLS_CRAWLSIM_RANDOM_H_

#include <cstdint>
#include <random>

#include "lib/random/splitmix64.h"

namespace crawler::crawlsim {

using random::Mix64;

// A stream key for (seed, purpose, index): counter-based generators derived from it are
// independent of the order in which pages or policies are simulated.
constexpr uint64_t StreamKey(uint64_t seed, uint64_t purpose, uint64_t index) {
  return Mix64(Mix64(seed ^ Mix64(purpose)) + index);
}

// Uniform in the open interval (0, 1) from 53 random bits.
inline double OpenUnit(uint64_t bits) { return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53; }

// The counter-th uniform of a stream.
inline double StreamUniform(uint64_t key, uint64_t counter) {
  return OpenUnit(Mix64(key + counter * 0xD1B54A32D192ED03ull));
}

// Sequential samplers over std::mt19937_64.
class Sampler {
 public:
  explicit Sampler(uint64_t seed) : engine_(seed) {}

  double Uniform() { return OpenUnit(engine_()); }
  // Box-Muller; one normal per pair of uniforms, for simplicity and reproducibility.
  double Normal();
  // Marsaglia & Tsang (2000), with Gamma(a) = Gamma(a + 1) U^(1/a) for a < 1. REQUIRES: shape > 0.
  double Gamma(double shape, double scale);
  double LogNormal(double mu, double sigma);

 private:
  std::mt19937_64 engine_;
};

}  // namespace crawler::crawlsim

#endif  // CRAWLER_TOOLS_CRAWLSIM_RANDOM_H_
