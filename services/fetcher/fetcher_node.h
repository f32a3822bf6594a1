// FetcherNode: one fetcher process of the distributed crawl (docs/architecture.md §3, §4): replica
// k of the fetchers, serving partition k of every collection. It reports its counters to the
// scheduler every few seconds (SchedulerInternal.ReportFetcherStats) and takes from the reply
// the collections to crawl; for each ACTIVE one it runs a Fetcher core that leases from
// frontier partition k only and sends outlinks through a RoutedFrontierClient to the partition
// that owns their host (exchange mode, batched per destination, with the popular-URL cache).
//
// Per collection (while it is listed ACTIVE), assembled as the standalone crawl assembles its
// own (CollectionCrawl, collection_crawl.h; CrawlSettingsFor gives this node's paths):
// - a Fetcher on a thread of its own, over the collection's scope, its WARC writer
//   (<warc_dir>/<collection>/, files "<collection>-p<k>-..."), its crawl log
//   (<log_dir>/<collection>.log, the standalone crawl's format) and the node's shared parts:
//   politeness (one budget per host and address across every collection), resolver, SSRF guard,
//   dedup client;
// - with record_links or focus, a link ledger (<links_dir>/<collection>-p<k>.tsv, the standalone
//   crawl's links.tsv format, docs/focused.md) whose seen set is the dedup service's
//   (Dedup.MarkLinksSeen, keyed by the collection's name and creation time), so each external
//   link counts once across every fetcher and a page's reward reaches its partition's bandit
//   in the completion. A focused collection needs the dedup service; links recorded without it
//   count once per fetcher;
// - the CDXJ index beside every WARC file the crawl finishes (CollectionCrawl's archive indexer,
//   docs/archive.md), its passes on a thread of the node's own, which first indexes what an
//   earlier incarnation finished and did not index (in every collection's directory);
// - a collection PAUSED, FINISHED or no longer listed (deleted) has its Fetcher stopped: the
//   transfers in flight finish, the leases not started are handed back;
// - a Fetcher that ran out of work (its collection exhausted everywhere) is started again when
//   the partitions have work again (seeds added, re-visits due), checked every
//   `idle_check_interval`; one whose settings changed is restarted with the new ones.
//
// Outages: the own partition's frontier is waited out inside the Fetcher (FrontierLink): outcomes
// and outlinks are kept and sent again. Another partition's is waited out by the collection's
// OutlinkOutbox (outlink_outbox.h): its outlinks are kept on disk until it answers, and the
// crawl of this partition goes on meanwhile. A scheduler that cannot be reached changes
// nothing: the node keeps crawling what it was crawling and reports again at the next interval.
// A dedup service that cannot be reached makes pages archived in full (PageProcessor).
//
// The scheduler is reached through a SchedulerClient and the kept last report is written with a
// RecordCodec (services/scheduler/record_codec.h): the gRPC layer gives both
// (services/fetcher/grpc/fetcher_server.cc); this class sees domain types only.
//
// Thread-safety: Run on one thread; Stop and Snapshot from any.
#ifndef CRAWLER_SERVICES_FETCHER_FETCHER_NODE_H_
#define CRAWLER_SERVICES_FETCHER_FETCHER_NODE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "lib/net/address_policy.h"
#include "lib/partition/layout.h"
#include "lib/politeness/politeness.h"
#include "lib/warc/warc_writer.h"
#include "services/dedup/dedup_client.h"
#include "services/fetcher/collection_crawl.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/fetcher_metrics.h"
#include "services/fetcher/outlink_outbox.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/frontier_client.h"
#include "services/frontier/routed_frontier_client.h"
#include "services/scheduler/record_codec.h"
#include "services/scheduler/scheduler_api.h"
#include "services/scheduler/scheduler_client.h"

namespace crawler::fetcher {

struct FetcherNodeOptions {
  uint32_t partition_index = 0;
  // The frontier partitions this fetcher can reach (PartitionClientFactory's k below it). The
  // count outlinks are routed by is the scheduler's partition layout, at most this.
  uint32_t partition_count = 1;
  // The fetcher's own settings (transfers, workers, timeouts, batching); each collection adds
  // its own (FetcherOptionsFor).
  FetcherOptions fetcher;
  std::string user_agent = "crawler/0.1";
  std::string warc_dir;  // required
  std::string log_dir;   // required
  std::string links_dir;  // required: link ledgers of collections that record links
  // The standalone crawl's default (WarcWriterOptions), so the two rotate alike.
  uint64_t warc_max_file_bytes = warc::WarcWriterOptions{}.max_file_bytes;
  // Outlink routing: batch size per destination and the popular-URL cache (0 entries: none).
  frontier::RoutingOptions routing;
  // Where each collection's per-page metrics go (one observer per collection); null: none. Not
  // owned; must outlive the node.
  FetcherMetrics* metrics = nullptr;
  // Send "X-Crawler-Partition: k" with every request (to check partitioning on a test web).
  bool partition_header = false;
  // Time between reports to the scheduler (the scheduler's reply may set another).
  absl::Duration report_interval = absl::Seconds(2);
  // How often a collection whose Fetcher ran out of work is checked for new work.
  absl::Duration idle_check_interval = absl::Seconds(2);
  // The last report (sent after the drain) is retried this long while the scheduler is
  // unreachable, e.g. restarted by the same rollout as this fetcher. Keep it well inside the
  // pod's termination grace period.
  absl::Duration final_report_timeout = absl::Seconds(10);
  // Time between those tries (> 0).
  absl::Duration final_report_retry_interval = absl::Milliseconds(500);
  // Where the last report is kept until the scheduler has taken it: written before it is sent,
  // deleted once taken, so a scheduler that stays away (or a kill during the retries) loses
  // nothing; the next start sends what it finds there (its counters are that incarnation's, by
  // its own key, so sending twice counts once). Empty: not kept.
  std::string reports_dir;
  // A page counts as done only once its WARC records are on disk (CollectionCrawlSettings).
  bool fsync = true;
  // Where the node says what happens: its collections started, stopped, refused; the
  // scheduler's outages; its WARC files indexed. Each line names the collection.
  Logger log;
  // Sent with every report, for the scheduler to reach this node's archive files
  // (FetcherReport::archive_address, archive_volume); empty: not served.
  std::string archive_address;
  std::string archive_volume;
  // Called with a WARC file and its index after each index is written; may be empty.
  std::function<void(const std::string& warc, const std::string& cdxj)> archive_indexed;
  // Where outlinks for partitions that do not take them are kept until they do (OutlinkOutbox:
  // <outbox_dir>/<collection>/p<partition>/). Empty with more than one partition: outlinks wait
  // in memory, and one unreachable partition holds up the hand-over of all (tests only).
  std::string outbox_dir;
  OutlinkOutboxOptions outbox;
};

// Partition k's frontier client for `collection` of `generation` (its creation time in
// microseconds, FrontierCollection.generation): its calls fail with kFailedPrecondition once that
// collection is gone from the partition, even if another was created under its name.
using PartitionClientFactory = std::function<std::unique_ptr<frontier::FrontierClient>(
    uint32_t k, const std::string& collection, uint64_t generation)>;

class FetcherNode {
 public:
  // Every reference must outlive the node; `dedup` may be null (no duplicate detection).
  // kInvalidArgument for bad options.
  static absl::StatusOr<std::unique_ptr<FetcherNode>> Create(
      const FetcherNodeOptions& options, PartitionClientFactory partitions,
      scheduler::SchedulerClient& scheduler, const scheduler::RecordCodec& codec,
      dedup::DedupClient* dedup, politeness::Politeness& politeness, Resolver& resolver,
      const net::AddressPolicy& guard, const Clock& clock);
  ~FetcherNode();

  // Reports and follows the scheduler's list until Stop(); then stops every Fetcher (in-flight
  // transfers finish, unstarted leases are handed back), closes the WARC files and returns OK.
  absl::Status Run();
  void Stop();

  // The report Run would send now (for tests and logs).
  scheduler::FetcherReport Snapshot() const;
  // The counters the metrics read when scraped (fetcher_metrics.h): every collection's Fetchers
  // (running and finished) summed, the politeness store's, the outlink routing's.
  FetcherSnapshot MetricsSnapshot() const;
  // Collections with a Fetcher running now.
  std::vector<std::string> Running() const;

  // Where a node with `options` writes the crawl of `info`'s collection (see the file comment):
  // its settings for the one assembly of a crawl (collection_crawl.h). With `dedup`, links are
  // marked seen in its set of the collection.
  static CollectionCrawlSettings CrawlSettingsFor(const FetcherNodeOptions& options,
                                                  const scheduler::CollectionInfo& info,
                                                  dedup::DedupClient* dedup);

 private:
  struct Crawl;
  FetcherNode(const FetcherNodeOptions& options, PartitionClientFactory partitions,
              scheduler::SchedulerClient& scheduler, const scheduler::RecordCodec& codec,
              dedup::DedupClient* dedup, politeness::Politeness& politeness, Resolver& resolver,
              const net::AddressPolicy& guard, const Clock& clock);

  // The report to send: Snapshot() and the definitions held (FetcherReport::held).
  scheduler::FetcherReport Report() const;
  // The reply's collections with their definitions, those left out (held) taken from the
  // crawls; nullopt if one held is not here any more (the next report asks for it).
  std::optional<std::vector<scheduler::CollectionInfo>> Resolve(
      const scheduler::FetcherReportReply& reply) const;
  // Starts, stops and restarts Fetchers to match `collections` (and `reply`'s unreadable ones);
  // then notes the versions of the definitions they run.
  void Reconcile(const std::vector<scheduler::CollectionInfo>& collections,
                 const scheduler::FetcherReportReply& reply, absl::Time now);
  absl::Status Start(Crawl& crawl, const scheduler::CollectionInfo& info)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // With more than one partition and an outbox_dir, the collection's OutlinkOutbox over its
  // router (<outbox_dir>/<collection>).
  absl::Status OpenOutbox(Crawl& crawl) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether the crawl's router must be rebuilt for layout_: it routes by another count, or
  // does not reach this fetcher's own partition.
  bool NeedsNewRouter(const Crawl& crawl) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes what a deleted collection's outbox kept.
  void ForgetOutbox(const std::string& collection) const;
  // Joins a finished Fetcher's thread and folds its counters into the collection's totals.
  void Reap(Crawl& crawl);
  // Sends the kept last reports of earlier incarnations (options_.reports_dir), deleting each
  // the scheduler takes; stops at the first the scheduler cannot take now.
  void SendKeptReports();
  // The last report: kept, then sent with retries (see final_report_timeout).
  void SendLastReport();
  // A pass of the archive indexing (the index thread's job): the first sweeps every
  // collection's directory, each then ticks the crawls' indexers.
  void IndexArchives(absl::Time now) ABSL_LOCKS_EXCLUDED(mu_);

  const FetcherNodeOptions options_;
  const PartitionClientFactory partitions_;
  scheduler::SchedulerClient& scheduler_;
  const scheduler::RecordCodec& codec_;
  dedup::DedupClient* const dedup_;
  politeness::Politeness& politeness_;
  Resolver& resolver_;
  const net::AddressPolicy& guard_;
  const Clock& clock_;
  const std::string incarnation_;
  const absl::Time start_time_;

  absl::Notification stop_;
  bool swept_ = false;  // only on the index thread
  mutable absl::Mutex mu_;
  // Loaded when a collection first records links by registrable domain (before crawls_: the
  // link ledgers use it).
  SharedPublicSuffixList psl_;
  std::map<std::string, std::unique_ptr<Crawl>> crawls_ ABSL_GUARDED_BY(mu_);
  // How outlinks are routed (the scheduler's layout, FetcherReportReply::layout; until its
  // first reply, every configured partition), and the last layout refused for spanning more
  // partitions than are configured (said once).
  partition::PartitionLayout layout_ ABSL_GUARDED_BY(mu_);
  partition::PartitionLayout unreachable_layout_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_FETCHER_NODE_H_
