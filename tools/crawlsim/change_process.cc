#include "tools/crawlsim/change_process.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tools/crawlsim/random.h"

namespace crawler::crawlsim {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Streams of a page besides its change gaps (which use the page's key itself, as they did
// before the rate could move, so constant-rate runs are unchanged).
constexpr uint64_t kDriftStream = 1;
constexpr uint64_t kBurstStream = 2;

}  // namespace

double ChangeProcess::Regime::change_rate(const ChangeDynamics& dynamics) const {
  if (!dynamics.bursts()) return rate;
  return active ? rate / dynamics.burst_share : 0.0;
}

double ChangeProcess::Regime::next_switch() const { return std::min(next_drift, next_toggle); }

double ChangeProcess::Uniform(uint64_t purpose, uint64_t counter) const {
  return StreamUniform(Mix64(key_ ^ Mix64(purpose)), counter);
}

void ChangeProcess::Switch(Regime& regime) const {
  if (regime.next_drift <= regime.next_toggle) {
    const double u = Uniform(kDriftStream, regime.drift_counter++);
    const size_t index = std::min(rate_pool_.size() - 1,
                                  static_cast<size_t>(u * static_cast<double>(rate_pool_.size())));
    regime.rate = rate_pool_[index];
    regime.next_drift +=
        -std::log(Uniform(kDriftStream, regime.drift_counter++)) * dynamics_.drift_days;
    return;
  }
  regime.active = !regime.active;
  const double mean_days =
      regime.active ? dynamics_.burst_days
                    : dynamics_.burst_days * (1 - dynamics_.burst_share) / dynamics_.burst_share;
  regime.next_toggle += -std::log(Uniform(kBurstStream, regime.burst_counter++)) * mean_days;
}

ChangeProcess::ChangeProcess(uint64_t stream_key, double rate_per_day,
                             const ChangeDynamics& dynamics, absl::Span<const double> rate_pool,
                             double end_days)
    : key_(stream_key), dynamics_(dynamics), rate_pool_(rate_pool), end_days_(end_days) {
  now_.rate = rate_per_day;
  now_.next_drift = kInfinity;
  now_.next_toggle = kInfinity;
  if (dynamics_.drifts() && !rate_pool_.empty()) {
    now_.next_drift = -std::log(Uniform(kDriftStream, now_.drift_counter++)) * dynamics_.drift_days;
  }
  if (dynamics_.bursts()) {
    now_.active = Uniform(kBurstStream, now_.burst_counter++) < dynamics_.burst_share;
    const double mean_days =
        now_.active ? dynamics_.burst_days
                    : dynamics_.burst_days * (1 - dynamics_.burst_share) / dynamics_.burst_share;
    now_.next_toggle = -std::log(Uniform(kBurstStream, now_.burst_counter++)) * mean_days;
  }
  at_next_ = now_;
  last_change_ =
      rate_per_day > 0 ? std::log(StreamUniform(key_, counter_++)) / rate_per_day : -kInfinity;
  next_change_ = NextChangeAfter(0.0, at_next_);
}

double ChangeProcess::NextChangeAfter(double t, Regime& regime) {
  while (true) {
    const double rate = regime.change_rate(dynamics_);
    const double end = regime.next_switch();
    const double gap =
        rate > 0 ? -std::log(StreamUniform(key_, counter_++)) / rate : kInfinity;
    if (t + gap < end) return t + gap;
    if (!(end <= end_days_)) return kInfinity;
    // Memoryless: the part of the gap before the switch is discarded, not carried over.
    t = end;
    Switch(regime);
  }
}

void ChangeProcess::AdvanceTo(double t_days) {
  while (next_change_ <= t_days) {
    last_change_ = next_change_;
    next_change_ = NextChangeAfter(next_change_, at_next_);
  }
  while (now_.next_switch() <= t_days) Switch(now_);
}

}  // namespace crawler::crawlsim
