// Seeded pseudo-random helpers shared by websim's models: a splitmix64 mix, a keyed hash of
// (seed, salt, a, b) and a splitmix64 stream. Every decision of the synthetic web is drawn from
// these, so the web is a pure function of the seed on every platform (unlike <random>'s
// distributions, whose algorithms the standard leaves to the implementation).
//
// Thread-safety: pure functions; an Rng is a plain value owned by one caller.
#ifndef CRAWLER_TOOLS_WEBSIM_SEEDED_RANDOM_H_
#define CRAWLER_TOOLS_WEBSIM_SEEDED_RANDOM_H_

#include <cstdint>

namespace crawler::websim {

// splitmix64's finaliser: a bijective mix with full avalanche.
inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Independent values per (seed, salt, a, b); salts keep the streams of different decisions apart.
inline uint64_t SeededHash(uint64_t seed, uint64_t salt, uint64_t a, uint64_t b = 0) {
  return Mix(Mix(Mix(seed ^ (salt << 56)) ^ a) ^ (b * 0xd6e8feb86659fd93ULL));
}

// [0, 1) with 53 random bits.
inline double UnitInterval(uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

// splitmix64 generator: the stream of one page's decisions.
class Rng {
 public:
  explicit Rng(uint64_t state) : state_(state) {}
  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t x = state_;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  // Uniform in [0, n); the modulo bias is irrelevant for n << 2^64.
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }
  double Uniform() { return UnitInterval(Next()); }
  // Uniform in (0, 1): safe to take the logarithm of.
  double UniformOpen() { return (static_cast<double>(Next() >> 11) + 0.5) * 0x1.0p-53; }
  uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_SEEDED_RANDOM_H_
