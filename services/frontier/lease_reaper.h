// LeaseReaper: the periodic job that returns expired leases to their queues (docs/architecture.md
// §2.2, "no URL is lost"): on each Tick at least `interval` after its last run it calls
// Frontier::ExpireLeases on every frontier core it was given (a process may run several
// partitions), or that its source names at that run (a frontier server's collections come and
// go: FrontierHost::Cores). A core's error is logged through `on_error` and the other cores are
// still reaped; the next round tries again.
//
// Thread-safety: Tick runs on one thread at a time (a PeriodicRunner's); the cores are
// thread-safe themselves. Cores given as pointers must outlive the reaper; a source's handles
// are held only during the run.
#ifndef CRAWLER_SERVICES_FRONTIER_LEASE_REAPER_H_
#define CRAWLER_SERVICES_FRONTIER_LEASE_REAPER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "services/common/periodic_runner.h"
#include "services/frontier/frontier.h"

namespace crawler::frontier {

struct LeaseReaperOptions {
  // Time between runs. Zero: every tick of the runner. An expired lease's URLs sit idle until
  // they are reaped (here, or by the next Lease call), so reap often.
  absl::Duration interval = absl::ZeroDuration();
};

class LeaseReaper final : public PeriodicJob {
 public:
  // The cores a run reaps, asked anew at every run.
  using Source = std::function<std::vector<std::shared_ptr<Frontier>>()>;

  // `on_error` may be empty (errors are then dropped: the next run retries).
  LeaseReaper(LeaseReaperOptions options, std::vector<Frontier*> frontiers,
              std::function<void(const absl::Status&)> on_error = {});
  LeaseReaper(LeaseReaperOptions options, Source source,
              std::function<void(const absl::Status&)> on_error = {});

  void Tick(absl::Time now) override;

  // Leases returned to their queues so far, over all cores.
  uint64_t expired() const { return expired_; }

 private:
  const LeaseReaperOptions options_;
  const Source source_;
  const std::function<void(const absl::Status&)> on_error_;
  absl::Time last_run_ = absl::InfinitePast();
  uint64_t expired_ = 0;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_LEASE_REAPER_H_
