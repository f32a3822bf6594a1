// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014; the constants of Vigna's reference splitmix64.c): a bijective 64-bit mix with full
// avalanche, and the generator that mixes a counter stepped by the golden ratio.
//
// For the simulators (websim's synthetic web, crawlsim's change processes), whose output must be
// a pure function of the seed on every platform: the algorithm is fixed here, unlike the
// distributions of <random> (implementation-defined) or absl's engines (not stable across
// Abseil versions). Not for anything that needs unpredictability.
//
// Thread-safety: Mix64 is pure; a SplitMix64 is a plain value owned by one caller.
#ifndef CRAWLER_LIB_RANDOM_SPLITMIX64_H_
#define CRAWLER_LIB_RANDOM_SPLITMIX64_H_

#include <cstdint>

namespace crawler::random {

// 2^64 / golden ratio, the generator's increment.
inline constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// The output function of SplitMix64 applied to x + kGoldenGamma: Mix64(s) is the value the
// generator in state s returns next.
constexpr uint64_t Mix64(uint64_t x) {
  x += kGoldenGamma;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The SplitMix64 generator: Next() returns Mix64(state) and advances the state by kGoldenGamma.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t state) : state_(state) {}

  constexpr uint64_t Next() {
    const uint64_t out = Mix64(state_);
    state_ += kGoldenGamma;
    return out;
  }
  constexpr uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

}  // namespace crawler::random

#endif  // CRAWLER_LIB_RANDOM_SPLITMIX64_H_
