// FrontierOptions: the configuration of one Frontier (services/frontier/frontier.h), with
// defaults, units and the trade-off behind each field. Validated once by Frontier::Open.
//
// Thread-safety: a plain value.
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_OPTIONS_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/partition/layout.h"
#include "services/frontier/focus_selector.h"
#include "services/frontier/frontier_api.h"

namespace crawler::frontier {

struct FrontierOptions {
  static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();

  // How long a fetcher holds a leased URL before it goes back to the head of its host's queue.
  // Longer tolerates slow fetches and politeness waits inside the fetcher; shorter recovers the
  // URLs of a dead fetcher sooner (and a completion arriving after expiry is ignored, so the
  // URL is fetched twice). Must exceed the fetcher's worst case of wait + fetch time.
  absl::Duration lease_duration = absl::Minutes(2);

  // What becomes of the leases of a previous process at Open. 0: they are void and their URLs
  // are leased again at once -- right when the fetchers died with that process (the standalone
  // crawl). > 0: each is restored until min(its deadline, Open + this), so completions sent by
  // fetchers that outlived a restarted frontier are accepted instead of the URLs being fetched
  // twice, while leases of fetchers that are gone come back after this grace at most. Costs
  // one small record per leased URL in the Lease and completion batches. The frontier service
  // sets 15 s (longer than a fetcher's retry back-off). >= 0.
  absl::Duration restored_lease_grace = absl::ZeroDuration();

  // Cap on URLs per Lease call whatever the caller asks; bounds one write batch. [1, 65536].
  size_t max_urls_per_lease = 1024;

  // Most URLs of one host out on lease at once. 1 is strictly one request at a time; 2 (the
  // default) lets a fetcher hold a host's next URL while it waits out the politeness delay, so
  // the host never idles for a lease round trip. The fetcher's politeness claim still spaces
  // the requests. [1, 1024].
  uint32_t max_in_flight_per_host = 2;

  // A host is ready when its next-allowed hint is at most this far in the future. 0 leases only
  // hosts the hint says may be fetched now; a few seconds lets a fetcher queue work ahead.
  absl::Duration ready_horizon = absl::ZeroDuration();

  // Crawl budget: completions counted as pages (see CountsAsPage) in total and per host. Once a
  // cap is reached no more URLs are leased against it and AddUrls rejects URLs it covers;
  // already queued URLs stay queued (a later run with a larger cap resumes them).
  uint64_t max_pages_total = kUnlimited;
  uint64_t max_pages_per_host = kUnlimited;

  // Most URLs ever accepted per host: a bound on disk use against crawler traps (endless
  // calendars, session ids in paths) independent of the page budget. A million is more than
  // all but the largest sites have, and reached by a trap in hours, not days; URLs refused for
  // it count in rejected_by_limit.
  uint64_t max_urls_per_host = 1'000'000;

  // URLs deeper than this (seeds are depth 0) are rejected by AddUrls.
  uint32_t max_depth = std::numeric_limits<uint32_t>::max();

  // URLs longer than this are rejected as invalid (they would bloat every key holding them).
  size_t max_url_bytes = 8192;

  // ETag / Last-Modified values longer than this are not stored (they come from untrusted
  // servers; a conditional GET without them is merely unconditional).
  size_t max_validator_bytes = 1024;

  // Fetch attempts per URL when outcomes ask for a retry (503, network errors...). The last
  // attempt's outcome is final whatever it asks. [1, 100].
  uint32_t max_attempts = 3;
  // Wait before retry n (n = 1, 2, ...) is retry_backoff_initial * 2^(n-1), capped at
  // retry_backoff_max: spaces retries past short outages without parking a URL for days.
  absl::Duration retry_backoff_initial = absl::Minutes(1);
  absl::Duration retry_backoff_max = absl::Hours(1);

  // Entries of the in-memory seen cache (seen_cache.h) that AddUrls asks before it looks URLs
  // up in the store: most outlinks of a page are URLs already known (navigation), and a hit
  // costs a hash probe instead of a RocksDB read. 8 bytes per entry whatever the crawl's size
  // (the default 2^20 entries is 8 MiB); rounded down to a power of two. A false hit, which
  // drops a new URL as already seen, takes a 64-bit hash collision: at most
  // seen_cache_entries / 2^64 per new URL (5.7e-14 at the default). 0 disables the cache;
  // otherwise [8, 2^28].
  size_t seen_cache_entries = size_t{1} << 20;

  // Most due-index entries (retries, later re-visits) moved into host queues per Lease call;
  // bounds that call's extra work when a large backlog falls due at once.
  size_t max_due_promotions_per_lease = 4096;

  // Off by default. Cannot be combined with the page budgets (max_pages_total,
  // max_pages_per_host): a host at its cap is not leased at all, which would stop its re-visits.
  RevisitOptions revisit;

  // Off by default. A focused collection (focus_selector.h, docs/focused.md): Lease picks hosts
  // by a bandit policy instead of by their politeness hints, at most focus.max_in_flight URLs of
  // the partition out at once, and Complete feeds it each page's reward. Needs a page budget
  // (max_pages_total); cannot be combined with re-visiting.
  FocusOptions focus;

  // This frontier's partition of the crawl (docs/architecture.md §4): it owns the hosts with
  // partition::Partition(host_key, partition_count) == partition_index and refuses URLs of
  // other hosts (AddUrls fails with kFailedPrecondition naming the owner), so a misrouted URL
  // can never be fetched by the wrong fetcher. 1 partition owns every host. partition_count in
  // [1, 65536]. While the count changes (partition::PartitionLayout): reshard_to, the count the
  // hosts are moving to, or resharded_from, the count they were routed by before the last
  // change (0: none); partition_index below the largest of the three. Frontier::SetLayout
  // changes them on a running core.
  uint32_t partition_index = 0;
  uint32_t partition_count = 1;
  uint32_t reshard_to = 0;
  uint32_t resharded_from = 0;

  // Complete's write is durable when it returns (the store's log is fsynced, and with it every
  // earlier write: the outlinks the completions' pages produced). The fetcher has made the
  // pages' WARC records durable before calling Complete, so after a power loss a page is done
  // only if its records survived, and marked done if it was. One fsync per Complete batch. Off:
  // a kernel crash or power loss may forget the last completions (their pages are fetched again).
  bool sync_completions = true;
};

// kInvalidArgument naming the first field out of range.
absl::Status ValidateFrontierOptions(const FrontierOptions& options);

// The partition layout the options describe (epoch 0).
partition::PartitionLayout LayoutOf(const FrontierOptions& options);

// The options of one collection's core on a frontier server: the server's `base` options with
// the collection's limits and re-visit options (CollectionSettings) and this partition's place.
// Not validated (ValidateFrontierOptions).
FrontierOptions WithCollection(const FrontierOptions& base, const CollectionSettings& collection,
                               uint32_t partition_index, const partition::PartitionLayout& layout);

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_OPTIONS_H_
