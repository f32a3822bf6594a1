// FrontierClient: the frontier as its callers (fetchers, the scheduler, tools) see it. In one
// process it is the core itself (LocalFrontierClient, local_frontier_client.h); distributed, a
// gRPC stub; across partitions, RoutedFrontierClient (routed_frontier_client.h), which sends
// each URL to the partition that owns its host.
//
// Every method can fail the way a remote call fails: it returns absl::Status or StatusOr, with
// kUnavailable / kDeadlineExceeded for a frontier that cannot be reached (the caller keeps what
// it meant to send and tries again later) and the frontier's own code otherwise. Every method
// that carries URLs carries a batch (docs/architecture.md §2.4). A call that returns an error
// changed nothing, or (for a remote call that timed out) may have been applied: every method is
// safe to repeat (AddUrls of a URL already added counts it as seen; a repeated Complete reports the
// lease as unknown and changes nothing).
//
// Thread-safety: implementations are thread-safe.
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_CLIENT_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/recrawl/revisit_policy.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/host_api.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

class FrontierClient {
 public:
  virtual ~FrontierClient() = default;

  // Queues the URLs not seen before (Frontier::AddUrls). Durable when it returns OK.
  virtual absl::StatusOr<AddResult> AddUrls(const std::vector<UrlToAdd>& urls) = 0;

  // Leases up to `max_urls` due URLs, at most `max_per_host` per host (Frontier::Lease).
  virtual absl::StatusOr<std::vector<LeasedTask>> Lease(size_t max_urls, size_t max_per_host) = 0;

  // Records the outcomes of leased URLs (Frontier::Complete). Send the outlinks a page produced
  // (AddUrls) before its outcome: once its completion is durable the page is never fetched
  // again, so links sent after it would be lost in a crash between the two.
  virtual absl::StatusOr<CompleteResult> Complete(const std::vector<FetchOutcome>& outcomes) = 0;

  // Hands back leases that will not be started (a stopping fetcher's): their URLs go back to
  // the head of their queues at once instead of at lease expiry, and the attempt does not count
  // as a failure (Frontier::ReleaseLeases). Unknown ids are ignored. Returns how many were
  // released.
  virtual absl::StatusOr<size_t> ReleaseLeases(const std::vector<LeaseId>& lease_ids) = 0;

  // The control table of the hosts the operator blocked, slowed or dropped (Frontier::
  // FetcherControls), for the fetchers that lease here; `known_version` is the version the
  // caller holds (0: none): a current one comes back unchanged and empty. Across partitions,
  // the home partition's (a fetcher leases there only).
  virtual absl::StatusOr<FetcherControlTable> HostControls(uint64_t known_version) = 0;

  // Politeness hints for hosts: lease nothing of each host before its time (e.g. after a
  // Retry-After or a robots.txt Crawl-delay). Returns the hosts updated.
  virtual absl::StatusOr<size_t> ReportHostTimes(const std::vector<HostTime>& times) = 0;

  // True when nothing more will be leased: nothing queued, waiting or leased (under an
  // unexhausted budget). Across partitions: in every partition at one moment.
  virtual absl::StatusOr<bool> IsExhausted() = 0;

  // Current state and counters (FrontierStats; across partitions, the sums).
  virtual absl::StatusOr<FrontierStats> Stats() = 0;

  // The stored state of each URL, in order; nullopt for a URL never accepted ("why is this URL
  // in this state" lookups).
  virtual absl::StatusOr<std::vector<std::optional<UrlRecord>>> LookupUrls(
      const std::vector<std::string>& canonical_urls) = 0;

  // The re-visit side (Frontier::GetRevisitStatus / RetuneRevisits), for the scheduler.
  virtual absl::StatusOr<RevisitStatus> GetRevisitStatus() = 0;
  virtual absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) = 0;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_CLIENT_H_
