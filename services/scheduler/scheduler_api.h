// The scheduler's API types: the values that cross a process boundary between the scheduler and
// its callers (the fetchers' reports, the Admin API's clients). Plain values with no behaviour,
// so that a fetcher depends on this header and services/scheduler/scheduler_client.h only, not
// on the scheduler's core. The gRPC layer (services/scheduler/grpc/scheduler_convert.h)
// converts them to and from proto/crawler/v1 (admin.proto, scheduler.proto) one to one.
//
// Thread-safety: plain values.
#ifndef CRAWLER_SERVICES_SCHEDULER_SCHEDULER_API_H_
#define CRAWLER_SERVICES_SCHEDULER_SCHEDULER_API_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/partition/layout.h"
#include "lib/scope/scope.h"
#include "services/collections/collection.h"
#include "services/frontier/host_api.h"
#include "services/frontier/url_record.h"

namespace crawler::scheduler {

// Where a collection is in its life. ACTIVE: crawled. PAUSED: the fetchers stop leasing and
// finish what is in flight. FINISHED: a one-off collection every partition has exhausted
// (ACTIVE again when seeds arrive).
enum class CollectionState : uint8_t { kActive = 1, kPaused = 2, kFinished = 3 };

// "active", "paused", "finished".
std::string_view CollectionStateName(CollectionState state);

// A collection's generation: its creation time in microseconds since the epoch, so that one
// deleted and created again under its name is another collection (the frontier partitions open
// it as such, and fetchers' counters of the older one are not summed into it). 0 for a time
// not after the epoch (unknown).
uint64_t CollectionGeneration(absl::Time create_time);

// A collection as the scheduler keeps it and tells it: its definition and where it is.
struct CollectionInfo {
  collections::Collection collection;
  CollectionState state = CollectionState::kActive;
  absl::Time create_time = absl::InfinitePast();
  absl::Time update_time = absl::InfinitePast();
  // Seeds in the definition, as the Admin API shows it: a listing leaves the seeds themselves
  // out (a page of collections stays small however many seeds each has). Not kept in the
  // record (0 there).
  uint64_t seed_count = 0;

  friend bool operator==(const CollectionInfo&, const CollectionInfo&) = default;
};

// The scheduler's record of a collection: what it tells, and what it still owes the partitions.
struct StoredCollection {
  CollectionInfo info;
  // The seeds are not yet accepted by every partition (fed by the control loop until they are).
  bool seeds_pending = false;
  // Deleted: hidden from every call, dropped on the partitions, then forgotten.
  bool deleting = false;

  friend bool operator==(const StoredCollection&, const StoredCollection&) = default;
};

// What one fetcher process counted for one collection since it started (counters), and what it
// holds now (gauges).
struct FetcherCollectionStats {
  std::string collection;
  // The collection's generation (CollectionGeneration): counters of a collection deleted and
  // created again under its name are not the new one's. 0: unknown (counted).
  uint64_t generation = 0;
  std::map<frontier::OutcomeClass, uint64_t> outcomes;  // final outcomes by class
  uint64_t robots_denied = 0;
  uint64_t duplicates = 0;
  uint64_t dedup_unavailable = 0;
  uint64_t pages_rendered = 0;
  uint64_t renders_cut = 0;
  uint64_t requests_started = 0;
  uint64_t leases_abandoned = 0;
  uint64_t urls_routed = 0;      // outlinks routed to a partition
  uint64_t urls_suppressed = 0;  // dropped by the popular-URL cache
  // Outlinks sent to each partition, by partition index.
  std::vector<uint64_t> urls_sent;
  uint64_t in_flight = 0;  // gauge: not summed over incarnations

  friend bool operator==(const FetcherCollectionStats&, const FetcherCollectionStats&) = default;
};

// A collection definition a fetcher holds, by the version the scheduler gave it
// (FetcherCollection::definition_version).
struct HeldDefinition {
  std::string name;
  uint64_t version = 0;

  friend bool operator==(const HeldDefinition&, const HeldDefinition&) = default;
};

// A fetcher's report (SchedulerInternal.ReportFetcherStats): its counters of every collection
// it crawled since `start_time`, as one incarnation of fetcher `partition`. Counters are
// cumulative per incarnation, so a report sent twice counts once. `held`: the definitions the
// fetcher holds, which the reply leaves out.
struct FetcherReport {
  uint32_t partition = 0;
  std::string incarnation;
  absl::Time start_time = absl::InfinitePast();
  std::vector<FetcherCollectionStats> collections;
  // Where the fetcher serves its archive files (docs/archive.md), HOST:PORT; a fetcher sends
  // ":PORT", which stands for the address its report comes from. Empty: not served.
  std::string archive_address;
  // The volume its archive files are on (kept across its restarts); empty: the incarnation
  // names it.
  std::string archive_volume;
  std::vector<HeldDefinition> held;

  friend bool operator==(const FetcherReport&, const FetcherReport&) = default;
};

// A live collection as a fetcher needs it.
struct FetcherCollection {
  std::string name;
  // Crawl the ACTIVE ones; for PAUSED and FINISHED ones, lease nothing more and finish what is
  // in flight.
  CollectionState state = CollectionState::kActive;
  // A collection deleted and created again is another one (CollectionGeneration).
  absl::Time create_time = absl::InfinitePast();
  // A digest of the definition a fetcher gets; it changes when the definition does.
  uint64_t definition_version = 0;
  // What a fetcher needs of the definition: all of it but the seeds, of which only those its
  // scope depends on (collections::CollectionScope::ScopeSeeds). Set only when the report did
  // not name this version as held, so a reply stays a few hundred bytes per collection however
  // many seeds the collections have.
  std::optional<collections::Collection> definition;

  friend bool operator==(const FetcherCollection&, const FetcherCollection&) = default;
};

// The scheduler's answer to a report: every live collection, and how often to report.
struct FetcherReportReply {
  // One not listed was deleted.
  std::vector<FetcherCollection> collections;
  // Live collections this build cannot read (a newer scheduler's definition): their names and
  // why. A fetcher keeps its counters of them and does not start them.
  std::vector<std::pair<std::string, absl::Status>> unreadable;
  std::optional<absl::Duration> report_interval;
  // The fleet's partition layout; nullopt from a scheduler that does not send one.
  std::optional<partition::PartitionLayout> layout;

  friend bool operator==(const FetcherReportReply&, const FetcherReportReply&) = default;
};

// A collection's figures (Admin.GetCollectionStats): the partitions' pulled at the call, the
// fetchers' from their reports.
struct CollectionStats {
  std::string name;
  absl::Time as_of = absl::InfinitePast();
  uint32_t partitions_reporting = 0;
  uint32_t partitions_total = 0;
  // Summed over the partitions that answered.
  uint64_t pages = 0;
  uint64_t queued_urls = 0;
  uint64_t waiting_urls = 0;
  uint64_t in_flight_urls = 0;
  uint64_t seen_urls = 0;
  uint64_t hosts = 0;
  uint64_t revisits_waited = 0;
  double revisit_wait_seconds = 0;
  double revisit_budget_visits_per_day = 0;
  uint64_t revisits_completed = 0;
  double revisit_spend_visits_per_day = 0;
  uint64_t focus_pulls = 0;
  uint64_t focus_reward = 0;
  // Every partition answered and is exhausted.
  bool exhausted = false;
  // A focused collection's page budget of each partition (after its first split); else empty.
  std::vector<uint64_t> focus_page_budgets;
  // Summed over the fetchers' reports.
  std::map<frontier::OutcomeClass, uint64_t> outcomes;
  uint64_t robots_denied = 0;
  uint64_t duplicates = 0;
  uint64_t urls_exchanged = 0;  // outlinks sent to another partition than the sender's
  uint64_t urls_suppressed = 0;
  uint64_t pages_rendered = 0;
  uint64_t renders_cut = 0;

  friend bool operator==(const CollectionStats&, const CollectionStats&) = default;
};

// Why a URL is (or is not) in a collection (Admin.ExplainUrl).
struct UrlExplanation {
  std::string url;  // as asked
  // Why it does not parse; empty if it does (then the fields below are set).
  std::string error;
  std::string canonical_url;
  // The scope's verdict at the depth the URL was found at (0 when not found); nullopt when the
  // URL does not parse.
  std::optional<scope::Verdict> scope_verdict;
  uint32_t partition = 0;
  // The owning partition's record of the URL; nullopt when it never accepted it.
  std::optional<frontier::UrlRecord> record;
  // Its host there, with the operator's controls; nullopt when the partition does not know the
  // host or did not answer.
  std::optional<frontier::HostSummary> host;

  friend bool operator==(const UrlExplanation&, const UrlExplanation&) = default;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_SCHEDULER_API_H_
