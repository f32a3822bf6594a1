// PeriodicRunner: drives housekeeping jobs (lease expiry, re-visit tuning, progress lines, a run
// time limit, ...) on one thread of their own. Every `tick` the thread calls each job's Tick()
// with the injected clock's time, in the order given; each job decides itself whether anything
// is due (its own interval, a growth trigger, a deadline), so jobs are tested by calling Tick()
// with a FakeClock, without this thread.
//
// Lifetime: Start() once; Stop() wakes the thread, waits for the tick in progress to finish and
// joins it (idempotent; the destructor calls it). After Stop() returns no job runs again. Jobs
// must outlive the runner's Stop().
//
// Thread-safety: Start and Stop from one owning thread; jobs run only on the runner's thread, one
// at a time, so a job needs locking only for what it shares with other threads.
#ifndef CRAWLER_SERVICES_COMMON_PERIODIC_RUNNER_H_
#define CRAWLER_SERVICES_COMMON_PERIODIC_RUNNER_H_

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"

namespace crawler {

// A job driven by a PeriodicRunner.
class PeriodicJob {
 public:
  virtual ~PeriodicJob() = default;
  // Does whatever is due at `now`. Must return promptly-ish: it delays the jobs after it.
  virtual void Tick(absl::Time now) = 0;
};

struct PeriodicRunnerOptions {
  // Time between rounds of Tick() calls (real time, waited on the runner's thread). A job's own
  // interval is effectively rounded up to a multiple of it. 250 ms keeps lease expiry and the
  // re-visit growth trigger prompt while costing nothing measurable.
  absl::Duration tick = absl::Milliseconds(250);
  // Thread name (at most 15 characters), as seen in top and debuggers.
  std::string thread_name = "periodic";
};

class PeriodicRunner {
 public:
  // `jobs` are not owned. REQUIRES: options.tick > 0.
  PeriodicRunner(PeriodicRunnerOptions options, const Clock& clock, std::vector<PeriodicJob*> jobs);
  ~PeriodicRunner();
  PeriodicRunner(const PeriodicRunner&) = delete;
  PeriodicRunner& operator=(const PeriodicRunner&) = delete;

  // Starts the thread; the first round runs one tick after the start. REQUIRES: called once.
  void Start();
  void Stop();

 private:
  void Loop();

  const PeriodicRunnerOptions options_;
  const Clock& clock_;
  const std::vector<PeriodicJob*> jobs_;
  absl::Notification stop_;
  std::thread thread_;
};

// RunLimit: the run-time limit of a process ("run_for"): calls `on_reached` once, on the first
// Tick at or after start + limit. An infinite limit never fires.
class RunLimit final : public PeriodicJob {
 public:
  RunLimit(absl::Duration limit, absl::Time start, std::function<void()> on_reached)
      : limit_(limit), start_(start), on_reached_(std::move(on_reached)) {}

  void Tick(absl::Time now) override;
  // Whether the limit was reached (and `on_reached` called). Read after the runner stopped, or
  // from the runner's thread.
  bool reached() const { return reached_; }

 private:
  const absl::Duration limit_;
  const absl::Time start_;
  const std::function<void()> on_reached_;
  bool reached_ = false;
};

}  // namespace crawler

#endif  // CRAWLER_SERVICES_COMMON_PERIODIC_RUNNER_H_
