// InProcessPoliteness: the Politeness of a standalone crawl, state in this process's memory.
// Memory grows with the number of hosts and addresses seen; Forget() drops entries idle past
// their next-allowed time so a long crawl over millions of hosts stays bounded by the active ones.
//
// Thread-safety: all methods are thread-safe (one mutex; calls are short and O(1)).
#ifndef CRAWLER_LIB_POLITENESS_IN_PROCESS_POLITENESS_H_
#define CRAWLER_LIB_POLITENESS_IN_PROCESS_POLITENESS_H_

#include <cstdint>
#include <random>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "lib/clock/clock.h"
#include "lib/politeness/delay_policy.h"
#include "lib/politeness/politeness.h"
#include "lib/politeness/politeness_options.h"

namespace crawler::politeness {

class InProcessPoliteness final : public Politeness {
 public:
  // REQUIRES: options.Validate().ok(); `clock` outlives this object.
  InProcessPoliteness(const PolitenessOptions& options, const Clock& clock, uint64_t seed);

  absl::StatusOr<ClaimResult> Claim(const ClaimRequest& request) override;
  absl::StatusOr<ReleaseResult> Release(const ReleaseRequest& request) override;
  int MaxConnectionsPerHost() const override { return policy_.options().max_connections_per_host; }
  PolitenessStats Stats() const override;

  // Drops hosts and addresses with nothing in flight, no failure streak, and a next-allowed time
  // more than `idle` in the past: their state no longer constrains anything (an idle host starts
  // again from its base delay). Returns the number of entries dropped.
  size_t Forget(absl::Duration idle);

  // Number of host and address entries held (for metrics and tests).
  size_t HostCount() const;
  size_t AddressCount() const;

 private:
  struct Slot {
    absl::Duration next_allowed = -absl::InfiniteDuration();  // monotonic time
    int in_flight = 0;
    HostFeedback feedback;  // hosts only
  };

  // Both constant after construction.
  const DelayPolicy policy_;
  const Clock& clock_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Slot> hosts_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Slot> addresses_ ABSL_GUARDED_BY(mu_);
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
  PolitenessStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::politeness

#endif  // CRAWLER_LIB_POLITENESS_IN_PROCESS_POLITENESS_H_
