#include "tools/websim/change_process.h"

#include <algorithm>
#include <cmath>

#include "tools/websim/seeded_random.h"

namespace crawler::websim {
namespace {

// Distinct from SiteModel's salts (1..8 and its own change salts).
constexpr uint64_t kSaltRate = 9;
constexpr uint64_t kSaltEvents = 10;

double StandardNormal(Rng& rng) {
  // Box-Muller; one value per call keeps the stream simple.
  const double u1 = rng.UniformOpen();
  const double u2 = rng.Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// Gamma(shape, 1) by Marsaglia and Tsang (2000), with the usual boost U^(1/shape) for
// shape < 1. Written out rather than std::gamma_distribution, whose algorithm (and so whose
// values for a seed) differs between standard libraries.
double StandardGamma(Rng& rng, double shape) {
  if (shape < 1.0) {
    const double boost = std::pow(rng.UniformOpen(), 1.0 / shape);
    return StandardGamma(rng, shape + 1.0) * boost;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x = 0;
    double v = 0;
    do {
      x = StandardNormal(rng);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.UniformOpen();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

uint64_t PageKey(int host, int page) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(host)) << 32) |
         static_cast<uint32_t>(page);
}

}  // namespace

ChangeProcess::ChangeProcess(uint64_t seed, const ChangeRates& rates)
    : seed_(seed), rates_(rates) {}

double ChangeProcess::RatePerDay(int host, int page) const {
  double rate = 0;
  switch (rates_.kind) {
    case ChangeRates::Kind::kNone:
      return 0;
    case ChangeRates::Kind::kFixed:
      rate = rates_.rate_per_day;
      break;
    case ChangeRates::Kind::kGamma: {
      Rng rng(SeededHash(seed_, kSaltRate, host, page));
      rate = StandardGamma(rng, rates_.shape) * rates_.scale;
      break;
    }
  }
  return std::clamp(rate, 0.0, ChangeRates::kMaxRatePerDay);
}

ChangeProcess::Shard& ChangeProcess::ShardOf(int host, int page) const {
  return shards_[Mix64(PageKey(host, page)) % kShards];
}

ChangeProcess::PageEvents& ChangeProcess::EventsThrough(Shard& shard, int host, int page,
                                                        double day) const {
  auto [it, inserted] = shard.pages.try_emplace(PageKey(host, page));
  PageEvents& events = it->second;
  if (inserted) {
    events.rng_state = SeededHash(seed_, kSaltEvents, host, page);
    events.rate = RatePerDay(host, page);
  }
  if (events.rate <= 0) return events;  // never changes: no events at all
  while (events.times.empty() || events.times.back() <= day) {
    Rng rng(events.rng_state);
    const double gap = -std::log(rng.UniformOpen()) / events.rate;
    events.rng_state = rng.state();
    events.times.push_back((events.times.empty() ? 0.0 : events.times.back()) + gap);
  }
  return events;
}

ChangeProcess::Version ChangeProcess::At(int host, int page, double day) const {
  day = std::max(day, 0.0);
  Shard& shard = ShardOf(host, page);
  absl::MutexLock lock(&shard.mu);
  const PageEvents& events = EventsThrough(shard, host, page, day);
  const auto end = std::upper_bound(events.times.begin(), events.times.end(), day);
  Version version;
  version.version = end - events.times.begin();
  if (version.version > 0) version.changed_at_day = *(end - 1);
  return version;
}

std::vector<double> ChangeProcess::EventsUpTo(int host, int page, double day) const {
  day = std::max(day, 0.0);
  Shard& shard = ShardOf(host, page);
  absl::MutexLock lock(&shard.mu);
  const PageEvents& events = EventsThrough(shard, host, page, day);
  const auto end = std::upper_bound(events.times.begin(), events.times.end(), day);
  return std::vector<double>(events.times.begin(), end);
}

}  // namespace crawler::websim
