// Seeded pseudo-random helpers shared by websim's models, built on lib/random's splitmix64: a
// keyed hash of (seed, salt, a, b) and a stream of uniform draws. Every decision of the synthetic
// web is drawn from these, so the web is a pure function of the seed on every platform (unlike
// <random>'s distributions, whose algorithms the standard leaves to the implementation).
//
// Thread-safety: pure functions; an Rng is a plain value owned by one caller.
#ifndef CRAWLER_TOOLS_WEBSIM_SEEDED_RANDOM_H_
#define CRAWLER_TOOLS_WEBSIM_SEEDED_RANDOM_H_

#include <cstdint>

#include "lib/random/splitmix64.h"

namespace crawler::websim {

using random::Mix64;

// Independent values per (seed, salt, a, b); salts keep the streams of different decisions apart.
inline uint64_t SeededHash(uint64_t seed, uint64_t salt, uint64_t a, uint64_t b = 0) {
  return Mix64(Mix64(Mix64(seed ^ (salt << 56)) ^ a) ^ (b * 0xd6e8feb86659fd93ULL));
}

// [0, 1) with 53 random bits.
inline double UnitInterval(uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

// The stream of one page's decisions: a splitmix64 generator with the draws the models need.
class Rng {
 public:
  explicit Rng(uint64_t state) : bits_(state) {}
  uint64_t Next() { return bits_.Next(); }
  // Uniform in [0, n); the modulo bias is irrelevant for n << 2^64.
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }
  double Uniform() { return UnitInterval(Next()); }
  // Uniform in (0, 1): safe to take the logarithm of.
  double UniformOpen() { return (static_cast<double>(Next() >> 11) + 0.5) * 0x1.0p-53; }
  uint64_t state() const { return bits_.state(); }

 private:
  random::SplitMix64 bits_;
};

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_SEEDED_RANDOM_H_
