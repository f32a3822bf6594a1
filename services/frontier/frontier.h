// Frontier: the URL frontier of one partition. It owns the seen-set, the per-host queues, the
// per-URL state, the due index (retries now, re-visits later) and the leases of URLs handed to
// fetchers (docs/architecture.md §3). A plain core: storage and time come in through kv::KvStore
// and Clock, no RPC or storage library types appear here.
//
// The contract (docs/architecture.md §2):
// - No URL is lost. Every state change is one atomic write batch. A URL is always in exactly one
//   place: its host's queue, the due index, or done. A leased URL keeps its queue entry until
//   its completion (the host records count it as leased), so Lease writes nothing per URL.
//   Leases not completed by their deadline go back to the head of their host's queue
//   (ExpireLeases); a new Frontier on the same store (after a crash, kill -9 or clean exit)
//   finds every URL of the previous process's leases still queued, and with
//   restored_lease_grace > 0 restores those leases for that grace so their fetchers' completions
//   are taken. So each URL is fetched once, except URLs whose lease was in flight at a crash of
//   its fetcher or expired before its completion arrived: those are fetched again.
// - Memory grows with hosts, not URLs. RAM holds one small header per host, plus one entry per
//   URL currently leased (at most hosts x max_in_flight_per_host), plus a seen cache of fixed
//   size (FrontierOptions::seen_cache_entries x 8 bytes). Queues, the seen-set and URL state
//   stay in the store.
// - Batch every hop. AddUrls, Lease and Complete each take or return a batch and write one
//   store batch (two when due entries are promoted or leases expire first).
//
// Order of work: within a host, higher priority first, then breadth-first (depth), then
// insertion order. Among hosts, Lease takes ready hosts in order of their next-allowed hint
// (fed by Complete and ReportHostTimes; leasing moves it to at least the lease time, so hosts
// take turns). The hint is only a hint: the fetcher's politeness claim decides when a request
// is actually made (docs/architecture.md §5). A focused collection (FrontierOptions::focus) picks
// hosts by its bandit instead (focus_selector.h): one choice per free slot of focus.max_in_flight,
// a chosen host that cannot take another lease now (its in-flight cap, an empty queue while its
// pages are in flight) holding the slot until a later Lease; the hints are ignored, politeness
// still holds in the fetcher.
//
// Failures: a method whose store write fails returns that error and changes nothing, in memory
// or on disk; the caller may retry the same call.
//
// Thread-safety: thread-safe. One mutex serialises the public methods; each call handles a
// batch, which amortises the lock. The store and clock must outlive the Frontier; only one
// Frontier may use a store's frontier column families at a time.
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/partition/layout.h"
#include "lib/recrawl/rate_histogram.h"
#include "lib/recrawl/revisit_policy.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/focus_selector.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/host_api.h"
#include "services/frontier/host_transfer.h"
#include "services/frontier/host_table.h"
#include "services/frontier/lease_table.h"
#include "services/frontier/revisit_budget.h"
#include "services/frontier/seen_cache.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

class Frontier {
 public:
  // The column families the store must provide (open the store with these).
  static std::vector<kv::ColumnFamilySpec> ColumnFamilies();

  // Opens the frontier kept in `store`: validates `options`, checks the format version, rebuilds
  // the host table from the hosts family (time and memory grow with hosts) and puts every lease
  // left by a previous process back into its queue, except those it restores
  // (FrontierOptions::restored_lease_grace).
  // A re-visit rate histogram or fleet evidence (RevisitOptions::prior "fitted") that does not
  // decode is rebuilt from the URL records (a scan of every URL) and reported in OpenWarnings;
  // so is fleet evidence missing from a store that has re-visit estimates (written by a
  // version without the fitted prior, or last opened with prior "fleet-mean").
  // Errors: kInvalidArgument (options), kFailedPrecondition (missing column family, unknown
  // format version), kDataLoss (corrupt records), kResourceExhausted (the seen cache's table
  // cannot be mapped), or the store's error.
  static absl::StatusOr<std::unique_ptr<Frontier>> Open(const FrontierOptions& options,
                                                        kv::KvStore& store, const Clock& clock);

  Frontier(const Frontier&) = delete;
  Frontier& operator=(const Frontier&) = delete;
  ~Frontier();

  // Inserts each URL that is new (not in the seen-set) into its host's queue, in one atomic
  // batch. Per-URL problems are counted in the result, not errors. Checks run in this order:
  // invalid, repeated within the batch, limits (depth, budget, caps of known hosts), then
  // existence (the seen cache, then the store), then the caps of hosts this batch grows.
  absl::StatusOr<AddResult> AddUrls(const std::vector<UrlToAdd>& urls);

  // Leases up to `max_urls` URLs, at most `max_per_host` from any one host (further capped by
  // max_urls_per_lease, max_in_flight_per_host and the page budgets), from ready hosts in order
  // of their next-allowed hint. Expired leases are re-queued and due entries promoted first.
  // Returns fewer (possibly none) when fewer are ready; none at all if either argument is 0.
  absl::StatusOr<std::vector<LeasedTask>> Lease(size_t max_urls, size_t max_per_host);

  // Records the outcomes of leased URLs: updates URL state, releases the leases, counts pages,
  // feeds the host hints, and schedules retries (with exponential backoff, via the due index).
  // Unknown or expired lease ids are reported and ignored. kInvalidArgument (and nothing
  // recorded) if an outcome class is out of range.
  absl::StatusOr<CompleteResult> Complete(const std::vector<FetchOutcome>& outcomes);

  // Re-queues (at the head of their host's queue) every lease past its deadline; returns how
  // many. Lease calls it too; an owner that leases rarely should call it periodically.
  absl::StatusOr<size_t> ExpireLeases();

  // Re-queues (at the head of their host's queue) the URLs of the given leases now, as if they
  // had expired: a fetcher hands back the leases it will not start. The attempt does not count
  // as a failure. Ids not on lease (completed, expired, released, never granted) are ignored,
  // and a later Complete of a released lease reports it unknown. Returns how many were released.
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<LeaseId>& ids);

  // Sets hosts' next-allowed hints (e.g. from the fetcher's politeness state after a
  // Retry-After). Unknown hosts are ignored. Returns how many hosts were updated.
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<HostTime>& times);

  // The re-visit state of this partition: the histogram of rate estimates (and, for the fitted
  // prior, the fleet evidence) the scheduler merges across partitions to tune the policy.
  RevisitStatus GetRevisitStatus() const;

  // Re-tunes the re-visit policy with the fleet-wide summary (for "optimal": solves mu for the
  // collection's budget over fleet.rates; with fleet.prior set, the estimators take each page's
  // posterior rate under it, else the Gamma prior centred on fleet.mean_rate_per_day); later
  // completions use it. The scheduler calls it
  // whenever the budget or the estimates have moved. kFailedPrecondition if re-visiting is off.
  // It also sets this partition's hard cap on re-visits (RevisitOptions::budget_burst): the
  // collection's budget split by page count, budget x (this partition's histogram pages +
  // pending first visits) / fleet.page_count, so the partitions' shares add up to the budget
  // (the whole budget when fleet.page_count is 0).
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet);

  // Moves this partition's page budget (FrontierOptions::max_pages_total) while the crawl runs:
  // a focused collection's scheduler splits the collection's budget by where the rewards are
  // (docs/focused.md). Pages already fetched or in flight stay spent; a budget below them just
  // leases nothing more. kFailedPrecondition unless the collection is focused (a coverage crawl's
  // budget is fixed when it is opened); kInvalidArgument for kUnlimited.
  absl::Status SetPageBudget(uint64_t max_pages);

  // ---- Host control (host_api.h; docs/api.md "Host control") ----------------------------------
  // A host is named by its key. Errors, with nothing changed: kInvalidArgument for a key that
  // is empty, too long or of a host another partition owns, and for a bad argument (page size
  // outside [1, 1000], a page token not from the previous page, a block that does not end in
  // the future, a negative or over-long delay); kNotFound for a host this partition has never
  // seen; or the store's error.

  // This partition's hosts, one page in the order asked for (ties by host key).
  absl::StatusOr<ListHostsResult> ListHosts(const ListHostsRequest& request) const;
  // One host: its counters and controls, with its recent errors and robots.txt denials read
  // from its URL records (at most kHostScanLimit of them).
  absl::StatusOr<HostDetail> GetHost(std::string_view host_key) const;
  // Changes one of the host's controls (persisted in its host record with its counters). A
  // block keeps all of the host's URLs out of Lease until it ends (leases already out stay
  // out); a delay makes Lease take one URL of the host at a time, the delay after the previous
  // one's fetch; a page limit replaces the collection's max_pages_per_host.
  absl::StatusOr<HostChangeResult> ControlHost(std::string_view host_key,
                                               const HostControlChange& change);
  // Drops every URL of the host that is queued, leased or waiting, in one batch: each is
  // marked UrlStatus::kDropped (still seen, so never queued again), its leases end (their
  // completions are then reported unknown). Returns how many were dropped.
  absl::StatusOr<HostChangeResult> DropHostQueue(std::string_view host_key);
  // One page of the host's URLs in one state (kQueued/kLeased in queue order, the others in
  // URL order), with the host's counts.
  absl::StatusOr<ListHostUrlsResult> ListHostUrls(const ListHostUrlsRequest& request) const;

  // Moving a host to another partition (resharding; host_transfer.h). The host must be still
  // on this side while it moves: nothing of it on lease, nothing added to it, no control
  // changed (the mover stops both). Focused collections' hosts do not move yet
  // (kFailedPrecondition): their bandit statistics are not carried.
  //
  // ExportHost: one chunk of up to `max_urls` URLs of the host, from `after` (empty: the
  // start; then each chunk's `next`). kNotFound for a host this partition does not hold,
  // kFailedPrecondition while one of its URLs is on lease.
  absl::StatusOr<HostChunk> ExportHost(std::string_view host_key, std::string_view after,
                                       size_t max_urls) const;
  // ImportHost: writes a chunk on the new owner, in one batch. Its URLs are stored at once
  // (their records and queue entries) but the host stays empty to Lease and the listings until
  // the last chunk (with the header) sets its counters, controls and hint; its re-visit pages
  // then join the fleet. A chunk imported again is harmless; the whole export can be replayed
  // after a crash on either side. kAlreadyExists for a chunk with a header once the host holds
  // URLs (the move is done: the mover goes on to ForgetHost); kFailedPrecondition for a host
  // this partition does not own.
  absl::Status ImportHost(const HostChunk& chunk);
  // ForgetHost: on the old owner once the new one holds the host: deletes its URL records,
  // queue and due entries and lease marks, takes its re-visit pages out of the fleet and
  // empties its header (the id stays: ids are dense). The host then shows in no listing and
  // counts in no total, and may come back by a later ImportHost. Returns the URLs deleted;
  // kFailedPrecondition while one of them is on lease.
  absl::StatusOr<uint64_t> ForgetHost(std::string_view host_key);

  // ---- A reshard of a running crawl (docs/architecture.md §4) -------------------------------
  // The partition layout this core routes by: the options' at Open, SetLayout's since. While
  // a reshard is under way (reshard_to set), AddUrls takes the URLs of hosts moving here, and
  // holds (AddResult::held, stored until delivered) those of a host this partition owns but
  // that has moved away, is moving, or is new here and will live elsewhere; after the flip
  // (resharded_from set) it holds those of hosts it owned before. Any other host's URL fails
  // the whole batch with kFailedPrecondition naming the owner, as always.
  partition::PartitionLayout Layout() const;
  // Changes the layout (kInvalidArgument for one ValidateLayout refuses at this partition). A
  // layout no longer moving lets the hosts still marked moving go back to work (a reshard
  // called off, or one moving to yet another count).
  absl::Status SetLayout(const partition::PartitionLayout& layout);
  // One page of the hosts held here that the reshard in progress moves elsewhere, in id order
  // from `after` (0: the first); none when no reshard is under way. Costs a pass over the
  // host table (for `total`).
  absl::StatusOr<HostsToMove> ListHostsToMove(uint64_t after, size_t max_hosts) const;
  // Marks a host that moves as moving, persisted: it is leased no more, its due URLs wait, URLs
  // that arrive for it are held. Returns how many of its URLs are still on lease: the mover
  // exports it once none is. Repeating it is harmless. kFailedPrecondition when no reshard
  // moves this host away or its collection is focused; kNotFound for a host not held here.
  absl::StatusOr<uint32_t> BeginHostMove(std::string_view host_key);
  // One page of the held URLs that can go to their owners now (their host is not held here),
  // from `after` (0: the first); and DeleteHeldUrls, once their owners have taken them.
  absl::StatusOr<HeldUrls> ListHeldUrls(uint64_t after, size_t max_urls) const;
  absl::Status DeleteHeldUrls(const std::vector<uint64_t>& seqs);

  // The hosts fetchers must treat specially: blocked now, with a delay, or dropped within
  // kFetcherDropMemory. `known_version`: the version the caller holds; if it is current the
  // table comes back `unchanged` and empty. The version is in memory: it changes at every
  // control change and at every Open (it starts from the clock).
  FetcherControlTable FetcherControls(uint64_t known_version) const;
  static constexpr absl::Duration kFetcherDropMemory = absl::Minutes(10);

  // GetHost's bound on the URL records it reads.
  static constexpr uint64_t kHostScanLimit = 10000;

  // The stored state of one URL; kNotFound if it was never accepted.
  absl::StatusOr<UrlRecord> LookupUrl(std::string_view canonical_url) const;

  FrontierStats Stats() const;

  // What Open found wrong and repaired, one line each, for the owner's log (e.g. a re-visit
  // rate histogram that did not decode, rebuilt from the URL records). Constant after Open.
  const std::vector<std::string>& OpenWarnings() const { return open_warnings_; }

  // True when nothing more will be leased: no URL in flight and no queued or waiting URL
  // under an unexhausted budget. The standalone crawl stops here.
  bool IsExhausted() const;

 private:
  using HostState = HostTable::State;
  class Staging;
  // Lease's plan: how many URLs each chosen host gives.
  struct Take {
    uint32_t host;
    uint64_t count;
  };
  // A queue entry Lease takes.
  struct Popped {
    uint32_t host;
    storage::QueuePos pos;
    storage::QueueEntry entry;
  };
  // AddUrls' URLs that pass the checks that need no store read, with their seen-cache keys
  // (empty with the cache off).
  struct AddCandidates {
    std::vector<const UrlToAdd*> urls;
    std::vector<uint64_t> hashes;
    uint64_t cache_hits = 0;
    // Seen already (the cache says so) but carrying a sitemap lastmod: their records are read
    // to take it (StageSitemapHintsLocked).
    std::vector<const UrlToAdd*> hinted_seen;
  };
  // Complete's tallies of one batch, applied once it is written.
  struct CompleteTally {
    uint64_t revisits = 0;
    uint64_t changes = 0;
    uint64_t revisits_completed = 0;  // leases of URLs visited before (they left revisits_queued_)
    absl::Time earliest_due = absl::InfiniteFuture();
    std::vector<std::pair<uint32_t, uint32_t>> focus_pulls;  // (host, reward) of final outcomes
  };

  Frontier(const FrontierOptions& options, kv::KvStore& store, const Clock& clock);

  absl::Status Recover() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Recover's parts: the store's format version (written to a new store, checked otherwise),
  // and the re-visit fleet's summaries in the meta family.
  absl::Status CheckFormatVersionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status RecoverRevisitFleetLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The leases family of a previous process: moved entries (older versions) go back into their
  // queues; lease marks are restored as leases (restored_lease_grace) or dropped. `leased` is
  // how many URLs the host records counted as leased, all of them queued again unless restored.
  absl::Status RecoverLeasesLocked(uint64_t leased) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<size_t> ExpireLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Puts the URLs of these leases (all in leases_, each once) back into their queues in one
  // store batch; on error nothing changes.
  absl::Status RequeueLeasesLocked(const std::vector<LeaseId>& ids)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status PromoteDueLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // PromoteDueLocked's read of the due index: the entries due by `now` from `from` (at most
  // max_due_promotions_per_lease), whether it ran out of them, and when the first entry after
  // `now` is due (InfiniteFuture: none, or not reached).
  struct DueScan {
    struct Entry {
      std::string key;
      absl::Time due;
      std::string url;
    };
    std::vector<Entry> entries;
    bool exhausted = false;
    absl::Time next_due = absl::InfiniteFuture();
  };
  absl::StatusOr<DueScan> ScanDueLocked(absl::Time from, absl::Time now) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  // Writes `batch` plus the records of the staged hosts that changed beyond a lease
  // (HostTable::RecordChanged) and the leases out if their count moved, then applies the
  // staged headers.
  absl::Status CommitLocked(kv::WriteBatch& batch, Staging& staging)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Puts `leases_out` as the meta family's count of URLs out on lease unless it is the count
  // last written; the caller sets leases_out_stored_ once `batch` is written.
  void PutLeasesOutLocked(uint64_t leases_out, kv::WriteBatch& batch) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  // What the URL record said about the content before this visit.
  struct PreviousContent {
    uint64_t fingerprint = 0;
    uint64_t change_digest = 0;
    std::string etag;
    uint64_t length = 0;
    // The previous visit's time and HTTP status.
    absl::Time fetch_time = absl::InfinitePast();
    int http_status = 0;
  };
  struct RevisitPlan {
    absl::Time due;
    bool changed = false;  // this visit found the content changed (never on a first visit)
  };
  // The re-visit state of the whole partition, persisted in the meta family.
  struct RevisitFleet {
    recrawl::RateHistogram rates;
    double changes_seen = 0;
    double days_observed = 0;
    // The visit histories of the pages in `rates` (RevisitOptions::prior "fitted"; nullopt
    // otherwise): each visit Removes the page's previous history and Adds its new one.
    std::optional<recrawl::FleetEvidence> evidence;
  };
  // After a final content outcome with re-visiting on: records the visit in the URL's history
  // (record.visit_history), asks the policy when to come back and moves the URL's rate estimate
  // and the fleet's observations in `fleet` (a staged copy of revisit_fleet_). Returns the due
  // time, clamped to the options' interval bounds; a page's first re-visit is spread over
  // (0, 1] of its interval by a hash of `url`, so a site discovered at once is not re-visited
  // all at once.
  RevisitPlan ScheduleRevisit(const FetchOutcome& outcome, const PreviousContent& previous,
                              const std::string& url, UrlRecord& record, RevisitFleet& fleet)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The histogram of the rate estimates and the fleet evidence of every URL record in the
  // re-visit fleet (a full scan of the URLs family).
  struct RevisitSummaries {
    recrawl::RateHistogram rates;
    recrawl::FleetEvidence evidence;
  };
  absl::StatusOr<RevisitSummaries> RebuildRevisitSummariesLocked() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Open's part for the fleet evidence: loads it, rebuilds it when it does not decode or is
  // missing, or deletes it when the collection does not keep it.
  absl::Status RecoverRevisitEvidenceLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queued or leased URLs never visited (GetRevisitStatus::pending_urls).
  uint64_t PendingFirstVisitsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After a final outcome without content for a page in the re-visit fleet (its record has a
  // visit history): the page stopped working. A 404 or 410 after a 404 or 410, or a URL now out
  // of scope, leaves the fleet (its estimate leaves `fleet`'s histogram, its history is
  // cleared): returns nullopt. Anything else (errors after their retries, redirects, robots
  // denials) is re-visited after twice the time since the previous visit, clamped to the
  // interval bounds: the page's interval doubles with each consecutive failure.
  // Takes a page out of the re-visit fleet (its estimate out of `fleet`'s histogram, its
  // history out of the evidence) and clears its history: it will not be re-visited.
  static void LeaveRevisitFleet(UrlRecord& record, RevisitFleet& fleet);
  // The reverse, for a page that comes from another partition with its history: its estimate
  // into `fleet`'s histogram, its history into the evidence.
  static void JoinRevisitFleet(const UrlRecord& record, RevisitFleet& fleet);
  // Writes `fleet`'s persisted parts (rates, observations, evidence) into `batch`.
  static void PutRevisitFleet(const RevisitFleet& fleet, kv::WriteBatch& batch);
  // When a re-visiting collection reads a sitemap again: the mean interval of the fleet's pages
  // under the budget (pages / budget), within [min_interval, max_interval]; max_interval before
  // the first tuning.
  absl::Duration SitemapRevisitIntervalLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<absl::Time> ScheduleFailedRevisit(const FetchOutcome& outcome,
                                                  const PreviousContent& previous,
                                                  UrlRecord& record, RevisitFleet& fleet) const;

  // AddUrls' steps: refuses the batch if a URL belongs to another partition; screens the URLs
  // (invalid, repeated, over a limit, in the seen cache) into `result` and the candidates; then
  // stages the candidates the store does not hold (`existing[i]` empty) into `batch`.
  absl::Status CheckPartition(const std::vector<UrlToAdd>& urls) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // How this partition takes a URL of `host_key` under layout_ (partition::RouteAt), with the
  // hosts it holds: one moving away is taken only while it is here and not moving.
  partition::Routing RouteLocked(std::string_view host_key) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // AddUrls during a reshard: the batch split into the URLs taken here (into `own`) and those
  // held, which are written now; kFailedPrecondition (nothing written) if one is neither.
  absl::Status HoldForOthersLocked(const std::vector<UrlToAdd>& urls, std::vector<UrlToAdd>& own,
                                   AddResult& result) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // AddUrls once the URLs are known to be this partition's.
  absl::StatusOr<AddResult> AddOwnLocked(const std::vector<UrlToAdd>& urls, AddResult result)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Open's part for a reshard cut short: the moving hosts and the held URLs in the meta family.
  absl::Status RecoverReshardLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  AddCandidates ScreenLocked(const std::vector<UrlToAdd>& urls, AddResult& result)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `hinted_seen` gets the URLs found in the store that carry a sitemap lastmod, with their
  // stored records.
  void StageNewUrlsLocked(const AddCandidates& candidates,
                          const std::vector<std::optional<std::string>>& existing,
                          Staging& staging, kv::WriteBatch& batch, AddResult& result,
                          std::vector<uint64_t>& now_stored,
                          std::vector<std::pair<const UrlToAdd*, std::string>>& hinted_seen)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A URL seen before, listed again by a sitemap (`stored` is its record): the record takes a
  // newer lastmod, and a re-visit that waits is brought forward when the lastmod says the page
  // changed since its last visit and the URL's lastmod has earned trust (LastmodTrusted).
  // Lowers `earliest_due` to a due time it moves.
  void StageSitemapHintsLocked(const UrlToAdd& url, std::string_view stored, kv::WriteBatch& batch,
                               AddResult& result, absl::Time& earliest_due)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Lease's steps: which hosts give how many; popping their queue entries (staging the hosts'
  // headers, repairs into `batch`); the tasks with the previous fetch of URLs fetched before;
  // and, once the batch is written, the leases.
  std::vector<Take> PlanLeaseLocked(uint64_t budget, size_t max_per_host, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status PopQueuesLocked(const std::vector<Take>& plan, absl::Time now, Staging& staging,
                               kv::WriteBatch& batch, std::vector<Popped>& popped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::vector<LeasedTask>> TasksLocked(const std::vector<Popped>& popped,
                                                      const Staging& staging,
                                                      absl::Time deadline) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecordLeasesLocked(std::vector<Popped>& popped, bool marked)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Complete's steps: the URL record a completion updates (rebuilt from the lease if the store
  // lost it); the outcome applied to it, its host's header and `batch`.
  UrlRecord StoredRecordLocked(const std::optional<std::string>& value,
                               const LeaseTable::Lease& lease, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyOutcomeLocked(const FetchOutcome& outcome, const LeaseTable::Lease& lease,
                          UrlRecord& record, absl::Time now, HostState& state,
                          kv::WriteBatch& batch, std::optional<RevisitFleet>& staged_fleet,
                          CompleteTally& tally, CompleteResult& result)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A final outcome (no retry): counts the page and schedules the re-visit, if any.
  void FinishUrlLocked(const FetchOutcome& outcome, const LeaseTable::Lease& lease,
                       const PreviousContent& previous, UrlRecord& record,
                       HostState& state, kv::WriteBatch& batch,
                       std::optional<RevisitFleet>& staged_fleet, CompleteTally& tally)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Puts `record` in the due index at `due`.
  void WaitUntil(absl::Time due, const LeaseTable::Lease& lease, UrlRecord& record,
                 HostState& state, kv::WriteBatch& batch, CompleteTally& tally) const;

  bool ExhaustedLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Host control's parts (frontier_hosts.cc): the id of a host named by an operator, or the
  // error of the contract above; a host's summary; and a visit of the host's URL records
  // (those stored under "http://key/" and "https://key/", its id checked) from `after`
  // (exclusive; empty: the first) until `visit` returns false.
  absl::StatusOr<uint32_t> OperatorHostLocked(std::string_view host_key) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The id of a host that can move now (ExportHost, ForgetHost): held here, nothing on lease,
  // not of a focused collection; the error of their contract otherwise.
  absl::StatusOr<uint32_t> MovingHostLocked(std::string_view host_key) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // kUnavailable for a host on its way to another partition: the operator's changes wait.
  absl::Status NotMovingLocked(uint32_t host) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  HostSummary SummaryLocked(uint32_t host, absl::Time now) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status VisitHostUrlsLocked(
      uint32_t host, std::string_view after,
      const std::function<bool(std::string_view url, const UrlRecord& record)>& visit) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::StatusOr<ListHostUrlsResult> ListQueuedUrlsLocked(const ListHostUrlsRequest& request,
                                                          uint32_t host, size_t page_size) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Focused collections: the hosts the bandit may pull, then its choices for up to `budget`
  // URLs (at most `max_per_host` per host) as (host, count).
  std::vector<std::pair<uint32_t, uint64_t>> FocusPlanLocked(uint64_t budget, size_t max_per_host)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const FrontierOptions options_;
  kv::KvStore& store_;
  const Clock& clock_;

  std::vector<std::string> open_warnings_;  // written by Open only

  mutable absl::Mutex mu_;
  // Host ids are dense: assigned from a persisted counter, never reused.
  HostTable hosts_ ABSL_GUARDED_BY(mu_);
  LeaseTable leases_ ABSL_GUARDED_BY(mu_);
  LeaseId next_lease_id_ ABSL_GUARDED_BY(mu_) = 1;
  // The meta family's kMetaLeasesOutKey as last written; kUnknownLeasesOut before Recover
  // reads it or when the store lacks it, so the next commit writes it.
  static constexpr uint64_t kUnknownLeasesOut = ~uint64_t{0};
  uint64_t leases_out_stored_ ABSL_GUARDED_BY(mu_) = kUnknownLeasesOut;
  // Due entries before this time have all been promoted; scans of the due index start here.
  absl::Time due_scanned_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // Re-visiting (null when off) and the fleet state of the URLs it schedules (persisted in the
  // meta family with every batch that changes it).
  std::unique_ptr<recrawl::RevisitPolicy> revisit_policy_ ABSL_GUARDED_BY(mu_);
  RevisitFleet revisit_fleet_ ABSL_GUARDED_BY(mu_);
  RevisitBudget revisit_budget_ ABSL_GUARDED_BY(mu_);
  // Due re-visits held back by revisit_budget_ are all at or after this time in the due index
  // (InfiniteFuture: none held); promotion rescans from here once a token is available.
  absl::Time revisits_held_from_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  // Re-visits (URLs visited before) queued or leased: GetRevisitStatus leaves them out of
  // pending_urls, as they are in the histogram already. In memory: after a restart the
  // re-visits queued at the time count as pending until they complete.
  uint64_t revisits_queued_ ABSL_GUARDED_BY(mu_) = 0;
  // When RetuneRevisits last tuned the policy: the time since then is the tuning period the
  // policy is told (recrawl::FleetSummary::retune_period_days).
  absl::Time last_retune_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  FrontierStats counters_ ABSL_GUARDED_BY(mu_);  // only the "since opened" counters are used
  // options_.max_pages_total, or what SetPageBudget set since.
  uint64_t max_pages_total_ ABSL_GUARDED_BY(mu_);
  // The focused collection's bandit; null unless options_.focus.enabled.
  std::unique_ptr<FocusSelector> focus_ ABSL_GUARDED_BY(mu_);
  // URLs known to have a record in the URLs family (so never one that lacks it): filled by
  // AddUrls after its batch is written and with what its store lookup found. URL records are
  // never deleted, so nothing has to be invalidated.
  SeenCache seen_cache_ ABSL_GUARDED_BY(mu_);
  // True while the seen cache holds every key of the URLs family: the family was empty at Open
  // (a new crawl), only AddUrls creates keys and puts each into the cache, and the cache has
  // forgotten none since. A miss is then a definite "not in the store", and AddUrls skips the
  // store lookup. It ends for good at the cache's first dropped entry, a repaired URL record or
  // a failed AddUrls write.
  bool seen_cache_exact_ ABSL_GUARDED_BY(mu_) = false;
  // The version of the fetchers' control table (FetcherControls).
  uint64_t controls_version_ ABSL_GUARDED_BY(mu_) = 0;
  // The partition layout (Layout, SetLayout), the hosts marked moving, and the held URLs: how
  // many, and the sequence number of the next.
  partition::PartitionLayout layout_ ABSL_GUARDED_BY(mu_);
  uint64_t hosts_moving_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t held_urls_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_held_seq_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_H_
