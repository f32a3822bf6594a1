// ChangeProcess: one page's content changes, generated lazily from counter-based streams so that
// every policy simulated with the same seed sees exactly the same change times (common random
// numbers: differences between policies are not sampling noise of the web).
//
// By default a Poisson process with a fixed rate. ChangeDynamics makes the rate move, two ways
// real pages do:
//   - drift: at exponential times (mean drift_days) the page's rate is re-drawn from the fleet's
//     rates (a page that was a static article becomes a live one, and back): each page's rate
//     moves while the fleet's distribution of rates stays the same;
//   - bursts: the page alternates between active periods (share burst_share of the time, mean
//     length burst_days) in which it changes at rate / burst_share, and quiet periods without
//     changes: the same mean rate, its changes clustered.
// Within a regime the changes are Poisson (memoryless), so a gap that crosses a regime switch is
// redrawn from the switch at the new rate, which is exact. The process is stationary at time 0:
// it has been running before (the last change before 0, what Last-Modified reports at the first
// visit, is -Exp(rate); under bursts that uses the mean rate, an approximation), a burst phase
// starts active with probability burst_share.
//
// Thread-compatible value type.
#ifndef CRAWLER_TOOLS_CRAWLSIM_CHANGE_PROCESS_H_
#define CRAWLER_TOOLS_CRAWLSIM_CHANGE_PROCESS_H_

#include <cstdint>
#include <limits>

#include "absl/types/span.h"

namespace crawler::crawlsim {

struct ChangeDynamics {
  // > 0: mean days between re-draws of the page's rate; 0: the rate never moves.
  double drift_days = 0;
  // In (0, 1]: the share of the time a page is active; 1: no bursts. With bursts, burst_days
  // (> 0) is the mean length of an active period.
  double burst_share = 1;
  double burst_days = 0;

  bool drifts() const { return drift_days > 0; }
  bool bursts() const { return burst_share < 1; }
};

class ChangeProcess {
 public:
  // REQUIRES: rate_per_day >= 0 (a rate of 0 never changes until a drift moves it); with
  // drift, a non-empty `rate_pool` (the fleet's rates) that outlives the process. Changes after
  // `end_days` are not generated (next_change_days() is then +infinity): a slow page whose
  // regime switches often would otherwise be generated far past any use.
  ChangeProcess(uint64_t stream_key, double rate_per_day, const ChangeDynamics& dynamics = {},
                absl::Span<const double> rate_pool = {},
                double end_days = std::numeric_limits<double>::infinity());

  // Moves the position to `t_days` (never backwards).
  void AdvanceTo(double t_days);

  // The latest change at or before the position.
  double last_change_days() const { return last_change_; }
  // The first change after the position.
  double next_change_days() const { return next_change_; }
  // The page's rate at the position: the long-run mean, bursts averaged out.
  double rate_per_day() const { return now_.rate; }
  // When the rate drifts next after the position (+infinity without drift).
  double next_drift_days() const { return now_.next_drift; }

 private:
  // The regimes from some time on: the drifting rate and the burst phase.
  struct Regime {
    double rate = 0;
    double next_drift = 0;
    uint64_t drift_counter = 0;
    bool active = true;
    double next_toggle = 0;
    uint64_t burst_counter = 0;

    // The rate of changes now.
    double change_rate(const ChangeDynamics& dynamics) const;
    double next_switch() const;
  };
  // Applies the regime switch due at `regime.next_switch()`.
  void Switch(Regime& regime) const;
  double Uniform(uint64_t purpose, uint64_t counter) const;
  // The first change after `t` given the regime at `t` (which it advances).
  double NextChangeAfter(double t, Regime& regime);

  uint64_t key_;
  uint64_t counter_ = 0;
  ChangeDynamics dynamics_;
  absl::Span<const double> rate_pool_;
  Regime now_;        // at the position
  Regime at_next_;    // at next_change_
  double end_days_;
  double last_change_;
  double next_change_;
};

}  // namespace crawler::crawlsim

#endif  // CRAWLER_TOOLS_CRAWLSIM_CHANGE_PROCESS_H_
