// Workload: what bench/frontier-scale asks of a frontier, as a fleet of fetchers would, on a
// SyntheticWeb. It remembers how many URLs of each host it has had accepted (a host's URLs are
// offered in index order, so "known" is one counter per host), which makes every link it
// offers either certainly known or certainly new, and lets it check the frontier's answers.
//
// - Grow: brings the frontier up to a number of known URLs, every host to its share of its size
//   (all hosts' roots first), in AddUrls batches of new URLs only: the ingest of a crawl's
//   discoveries or of a large seed list.
// - Outlinks: the links of fetched pages, most already known (LinkMix), in AddUrls batches,
//   optionally while another thread leases and completes at a steady rate.
// - LeaseComplete: Lease and Complete as fast as they go (fetched pages, validators and
//   fingerprints, re-visits scheduled by the frontier).
// - Churn: leases, completions and known-only links from one thread until told to stop or a
//   call fails (load for a kill -9).
//
// Latencies are of whole calls (RPC included for a server); rates are URLs over the summed time
// of the calls, so making the next batch's text is not counted against the frontier.
//
// Thread-safety: Grow, Outlinks and LeaseComplete from one thread at a time; Churn (and the
// steady leases Outlinks starts) use only the client and this class's constant parts, so they
// may run beside them.
#ifndef CRAWLER_BENCH_FRONTIER_SCALE_WORKLOAD_H_
#define CRAWLER_BENCH_FRONTIER_SCALE_WORKLOAD_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/frontier-scale/synthetic_web.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/frontier_client.h"

namespace crawler::bench {

// The links of one fetched page.
struct LinkMix {
  int links_per_page = 40;
  // Links to URLs the frontier does not know yet; the rest point at known URLs.
  double new_fraction = 0.2;
  // Of the new links, those to the page's own host (the rest: other hosts, by size).
  double new_same_host = 0.75;
  // Of the known links: the site's navigation (one of its first nav_pages URLs) ...
  double nav_share = 0.6;
  int nav_pages = 30;
  // ... the top pages of other sites (one of their first popular_pages URLs, sites by size) ...
  double popular_share = 0.2;
  int popular_pages = 5;
  // Send each link's page as discovered_from (a fetcher does); off: empty, as for seeds.
  bool discovered_from = true;
  // ... and the rest anywhere in another site (a random known URL of a site drawn by size):
  // links the seen cache has no reason to hold, answered by the store.
};

// Call latencies, kept whole for percentiles, and the CPU time the calling thread spent in the
// calls (for the core: the frontier's own work, without RocksDB's background threads; for the
// server: the client's side of the RPCs only).
class Latencies {
 public:
  void Add(absl::Duration wall, absl::Duration thread_cpu) {
    samples_.push_back(absl::ToDoubleMilliseconds(wall));
    cpu_seconds_ += absl::ToDoubleSeconds(thread_cpu);
  }
  size_t count() const { return samples_.size(); }
  // The q-quantile in milliseconds (nearest rank), 0 when empty.
  double QuantileMs(double q) const;
  double total_seconds() const;
  double cpu_seconds() const { return cpu_seconds_; }

 private:
  std::vector<double> samples_;
  double cpu_seconds_ = 0;
};

// CPU time (user + system) of this thread, and of a whole process (pid 0: this one).
absl::Duration ThreadCpu();
absl::Duration ProcessCpu(int pid);

struct GrowResult {
  uint64_t added = 0;
  double call_seconds = 0;  // in AddUrls
  double wall_seconds = 0;  // with the making of the URLs
  double call_cpu_seconds = 0;  // this thread's CPU in AddUrls
  // CPU of this process's other threads meanwhile (for the core: RocksDB's flushes and
  // compactions).
  double background_cpu_seconds = 0;
};

struct OutlinkResult {
  uint64_t offered = 0;
  uint64_t expected_new = 0;
  uint64_t added = 0;
  // New URLs the frontier called already seen (seen-set false positives); known URLs it added
  // (a broken seen-set: must be 0).
  uint64_t false_positives = 0;
  uint64_t known_added = 0;
  uint64_t cache_hits = 0;  // of the known ones, answered by the seen cache (FrontierStats)
  Latencies add;
  // The leases and completions made meanwhile by the steady-rate thread.
  uint64_t steady_completed = 0;
  double wall_seconds = 0;
};

struct LeaseResult {
  uint64_t leased = 0;
  uint64_t completed = 0;
  Latencies lease;
  Latencies complete;
};

class Workload {
 public:
  Workload(const SyntheticWeb& web, const LinkMix& mix, uint64_t seed);

  // URLs accepted so far (the sum of the per-host counts).
  uint64_t known() const { return known_total_; }
  const SyntheticWeb& web() const { return web_; }

  // Adds URLs until about `target` are known (each host's share: 1 + (size - 1) * f, with f
  // the same for every host). Fails on a call error or when the frontier does not add exactly
  // the URLs offered. `progress`, if set, is called with the URLs known so far about once a
  // minute (a growth to 10^8 URLs runs for hours).
  absl::StatusOr<GrowResult> Grow(frontier::FrontierClient& client, uint64_t target,
                                  size_t batch,
                                  const std::function<void(uint64_t known)>& progress = {});

  // Offers `outlinks` links of pages (LinkMix) in batches of `batch`; with steady_rate > 0,
  // another thread leases (at most per_host per host) and completes that many URLs per second
  // meanwhile.
  absl::StatusOr<OutlinkResult> Outlinks(frontier::FrontierClient& client, uint64_t outlinks,
                                         size_t batch, double steady_rate, size_t per_host);

  // Leases `batch` URLs (at most per_host per host) and completes them, until `urls` are
  // completed or `max_time` has passed.
  absl::StatusOr<LeaseResult> LeaseComplete(frontier::FrontierClient& client, uint64_t urls,
                                            size_t batch, size_t per_host,
                                            absl::Duration max_time);

  // Leases, completes and offers known links until `stop` or the first failed call (expected:
  // the server is killed meanwhile). Returns the URLs completed.
  uint64_t Churn(frontier::FrontierClient& client, const std::atomic<bool>& stop) const;

 private:
  struct Link {
    uint32_t host;
    uint64_t index;
  };
  // The links of a page of `host`; new ones take their host's next index.
  void PageLinks(uint32_t host, uint64_t& random, std::vector<Link>& links, uint64_t& new_links);
  // A known URL's link (no host's count moves).
  Link KnownLink(uint32_t host, uint64_t& random) const;
  frontier::UrlToAdd ToAdd(const Link& link, const std::string& from, uint32_t depth) const;
  std::vector<frontier::FetchOutcome> OutcomesFor(const std::vector<frontier::LeasedTask>& tasks,
                                                  uint64_t& random) const;
  // Leases and completes `urls` in one round; returns the URLs completed.
  absl::StatusOr<uint64_t> LeaseRound(frontier::FrontierClient& client, size_t urls,
                                      size_t per_host, uint64_t& random,
                                      LeaseResult* timing) const;

  const SyntheticWeb& web_;
  const LinkMix mix_;
  uint64_t random_;
  // URLs of each host accepted so far: URLs 0 .. known_[h]-1 are known.
  std::vector<uint32_t> known_;
  uint64_t known_total_ = 0;
};

}  // namespace crawler::bench

#endif  // CRAWLER_BENCH_FRONTIER_SCALE_WORKLOAD_H_
