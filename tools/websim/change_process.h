// ChangeProcess: when each page of websim's web changes, as seeded Poisson processes.
//
// Each page has a rate in changes per simulated day (fixed, or drawn per page from a Gamma
// distribution, ChangeRates). Its changes are the events of a Poisson process with that rate:
// gaps are exponential draws from a splitmix64 stream seeded by (seed, host, page), so the
// event times are a pure function of the seed and the page, and a page's version at time t is
// the number of events at or before t. Events are generated lazily and memoised per page (the
// event times so far plus one beyond), so a lookup is O(log n) once generated and memory is
// bounded by (pages asked about) x (events up to the latest time asked about). Rates are clamped
// to ChangeRates::kMaxRatePerDay.
//
// Thread-safety: all methods are safe to call concurrently (the memo is sharded, each shard under
// its own mutex). Not copyable or movable; SiteModel shares one through a shared_ptr, which is
// fine because the memo only caches a pure function.
#ifndef CRAWLER_TOOLS_WEBSIM_CHANGE_PROCESS_H_
#define CRAWLER_TOOLS_WEBSIM_CHANGE_PROCESS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "tools/websim/websim_options.h"

namespace crawler::websim {

class ChangeProcess {
 public:
  // A page's state at one time.
  struct Version {
    // Number of change events at or before the time; 0 = the original page.
    int64_t version = 0;
    // Simulated day of the latest of those events; 0 when version == 0.
    double changed_at_day = 0;
  };

  // REQUIRES: rates.kind != kNone and rates valid (WebsimOptions::Validate).
  ChangeProcess(uint64_t seed, const ChangeRates& rates);
  ChangeProcess(const ChangeProcess&) = delete;
  ChangeProcess& operator=(const ChangeProcess&) = delete;

  // Changes per simulated day of the page; pure, no memo.
  double RatePerDay(int host, int page) const;
  // The page's version at simulated day `day` (>= 0; negative counts as 0).
  Version At(int host, int page, double day) const;
  // Every event time of the page at or before `day`, ascending.
  std::vector<double> EventsUpTo(int host, int page, double day) const;

 private:
  struct PageEvents {
    uint64_t rng_state = 0;
    double rate = 0;
    // Ascending; once non-empty its last element is beyond every day asked about so far.
    std::vector<double> times;
  };
  struct Shard {
    absl::Mutex mu;
    absl::flat_hash_map<uint64_t, PageEvents> pages ABSL_GUARDED_BY(mu);
  };
  static constexpr int kShards = 64;

  // The page's events, generated at least up to the first event after `day`.
  // REQUIRES: shard.mu held.
  PageEvents& EventsThrough(Shard& shard, int host, int page, double day) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mu);
  Shard& ShardOf(int host, int page) const;

  // Constant after construction.
  const uint64_t seed_;
  const ChangeRates rates_;
  // The memo; logically const (caches a pure function).
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_CHANGE_PROCESS_H_
