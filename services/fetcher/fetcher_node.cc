#include "services/fetcher/fetcher_node.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/browser/browser.h"
#include "lib/warc/warc_writer.h"
#include "services/common/atomic_file.h"
#include "services/common/periodic_runner.h"
#include "services/fetcher/archive_indexer.h"
#include "services/fetcher/crawl_report.h"
#include "services/frontier/routed_frontier_client.h"
#include "services/frontier/url_record.h"

namespace crawler::fetcher {
namespace {

// Kept last reports: reports_dir/<incarnation>.binpb (a serialized ReportFetcherStatsRequest).
constexpr char kReportExtension[] = ".binpb";

// Failed reports in a row that make an outage worth a warning.
constexpr int kReportFailuresToLog = 2;

std::string NewIncarnation() {
  std::random_device entropy;
  char text[17];
  std::snprintf(text, sizeof(text), "%08x%08x", entropy(), entropy());
  return text;
}

// The outcome class named `name` in the crawl totals ("fetched", ...); nullopt for names that
// are not classes ("robots": robots.txt fetches).
std::optional<frontier::OutcomeClass> ClassNamed(const std::string& name) {
  for (uint8_t i = 1; i <= frontier::kMaxOutcomeClass; ++i) {
    const auto outcome = static_cast<frontier::OutcomeClass>(i);
    if (frontier::OutcomeClassName(outcome) == name) return outcome;
  }
  return std::nullopt;
}

// A PeriodicJob that calls a function.
class CallEveryTick final : public PeriodicJob {
 public:
  explicit CallEveryTick(std::function<void(absl::Time)> call) : call_(std::move(call)) {}
  void Tick(absl::Time now) override { call_(now); }

 private:
  const std::function<void(absl::Time)> call_;
};

void AddRouting(frontier::RoutingStats& into, const frontier::RoutingStats& more) {
  into.routed += more.routed;
  into.suppressed += more.suppressed;
  into.batches += more.batches;
  if (into.sent.size() < more.sent.size()) into.sent.resize(more.sent.size());
  for (size_t j = 0; j < more.sent.size(); ++j) into.sent[j] += more.sent[j];
}

}  // namespace

struct FetcherNode::Crawl {
  std::string name;
  // When the collection was created: a collection deleted and created again under the same
  // name is another collection, whose counters start from zero.
  absl::Time create_time;
  // The collection's crawl here: crawl log, totals, link ledger and scope, kept for the life of
  // the process (counters are cumulative per incarnation), and each run's WARC writer.
  std::unique_ptr<CollectionCrawl> crawl;
  FetcherStats folded;                    // finished Fetchers' counters
  frontier::RoutingStats routing_folded;  // replaced routers' counters
  // The version of crawl->collection() the scheduler gave (FetcherCollection's
  // definition_version), named as held in the reports; 0: none.
  uint64_t spec_version = 0;
  // Built for crawl->collection(); kept between runs so that an idle collection can be asked for
  // work.
  std::vector<std::unique_ptr<frontier::FrontierClient>> partitions;
  std::unique_ptr<frontier::RoutedFrontierClient> router;
  // The partition layout `router` routes by.
  partition::PartitionLayout routed_by;
  // Over `router`, with more than one partition; the Fetcher's client then (null: the router).
  std::unique_ptr<OutlinkOutbox> outbox;
  // The current run.
  std::unique_ptr<Fetcher> fetcher;
  std::thread thread;
  std::atomic<bool> done{false};
  absl::Status result;  // written by the thread before `done`
  // Between runs.
  bool ran_out = false;  // the last run ended because the collection had no work left
  absl::Time last_idle_check = absl::InfinitePast();
  std::string last_start_error;

  bool running() const { return fetcher != nullptr; }
};

FetcherNode::FetcherNode(const FetcherNodeOptions& options, PartitionClientFactory partitions,
                         scheduler::SchedulerClient& scheduler, const scheduler::RecordCodec& codec,
                         dedup::DedupClient* dedup, politeness::Politeness& politeness,
                         Resolver& resolver, const net::AddressPolicy& guard, const Clock& clock)
    : options_(options),
      partitions_(std::move(partitions)),
      scheduler_(scheduler),
      codec_(codec),
      dedup_(dedup),
      politeness_(politeness),
      resolver_(resolver),
      guard_(guard),
      clock_(clock),
      incarnation_(NewIncarnation()),
      start_time_(clock.Now()) {
  layout_.count = options.partition_count;
}

FetcherNode::~FetcherNode() {
  Stop();
  absl::MutexLock lock(&mu_);
  for (auto& [name, crawl] : crawls_) {
    if (crawl->thread.joinable()) crawl->thread.join();
  }
}

absl::StatusOr<std::unique_ptr<FetcherNode>> FetcherNode::Create(
    const FetcherNodeOptions& options, PartitionClientFactory partitions,
    scheduler::SchedulerClient& scheduler, const scheduler::RecordCodec& codec,
    dedup::DedupClient* dedup, politeness::Politeness& politeness, Resolver& resolver,
    const net::AddressPolicy& guard, const Clock& clock) {
  if (options.partition_count == 0 || options.partition_index >= options.partition_count) {
    return absl::InvalidArgumentError(absl::StrCat("partition ", options.partition_index,
                                                   " is not below the partition count ",
                                                   options.partition_count));
  }
  if (options.warc_dir.empty()) return absl::InvalidArgumentError("warc_dir is required");
  if (options.log_dir.empty()) return absl::InvalidArgumentError("log_dir is required");
  if (options.links_dir.empty()) return absl::InvalidArgumentError("links_dir is required");
  if (options.report_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("report_interval must be > 0");
  }
  if (options.final_report_retry_interval <= absl::ZeroDuration() ||
      options.final_report_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "final_report_retry_interval must be > 0 and final_report_timeout >= 0");
  }
  if (!partitions) return absl::InvalidArgumentError("no partition client factory");
  if (absl::Status s = options.fetcher.Validate(); !s.ok()) return s;
  return std::unique_ptr<FetcherNode>(new FetcherNode(
      options, std::move(partitions), scheduler, codec, dedup, politeness, resolver, guard, clock));
}

void FetcherNode::Stop() { if (!stop_.HasBeenNotified()) stop_.Notify(); }

absl::Status FetcherNode::Run() {
  absl::Duration interval = options_.report_interval;
  // Failed reports in a row. One alone is no outage (a connect cut short on a loaded machine, a
  // scheduler restarting within one interval): the outage is logged at the second.
  int failed_in_a_row = 0;
  bool kept_sent = false;
  // Indexing reads whole files: on a thread of its own, so that reports are never late.
  CallEveryTick index_job([this](absl::Time now) { IndexArchives(now); });
  PeriodicRunner indexing({.tick = absl::Seconds(1), .thread_name = "warc-index"}, clock_,
                          {&index_job});
  indexing.Start();
  while (true) {
    absl::StatusOr<scheduler::FetcherReportReply> reply = scheduler_.Report(Report());
    if (reply.ok()) {
      if (failed_in_a_row >= kReportFailuresToLog) {
        options_.log.Info("scheduler reachable again");
      }
      failed_in_a_row = 0;
      if (!kept_sent) {
        SendKeptReports();
        kept_sent = true;
      }
      if (reply->report_interval.has_value() && *reply->report_interval > absl::ZeroDuration()) {
        interval = *reply->report_interval;
      }
      const std::optional<std::vector<scheduler::CollectionInfo>> collections = Resolve(*reply);
      if (!collections.has_value()) {
        // Not expected (the reply leaves out only what the report said is held): ask for every
        // definition next time.
        absl::MutexLock lock(&mu_);
        for (auto& [name, crawl] : crawls_) crawl->spec_version = 0;
      } else if (!stop_.HasBeenNotified()) {
        Reconcile(*collections, *reply, clock_.Now());
      }
    } else if (++failed_in_a_row == kReportFailuresToLog) {
      // Once per outage: the node keeps crawling what it crawls and asks again later.
      options_.log.Warning("scheduler unreachable (", reply.status().ToString(),
                           "); crawling on, retrying");
    }
    if (stop_.WaitForNotificationWithTimeout(interval)) break;
  }
  indexing.Stop();
  // Drain: every Fetcher finishes its transfers in flight and hands back its other leases; its
  // crawl closes its WARC files and indexes them (CollectionCrawl::CloseWarc).
  {
    absl::MutexLock lock(&mu_);
    for (auto& [name, crawl] : crawls_) {
      if (crawl->running()) crawl->fetcher->Stop();
    }
    for (auto& [name, crawl] : crawls_) Reap(*crawl);
  }
  // The last counters, so that nothing this incarnation did goes unreported.
  SendLastReport();
  return absl::OkStatus();
}

void FetcherNode::IndexArchives(absl::Time now) {
  if (!swept_) {
    // What an earlier incarnation finished and was killed before indexing, in collections this
    // node may never crawl again as well.
    ArchiveIndexer({.warc_dir = options_.warc_dir,
                    .log = options_.log,
                    .indexed = options_.archive_indexed})
        .IndexPending();
    swept_ = true;
  }
  // Each pass outside the lock (a crawl may go meanwhile: its indexer is shared).
  std::vector<std::shared_ptr<ArchiveIndexer>> indexers;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, crawl] : crawls_) {
      if (crawl->crawl != nullptr) indexers.push_back(crawl->crawl->archive_indexer());
    }
  }
  for (const std::shared_ptr<ArchiveIndexer>& indexer : indexers) indexer->Tick(now);
}

void FetcherNode::SendKeptReports() {
  if (options_.reports_dir.empty()) return;
  std::error_code error;
  std::vector<std::filesystem::path> kept;
  for (const auto& entry : std::filesystem::directory_iterator(options_.reports_dir, error)) {
    if (entry.path().extension() == kReportExtension) kept.push_back(entry.path());
  }
  std::sort(kept.begin(), kept.end());
  for (const std::filesystem::path& path : kept) {
    absl::StatusOr<std::string> bytes = ReadWholeFile(path);
    absl::StatusOr<scheduler::FetcherReport> report =
        bytes.ok() ? codec_.DecodeReport(*bytes)
                   : absl::StatusOr<scheduler::FetcherReport>(bytes.status());
    absl::Status sent = absl::OkStatus();
    if (!report.ok()) {
      sent = report.status();
    } else if (report->incarnation.empty()) {
      sent = absl::DataLossError("not a fetcher report");
    } else if (report->incarnation == incarnation_) {
      continue;
    } else {
      sent = scheduler_.Report(*report).status();
      // Unreachable: the next start (or the next report round of this one) tries again.
      if (absl::IsUnavailable(sent) || absl::IsDeadlineExceeded(sent)) return;
    }
    if (sent.ok()) {
      options_.log.Info("sent incarnation ", report->incarnation, "'s last report, kept in ",
                        path.string());
    } else {
      options_.log.Warning("dropping the kept report ", path.string(), ": ", sent.ToString());
    }
    std::filesystem::remove(path, error);
  }
}

void FetcherNode::SendLastReport() {
  const scheduler::FetcherReport last = Snapshot();
  std::filesystem::path kept;
  if (!options_.reports_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options_.reports_dir, error);
    const std::filesystem::path path =
        std::filesystem::path(options_.reports_dir) / (incarnation_ + kReportExtension);
    if (absl::Status s = WriteFileAtomically(path, codec_.EncodeReport(last)); s.ok()) {
      kept = path;
    } else {
      options_.log.Warning("cannot keep the last report: ", s.ToString());
    }
  }
  // Tries a retry interval apart until the timeout (a count, not a clock: bounded whatever the
  // clock does).
  const absl::Duration interval = options_.final_report_retry_interval;
  const int64_t attempts = 1 + options_.final_report_timeout / interval;
  absl::Status sent;
  for (int64_t attempt = 0; attempt < attempts; ++attempt) {
    if (attempt > 0) absl::SleepFor(interval);
    sent = scheduler_.Report(last).status();
    if (sent.ok() || !(absl::IsUnavailable(sent) || absl::IsDeadlineExceeded(sent))) break;
  }
  if (sent.ok()) {
    if (!kept.empty()) {
      std::error_code error;
      std::filesystem::remove(kept, error);
    }
    return;
  }
  if (!kept.empty()) {
    options_.log.Warning("the scheduler did not take the last report (", sent.ToString(),
                         "); kept in ", kept.string(), " for the next start");
  } else {
    options_.log.Warning("the scheduler did not take the last report (", sent.ToString(),
                         "); its counters since the previous report are lost");
  }
}

scheduler::FetcherReport FetcherNode::Report() const {
  scheduler::FetcherReport report = Snapshot();
  absl::MutexLock lock(&mu_);
  for (const auto& [name, crawl] : crawls_) {
    if (crawl->spec_version != 0) {
      report.held.push_back({.name = name, .version = crawl->spec_version});
    }
  }
  return report;
}

std::optional<std::vector<scheduler::CollectionInfo>> FetcherNode::Resolve(
    const scheduler::FetcherReportReply& reply) const {
  std::vector<scheduler::CollectionInfo> out;
  absl::MutexLock lock(&mu_);
  for (const scheduler::FetcherCollection& c : reply.collections) {
    scheduler::CollectionInfo& info = out.emplace_back();
    info.state = c.state;
    info.create_time = c.create_time;
    if (c.definition.has_value()) {
      info.collection = *c.definition;
      continue;
    }
    auto it = crawls_.find(c.name);
    if (it == crawls_.end() || it->second->crawl == nullptr ||
        it->second->spec_version != c.definition_version) {
      return std::nullopt;
    }
    info.collection = it->second->crawl->collection();
  }
  return out;
}

void FetcherNode::Reconcile(const std::vector<scheduler::CollectionInfo>& collections,
                            const scheduler::FetcherReportReply& reply, absl::Time now) {
  absl::MutexLock lock(&mu_);
  if (reply.layout.has_value() && *reply.layout != layout_) {
    if (reply.layout->Span() > options_.partition_count) {
      // Frontiers this fetcher was not told of: it keeps routing as it did.
      if (!(*reply.layout == unreachable_layout_)) {
        options_.log.Error("the partition layout (", reply.layout->Describe(), ") spans ",
                           reply.layout->Span(), " partitions; only ", options_.partition_count,
                           " frontiers are configured");
        unreachable_layout_ = *reply.layout;
      }
    } else {
      options_.log.Info("partition layout ", reply.layout->epoch, ": ",
                        reply.layout->Describe());
      layout_ = *reply.layout;
    }
  }
  std::set<std::string> listed;
  for (const auto& [name, why] : reply.unreadable) {
    // Listed, so its counters stay; not startable by this build.
    listed.insert(name);
    auto it = crawls_.find(name);
    if (it == crawls_.end()) continue;
    Crawl& crawl = *it->second;
    if (crawl.running() && !crawl.done.load(std::memory_order_acquire)) crawl.fetcher->Stop();
    const std::string error = why.ToString();
    if (error != crawl.last_start_error) {
      options_.log.ForCollection(name).Error("cannot start: ", error);
    }
    crawl.last_start_error = error;
  }
  for (const scheduler::CollectionInfo& info : collections) {
    const std::string& name = info.collection.name;
    listed.insert(name);
    std::unique_ptr<Crawl>& slot = crawls_[name];
    if (slot != nullptr && slot->create_time != info.create_time) {
      // Deleted and created again: finish the old one first, then start afresh.
      if (slot->running() && !slot->done.load(std::memory_order_acquire)) {
        slot->fetcher->Stop();
        continue;
      }
      Reap(*slot);
      slot.reset();
      ForgetOutbox(name);
    }
    if (slot == nullptr) {
      slot = std::make_unique<Crawl>();
      slot->name = name;
      slot->create_time = info.create_time;
    }
    Crawl& crawl = *slot;
    if (crawl.running() && crawl.done.load(std::memory_order_acquire)) Reap(crawl);
    const bool active = info.state == scheduler::CollectionState::kActive;
    const bool changed = crawl.router != nullptr && crawl.crawl->collection() != info.collection;
    const bool rerouted = crawl.router != nullptr && NeedsNewRouter(crawl);
    if (crawl.running()) {
      if (!active || changed || rerouted) {
        options_.log.ForCollection(name).Info("stopping (",
                                              !active   ? "no longer active"
                                              : changed ? "settings changed"
                                                        : "partition layout changed",
                                              ")");
        crawl.fetcher->Stop();
      }
      continue;
    }
    if (!active) continue;
    if (crawl.ran_out && !changed && !rerouted) {
      // Idle since it ran out of work: start again only when a partition has work.
      if (now - crawl.last_idle_check < options_.idle_check_interval) continue;
      crawl.last_idle_check = now;
      absl::StatusOr<bool> exhausted = crawl.outbox != nullptr ? crawl.outbox->IsExhausted()
                                                               : crawl.router->IsExhausted();
      if (exhausted.ok() && *exhausted) continue;
    }
    if (absl::Status s = Start(crawl, info); !s.ok()) {
      const std::string error = s.ToString();
      if (error != crawl.last_start_error) {
        options_.log.ForCollection(name).Error("cannot start: ", error);
      }
      crawl.last_start_error = error;
    }
  }
  for (auto it = crawls_.begin(); it != crawls_.end();) {
    Crawl& crawl = *it->second;
    if (listed.contains(it->first)) {
      ++it;
      continue;
    }
    // Deleted: stop it, and forget it once its Fetcher has finished.
    if (crawl.running() && !crawl.done.load(std::memory_order_acquire)) {
      crawl.fetcher->Stop();
      ++it;
      continue;
    }
    Reap(crawl);
    const std::string name = it->first;
    it = crawls_.erase(it);
    ForgetOutbox(name);
  }
  // The versions of the definitions the crawls now hold, for the next report's `held`.
  for (const scheduler::FetcherCollection& c : reply.collections) {
    auto it = crawls_.find(c.name);
    if (it == crawls_.end() || !c.definition.has_value()) continue;
    Crawl& crawl = *it->second;
    crawl.spec_version = crawl.crawl != nullptr && crawl.crawl->collection() == *c.definition
                             ? c.definition_version
                             : 0;
  }
}

CollectionCrawlSettings FetcherNode::CrawlSettingsFor(const FetcherNodeOptions& options,
                                                      const scheduler::CollectionInfo& info,
                                                      dedup::DedupClient* dedup) {
  const std::string& name = info.collection.name;
  const uint32_t k = options.partition_index;
  CollectionCrawlSettings settings;
  settings.user_agent = options.user_agent;
  settings.fetcher = options.fetcher;
  settings.warc_dir = (std::filesystem::path(options.warc_dir) / name).string();
  settings.warc_prefix = absl::StrCat(name, "-p", k);
  settings.warc_description = absl::StrCat("collection ", name, ", partition ", k);
  settings.warc_max_file_bytes = options.warc_max_file_bytes;
  settings.fsync = options.fsync;
  settings.crawl_log = (std::filesystem::path(options.log_dir) / (name + ".log")).string();
  settings.links_file =
      (std::filesystem::path(options.links_dir) / absl::StrCat(name, "-p", k, ".tsv")).string();
  settings.log = options.log.ForCollection(name);
  settings.archive_indexed = options.archive_indexed;
  // Each external link counts once across every fetcher: the seen set is the dedup service's.
  // A collection deleted and created again under its name has a seen set of its own, named
  // "<name>@<seconds>.<nanoseconds>" of its creation time (the dedup service keeps the name).
  settings.links_shared = true;
  if (dedup != nullptr) {
    const int64_t seconds = absl::ToUnixSeconds(info.create_time);
    const int64_t nanos =
        (info.create_time - absl::FromUnixSeconds(seconds)) / absl::Nanoseconds(1);
    const std::string set = absl::StrCat(name, "@", seconds, ".", nanos);
    settings.mark_links_seen = [dedup, set](const std::vector<std::string>& keys) {
      return dedup->MarkLinksSeen(set, keys);
    };
  }
  return settings;
}

// Builds (or, for new settings, rebuilds) the collection's crawl and routed client, then starts
// a run: its WARC writer and a Fetcher on a thread of its own.
absl::Status FetcherNode::Start(Crawl& crawl, const scheduler::CollectionInfo& info) {
  const uint32_t k = options_.partition_index;
  if (k >= layout_.Span()) {
    return absl::FailedPreconditionError(absl::StrCat("partition ", k,
                                                      " is not in the partition layout (",
                                                      layout_.Describe(), ") yet"));
  }
  if (crawl.crawl == nullptr) {
    absl::StatusOr<std::unique_ptr<CollectionCrawl>> opened =
        CollectionCrawl::Open(info.collection, CrawlSettingsFor(options_, info, dedup_),
                              {.politeness = &politeness_,
                               .resolver = &resolver_,
                               .guard = &guard_,
                               .clock = &clock_,
                               .psl = &psl_,
                               .dedup = dedup_,
                               .metrics = options_.metrics});
    if (!opened.ok()) return opened.status();
    crawl.crawl = *std::move(opened);
  } else if (crawl.router != nullptr && crawl.crawl->collection() != info.collection) {
    if (absl::Status s = crawl.crawl->Reconfigure(info.collection); !s.ok()) return s;
    AddRouting(crawl.routing_folded, crawl.router->Routing());
    crawl.outbox.reset();  // before its router goes; the new one takes over its spools
    crawl.router.reset();
  }
  if (crawl.router != nullptr && NeedsNewRouter(crawl)) {
    // A reshard's flip: a router over the partitions the new layout spans.
    AddRouting(crawl.routing_folded, crawl.router->Routing());
    crawl.outbox.reset();
    crawl.router.reset();
  }
  if (crawl.router == nullptr) {
    std::vector<std::unique_ptr<frontier::FrontierClient>> partitions;
    std::vector<frontier::FrontierClient*> raw;
    for (uint32_t j = 0; j < layout_.Span(); ++j) {
      partitions.push_back(
          partitions_(j, info.collection.name, scheduler::CollectionGeneration(info.create_time)));
      raw.push_back(partitions.back().get());
    }
    absl::StatusOr<std::unique_ptr<frontier::RoutedFrontierClient>> router =
        frontier::RoutedFrontierClient::Create(options_.routing, raw, k);
    if (!router.ok()) return router.status();
    if (absl::Status s = (*router)->SetRoutingCount(layout_.count); !s.ok()) return s;
    crawl.router = *std::move(router);
    crawl.routed_by = layout_;
    crawl.partitions = std::move(partitions);
    if (absl::Status s = OpenOutbox(crawl); !s.ok()) return s;
  }
  std::random_device entropy;
  if (absl::Status s = crawl.crawl->OpenWarc((static_cast<uint64_t>(entropy()) << 32) ^ entropy());
      !s.ok()) {
    return s;
  }
  if (crawl.crawl->warc() != nullptr) {
    for (const warc::WarcWriter::Recovered& r : crawl.crawl->warc()->recovered()) {
      options_.log.ForCollection(info.collection.name).Info(r.Describe());
    }
  }
  frontier::FrontierClient& client =
      crawl.outbox != nullptr ? static_cast<frontier::FrontierClient&>(*crawl.outbox)
                              : *crawl.router;
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = crawl.crawl->NewFetcher(
      options_.fetcher, client, options_.partition_header ? static_cast<int>(k) : -1);
  if (!fetcher.ok()) {
    (void)crawl.crawl->CloseWarc();
    return fetcher.status();
  }
  crawl.fetcher = *std::move(fetcher);
  crawl.done.store(false, std::memory_order_release);
  crawl.ran_out = false;
  crawl.last_start_error.clear();
  Crawl* c = &crawl;
  crawl.thread = std::thread([c, k] {
    pthread_setname_np(pthread_self(), absl::StrCat("fetch-", k).substr(0, 15).c_str());
    c->result = c->fetcher->Run();
    c->done.store(true, std::memory_order_release);
  });
  options_.log.ForCollection(info.collection.name).Info("crawling (partition ", k, ")");
  return absl::OkStatus();
}

bool FetcherNode::NeedsNewRouter(const Crawl& crawl) const {
  // Outlinks go by the layout's count; the other steps of a reshard (the partitions it spans
  // growing or shrinking, the epoch) change nothing here, and a restart would stop the crawl
  // for nothing (and, with a partition away, drop completions its drain cannot hand over).
  return crawl.routed_by.count != layout_.count ||
         options_.partition_index >= crawl.router->partition_count();
}

void FetcherNode::ForgetOutbox(const std::string& collection) const {
  if (options_.outbox_dir.empty()) return;
  // What was kept for a deleted collection has nowhere to go.
  std::error_code error;
  std::filesystem::remove_all(std::filesystem::path(options_.outbox_dir) / collection, error);
}

absl::Status FetcherNode::OpenOutbox(Crawl& crawl) {
  if (options_.outbox_dir.empty()) return absl::OkStatus();
  OutlinkOutboxOptions outbox = options_.outbox;
  outbox.dir = (std::filesystem::path(options_.outbox_dir) / crawl.name).string();
  // One partition has no other to hand outlinks to, unless spools of an earlier layout wait.
  std::error_code error;
  if (crawl.router->partition_count() < 2 && !std::filesystem::exists(outbox.dir, error)) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<OutlinkOutbox>> opened = OutlinkOutbox::Create(
      outbox, *crawl.router, clock_, options_.log.ForCollection(crawl.name));
  if (!opened.ok()) return opened.status();
  crawl.outbox = *std::move(opened);
  return absl::OkStatus();
}

void FetcherNode::Reap(Crawl& crawl) {
  if (!crawl.running()) return;
  if (crawl.thread.joinable()) crawl.thread.join();
  AddFetcherStats(crawl.fetcher->Stats(), crawl.folded);
  // Gauges of a Fetcher that stopped: nothing is in flight or buffered any more.
  crawl.folded.in_flight = crawl.folded.buffered = crawl.folded.hosts = 0;
  crawl.folded.hosts_waiting = 0;
  absl::Status status = crawl.result;
  if (absl::Status closed = crawl.crawl->CloseWarc(); status.ok()) status = closed;
  crawl.fetcher.reset();
  crawl.ran_out = status.ok() && !stop_.HasBeenNotified();
  if (!status.ok()) {
    options_.log.ForCollection(crawl.name).Error("stopped: ", status.ToString());
  }
}

scheduler::FetcherReport FetcherNode::Snapshot() const {
  scheduler::FetcherReport report;
  report.partition = options_.partition_index;
  report.incarnation = incarnation_;
  report.start_time = start_time_;
  report.archive_address = options_.archive_address;
  report.archive_volume = options_.archive_volume;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, crawl] : crawls_) {
    scheduler::FetcherCollectionStats& c = report.collections.emplace_back();
    c.collection = name;
    c.generation = scheduler::CollectionGeneration(crawl->create_time);
    const CrawlTotals totals =
        crawl->crawl != nullptr ? crawl->crawl->stats().Totals() : CrawlTotals{};
    for (const auto& [outcome, count] : totals.outcomes) {
      std::optional<frontier::OutcomeClass> known = ClassNamed(outcome);
      if (known.has_value()) c.outcomes[*known] = count;
    }
    c.robots_denied = totals.robots_denied;
    c.duplicates = totals.duplicates;
    FetcherStats now = crawl->folded;
    if (crawl->running()) {
      const FetcherStats current = crawl->fetcher->Stats();
      AddFetcherStats(current, now);
      c.in_flight = current.in_flight;
    }
    c.requests_started = now.requests_started;
    c.leases_abandoned = now.abandoned;
    c.pages_rendered = now.pages_rendered;
    c.renders_cut = now.renders_cut;
    frontier::RoutingStats routing = crawl->routing_folded;
    if (crawl->router != nullptr) AddRouting(routing, crawl->router->Routing());
    c.urls_routed = routing.routed;
    c.urls_suppressed = routing.suppressed;
    routing.sent.resize(options_.partition_count);
    c.urls_sent = routing.sent;
  }
  return report;
}

FetcherSnapshot FetcherNode::MetricsSnapshot() const {
  FetcherSnapshot out;
  out.politeness = politeness_.Stats();
  frontier::RoutingStats routing;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, crawl] : crawls_) {
    AddFetcherStats(crawl->folded, out.fetcher);
    if (crawl->running()) AddFetcherStats(crawl->fetcher->Stats(), out.fetcher);
    if (crawl->crawl != nullptr && crawl->crawl->warc() != nullptr) {
      out.warc.push_back(crawl->crawl->warc_totals());
    }
    if (crawl->crawl != nullptr) {
      if (std::optional<browser::BrowserStats> b = crawl->crawl->browser_totals(); b.has_value()) {
        AddBrowserStats(*b, out.browser.has_value() ? *out.browser : out.browser.emplace());
      }
    }
    AddRouting(routing, crawl->routing_folded);
    if (crawl->router != nullptr) AddRouting(routing, crawl->router->Routing());
    if (crawl->outbox != nullptr) {
      const OutboxStats o = crawl->outbox->Outbox();
      OutboxStats& sum = out.outbox.has_value() ? *out.outbox : out.outbox.emplace();
      sum.held_urls += o.held_urls;
      sum.held_bytes += o.held_bytes;
      // The same partition is unreachable for every collection: the most, not the sum.
      sum.partitions_unreachable = std::max(sum.partitions_unreachable, o.partitions_unreachable);
      sum.urls_kept += o.urls_kept;
      sum.urls_delivered_late += o.urls_delivered_late;
      sum.outages += o.outages;
    }
  }
  routing.home = options_.partition_index;
  routing.sent.resize(options_.partition_count);
  out.routing = std::move(routing);
  return out;
}

std::vector<std::string> FetcherNode::Running() const {
  std::vector<std::string> names;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, crawl] : crawls_) {
    if (crawl->running() && !crawl->done.load(std::memory_order_acquire)) names.push_back(name);
  }
  return names;
}

}  // namespace crawler::fetcher
