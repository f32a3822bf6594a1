// RevisitTuner: the periodic job that re-tunes a collection's re-visit policy (docs/architecture.md
// §7): it calls Scheduler::TuneRevisits over the frontier partitions every `interval`, and sooner
// when the partitions know `growth` more URLs than at the last tuning (while a crawl discovers
// pages the fleet grows fast, and re-visits spaced for a stale fleet size would be spaced for the
// wrong number of pages). It keeps the latest RevisitTuning for progress reports, and its fitted
// prior as the next tuning's starting point.
//
// A failed tuning is reported through `on_error` and retried at the next interval; the policy
// the partitions hold stays in force meanwhile.
//
// Thread-safety: Tick and TuneNow run on one thread at a time; latest() may be called from any
// thread. The scheduler and the partitions must outlive the tuner.
#ifndef CRAWLER_SERVICES_SCHEDULER_REVISIT_TUNER_H_
#define CRAWLER_SERVICES_SCHEDULER_REVISIT_TUNER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/periodic_runner.h"
#include "services/frontier/frontier_client.h"
#include "services/scheduler/scheduler.h"

namespace crawler::scheduler {

struct RevisitTunerOptions {
  // How often the policy is re-solved over the current rate estimates. Each tuning reads every
  // partition's histogram: cheap, but a re-solve per second would only chase noise.
  absl::Duration interval = absl::Seconds(10);
  // Re-tune before the interval is up once the partitions know this fraction more URLs than at
  // the last tuning.
  double growth = 0.1;
};

class RevisitTuner final : public PeriodicJob {
 public:
  // `known_urls` returns the URLs the partitions know (e.g. the sum of their seen_urls). The
  // collection must re-visit (Scheduler::TuneRevisits fails otherwise). `on_error` may be empty.
  RevisitTuner(RevisitTunerOptions options, const Scheduler& scheduler,
               std::vector<frontier::FrontierClient*> partitions,
               std::function<uint64_t()> known_urls,
               std::function<void(const absl::Status&)> on_error = {});

  // Tunes at once (before any re-visit is decided, so first visits get the budget's uniform
  // interval) and restarts the interval from `now`. Returns the scheduler's error.
  absl::Status TuneNow(absl::Time now);

  void Tick(absl::Time now) override;

  // The latest successful tuning; empty before the first.
  std::optional<RevisitTuning> latest() const;
  // Tunings attempted so far (successful or not).
  uint64_t attempts() const;

 private:
  absl::Status Tune(absl::Time now);

  const RevisitTunerOptions options_;
  const Scheduler& scheduler_;
  const std::vector<frontier::FrontierClient*> partitions_;
  const std::function<uint64_t()> known_urls_;
  const std::function<void(const absl::Status&)> on_error_;
  // Only on the tuning thread.
  absl::Time last_tuning_ = absl::InfinitePast();
  uint64_t known_at_tuning_ = 0;

  mutable absl::Mutex mu_;
  std::optional<RevisitTuning> latest_ ABSL_GUARDED_BY(mu_);
  uint64_t attempts_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_REVISIT_TUNER_H_
