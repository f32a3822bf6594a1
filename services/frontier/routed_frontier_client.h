// RoutedFrontierClient: a FrontierClient over N frontier partitions (docs/architecture.md §4,
// exchange mode). Partition k owns the hosts with partition::Partition(host_key, N) == k.
//
// - AddUrls routes each URL to the partition owning its host and sends each partition's URLs as
//   one call, split into batches of at most max_batch_urls and max_batch_bytes. Time-bounding is the caller's: a
//   fetcher hands over its outlinks every flush_interval or flush_batch URLs, the scheduler its
//   seeds in chunks; every hand-over costs at most one call per destination.
// - A bounded cache of URLs already sent (Cho & Garcia-Molina's replication of popular URLs)
//   drops a URL sent before at the same or a smaller depth: most outlinks of a site are its
//   navigation and a few global popular pages, which every page repeats. The destination would
//   only count it as seen. A URL is cached only after its partition accepted the call, so a
//   suppressed URL is always durable there. The depth is kept because a frontier rejects URLs
//   past max_depth without remembering them: the same URL found nearer a seed must still go.
// - Lease, Complete, ReleaseLeases and HostControls go to the home partition (lease ids are a partition's
//   own): a fetcher's client has its own partition as home. ReportHostTimes and LookupUrls are
//   routed by host.
// - IsExhausted holds when every partition was exhausted at one moment: two passes over all
//   partitions' Stats, with no partition's urls_added moving between them. (One pass could see
//   partition A exhausted, then B completing a page whose outlinks it had just sent to A, then
//   B exhausted.)
// - Stats sums the partitions'; GetRevisitStatus merges them; RetuneRevisits goes to every
//   partition.
//
// Counters (Routing()): URLs routed, sent per destination, suppressed by the cache.
//
// Failures: a partition's error is returned as is. AddUrls may then have reached the partitions
// before the failing one; repeating the call is safe (they count those URLs as seen).
//
// Thread-safety: thread-safe; calls to the partitions are made outside the internal lock. The
// partition clients must outlive this object.
#ifndef CRAWLER_SERVICES_FRONTIER_ROUTED_FRONTIER_CLIENT_H_
#define CRAWLER_SERVICES_FRONTIER_ROUTED_FRONTIER_CLIENT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/frontier/frontier_client.h"

namespace crawler::frontier {

struct RoutingOptions {
  // Most URLs in one AddUrls call to a partition; larger hand-overs are split. [1, 65536].
  size_t max_batch_urls = 512;
  // Most bytes of URLs (canonical URL, host key and the page it was found on, plus a little per
  // URL for the rest) in one AddUrls call; larger hand-overs are split, a single larger URL goes
  // alone. A frontier's port refuses requests over 4 MiB (grpc_server::Endpoint::
  // max_receive_bytes): 4,096 outlinks of 1 KiB would pass it, and a refused batch would be
  // refused again at every retry. At least 1.
  size_t max_batch_bytes = size_t{2} << 20;
  // URLs remembered as sent (rounded down to a power of two, 4 per bucket, evicting the least
  // recently used of a bucket): 12 bytes each, 768 KiB at the default. Popular URLs are hit
  // again before they age out; a URL linked once costs one entry for a while. 0: no cache.
  size_t popular_cache_entries = size_t{1} << 16;
};

struct RoutingStats {
  uint64_t routed = 0;            // URLs given to AddUrls
  uint64_t suppressed = 0;        // of those, dropped by the popular-URL cache
  std::vector<uint64_t> sent;     // URLs sent, per destination partition
  uint64_t batches = 0;           // AddUrls calls made to partitions
  uint32_t home = 0;              // this client's own partition
};

class RoutedFrontierClient final : public FrontierClient {
 public:
  // `partitions[k]` serves partition k (at least one, none null). kInvalidArgument for bad
  // options or a home outside the partitions. URLs are routed over all the partitions until
  // SetRoutingCount says otherwise.
  static absl::StatusOr<std::unique_ptr<RoutedFrontierClient>> Create(
      const RoutingOptions& options, std::vector<FrontierClient*> partitions, uint32_t home);

  absl::StatusOr<AddResult> AddUrls(const std::vector<UrlToAdd>& urls) override;
  absl::StatusOr<std::vector<LeasedTask>> Lease(size_t max_urls, size_t max_per_host) override;
  absl::StatusOr<CompleteResult> Complete(const std::vector<FetchOutcome>& outcomes) override;
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<LeaseId>& lease_ids) override;
  absl::StatusOr<FetcherControlTable> HostControls(uint64_t known_version) override;
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<HostTime>& times) override;
  absl::StatusOr<bool> IsExhausted() override;
  absl::StatusOr<FrontierStats> Stats() override;
  absl::StatusOr<std::vector<std::optional<UrlRecord>>> LookupUrls(
      const std::vector<std::string>& canonical_urls) override;
  absl::StatusOr<RevisitStatus> GetRevisitStatus() override;
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override;

  // AddUrls in its two steps, for a caller that delivers each partition's share on a schedule
  // of its own (the fetcher's OutlinkOutbox): Route drops the URLs the popular-URL cache covers
  // (counted as routed and suppressed, and in `result` as already seen) and splits the rest by
  // owner (index = partition); Deliver sends one partition's share (in calls of at most
  // max_batch_urls) and caches what the partition accepted. AddUrls is Route, then Deliver to
  // each partition in order.
  std::vector<std::vector<UrlToAdd>> Route(const std::vector<UrlToAdd>& urls, AddResult& result);
  absl::StatusOr<AddResult> Deliver(uint32_t partition, std::vector<UrlToAdd> urls);

  // During and after a reshard (partition::PartitionLayout) the partitions given may be more
  // than those URLs are routed over: AddUrls, Route, ReportHostTimes and LookupUrls use the
  // first `count`; Stats, IsExhausted and re-visit status still cover every partition (moved
  // hosts and held URLs live on any of them). kInvalidArgument outside [1, partitions].
  absl::Status SetRoutingCount(uint32_t count);
  uint32_t routing_count() const { return routing_count_.load(std::memory_order_relaxed); }

  RoutingStats Routing() const;
  uint32_t partition_count() const { return static_cast<uint32_t>(partitions_.size()); }
  uint32_t home() const { return home_; }

 private:
  // A set-associative cache of (URL hash, smallest depth sent).
  class SentCache {
   public:
    explicit SentCache(size_t entries);
    // True if `hash` was sent at a depth <= `depth`; a hit becomes the bucket's most recent.
    bool Covers(uint64_t hash, uint32_t depth);
    void Insert(uint64_t hash, uint32_t depth);

   private:
    static constexpr size_t kWays = 4;
    size_t bucket_mask_ = 0;
    std::vector<uint64_t> hashes_;  // 0 = empty slot
    std::vector<uint32_t> depths_;
  };

  RoutedFrontierClient(const RoutingOptions& options, std::vector<FrontierClient*> partitions,
                       uint32_t home);
  uint32_t Owner(std::string_view host_key) const;

  // Constant after construction.
  const RoutingOptions options_;
  const std::vector<FrontierClient*> partitions_;
  const uint32_t home_;
  std::atomic<uint32_t> routing_count_;

  mutable absl::Mutex mu_;
  SentCache cache_ ABSL_GUARDED_BY(mu_);
  RoutingStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_ROUTED_FRONTIER_CLIENT_H_
