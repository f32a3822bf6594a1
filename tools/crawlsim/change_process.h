// ChangeProcess: one page's content changes, a Poisson process with a fixed rate, generated
// lazily from a counter-based stream so that every policy simulated with the same seed sees
// exactly the same change times (common random numbers: differences between policies are not
// sampling noise of the web). The process is stationary: it has been running before time 0, so
// the last change before 0 (what Last-Modified reports at the first visit) is -Exp(rate).
//
// Thread-compatible value type.
#ifndef CRAWLER_TOOLS_CRAWLSIM_CHANGE_PROCESS_H_
#define CRAWLER_TOOLS_CRAWLSIM_CHANGE_PROCESS_H_

#include <cstdint>

namespace crawler::crawlsim {

class ChangeProcess {
 public:
  // REQUIRES: rate_per_day >= 0. A rate of 0 never changes.
  ChangeProcess(uint64_t stream_key, double rate_per_day);

  // Moves the position to `t_days` (never backwards).
  void AdvanceTo(double t_days);

  // The latest change at or before the position.
  double last_change_days() const { return last_change_; }
  // The first change after the position.
  double next_change_days() const { return next_change_; }
  double rate_per_day() const { return rate_; }

 private:
  double Gap();

  uint64_t key_;
  uint64_t counter_ = 0;
  double rate_;
  double last_change_;
  double next_change_;
};

}  // namespace crawler::crawlsim

#endif  // CRAWLER_TOOLS_CRAWLSIM_CHANGE_PROCESS_H_
