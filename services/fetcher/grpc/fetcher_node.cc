#include "services/fetcher/grpc/fetcher_node.h"

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
#include "google/protobuf/util/message_differencer.h"
#include "lib/warc/warc_writer.h"
#include "services/fetcher/link_ledger.h"
#include "services/frontier/grpc/frontier_convert.h"
#include "services/frontier/routed_frontier_client.h"
#include "services/frontier/url_record.h"
#include "services/scheduler/grpc/collection_convert.h"
#include "services/scheduler/scheduler.h"
#include "grpcpp/client_context.h"
#include "services/common/grpc/proto_convert.h"
#include "services/common/atomic_file.h"
#include "services/common/grpc/status.h"
#include "services/standalone/crawl_report.h"
#include "services/wiring/collection_options.h"

namespace crawler::fetcher {
namespace {

// Kept last reports: reports_dir/<incarnation>.binpb (a serialized ReportFetcherStatsRequest).
constexpr char kReportExtension[] = ".binpb";

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

void AddRouting(frontier::RoutingStats& into, const frontier::RoutingStats& more) {
  into.routed += more.routed;
  into.suppressed += more.suppressed;
  into.batches += more.batches;
  if (into.sent.size() < more.sent.size()) into.sent.resize(more.sent.size());
  for (size_t j = 0; j < more.sent.size(); ++j) into.sent[j] += more.sent[j];
}

}  // namespace

GrpcSchedulerLink::GrpcSchedulerLink(std::shared_ptr<grpc::Channel> channel,
                                     absl::Duration deadline)
    : stub_(v1::SchedulerInternal::NewStub(std::move(channel))), deadline_(deadline) {}

GrpcSchedulerLink::~GrpcSchedulerLink() = default;

absl::StatusOr<v1::ReportFetcherStatsResponse> GrpcSchedulerLink::Report(
    const v1::ReportFetcherStatsRequest& request) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline_));
  v1::ReportFetcherStatsResponse response;
  grpc::Status status = stub_->ReportFetcherStats(&context, request, &response);
  if (!status.ok()) return grpc_common::FromGrpcStatus(status);
  return response;
}

struct FetcherNode::Crawl {
  std::string name;
  // When the collection was created: a collection deleted and created again under the same
  // name is another collection, whose counters start from zero.
  google::protobuf::Timestamp create_time;
  // Kept for the life of the process (counters are cumulative per incarnation).
  std::unique_ptr<standalone::CrawlLog> log;
  standalone::CrawlStats stats;
  standalone::ObserverList observers;
  FetcherStats folded;                  // finished Fetchers' counters
  FetcherSnapshot::Warc warc_folded;    // closed WARC writers' records and bytes
  frontier::RoutingStats routing_folded;  // replaced routers' counters
  // Built from `spec`; kept between runs so that an idle collection can be asked for work.
  v1::Collection spec;
  uint64_t spec_version = 0;  // FetcherCollection.definition_version of `spec`; 0: unknown
  std::unique_ptr<scheduler::Scheduler> core;
  std::vector<std::unique_ptr<frontier::FrontierClient>> partitions;
  std::unique_ptr<frontier::RoutedFrontierClient> router;
  // Over `router`, with more than one partition; the Fetcher's client then (null: the router).
  std::unique_ptr<OutlinkOutbox> outbox;
  // With record_links or focus: the collection's links on this fetcher (kept between runs).
  std::unique_ptr<LinkLedger> links;
  // The current run.
  std::unique_ptr<warc::WarcWriter> warc;
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
                         SchedulerLink& scheduler, dedup::DedupClient* dedup,
                         politeness::Politeness& politeness, Resolver& resolver,
                         const net::AddressPolicy& guard, const Clock& clock)
    : options_(options),
      partitions_(std::move(partitions)),
      scheduler_(scheduler),
      dedup_(dedup),
      politeness_(politeness),
      resolver_(resolver),
      guard_(guard),
      clock_(clock),
      incarnation_(NewIncarnation()),
      start_time_(clock.Now()) {}

FetcherNode::~FetcherNode() {
  Stop();
  absl::MutexLock lock(&mu_);
  for (auto& [name, crawl] : crawls_) {
    if (crawl->thread.joinable()) crawl->thread.join();
  }
}

absl::StatusOr<std::unique_ptr<FetcherNode>> FetcherNode::Create(
    const FetcherNodeOptions& options, PartitionClientFactory partitions,
    SchedulerLink& scheduler, dedup::DedupClient* dedup, politeness::Politeness& politeness,
    Resolver& resolver, const net::AddressPolicy& guard, const Clock& clock) {
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
  return std::unique_ptr<FetcherNode>(new FetcherNode(options, std::move(partitions), scheduler,
                                                      dedup, politeness, resolver, guard, clock));
}

void FetcherNode::Stop() { if (!stop_.HasBeenNotified()) stop_.Notify(); }

absl::Status FetcherNode::Run() {
  absl::Duration interval = options_.report_interval;
  bool scheduler_down = false;
  bool kept_sent = false;
  while (true) {
    absl::StatusOr<v1::ReportFetcherStatsResponse> reply = scheduler_.Report(Report());
    if (reply.ok()) {
      if (scheduler_down) {
        std::fprintf(stderr, "fetcher %u: scheduler reachable again\n", options_.partition_index);
      }
      scheduler_down = false;
      if (!kept_sent) {
        SendKeptReports();
        kept_sent = true;
      }
      if (reply->has_report_interval()) {
        absl::StatusOr<absl::Duration> asked =
            grpc_common::DurationFromProto(reply->report_interval(), "report_interval");
        if (asked.ok() && *asked > absl::ZeroDuration()) interval = *asked;
      }
      const std::optional<std::vector<v1::CollectionInfo>> collections = Resolve(*reply);
      if (!collections.has_value()) {
        // Not expected (the reply leaves out only what the report said is held): ask for every
        // definition next time.
        absl::MutexLock lock(&mu_);
        for (auto& [name, crawl] : crawls_) crawl->spec_version = 0;
      } else if (!stop_.HasBeenNotified()) {
        Reconcile(*collections, *reply, clock_.Now());
      }
    } else if (!scheduler_down) {
      // Once per outage: the node keeps crawling what it crawls and asks again later.
      scheduler_down = true;
      std::fprintf(stderr, "fetcher %u: scheduler unreachable (%s); crawling on, retrying\n",
                   options_.partition_index, reply.status().ToString().c_str());
    }
    if (stop_.WaitForNotificationWithTimeout(interval)) break;
  }
  // Drain: every Fetcher finishes its transfers in flight and hands back its other leases.
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
    v1::ReportFetcherStatsRequest report;
    absl::Status sent = absl::OkStatus();
    if (!bytes.ok()) {
      sent = bytes.status();
    } else if (!report.ParseFromString(*bytes) || report.incarnation().empty()) {
      sent = absl::DataLossError("not a fetcher report");
    } else if (report.incarnation() == incarnation_) {
      continue;
    } else {
      sent = scheduler_.Report(report).status();
      // Unreachable: the next start (or the next report round of this one) tries again.
      if (absl::IsUnavailable(sent) || absl::IsDeadlineExceeded(sent)) return;
    }
    if (sent.ok()) {
      std::fprintf(stderr, "fetcher %u: sent incarnation %s's last report, kept in %s\n",
                   options_.partition_index, report.incarnation().c_str(), path.c_str());
    } else {
      std::fprintf(stderr, "fetcher %u: dropping the kept report %s: %s\n",
                   options_.partition_index, path.c_str(), sent.ToString().c_str());
    }
    std::filesystem::remove(path, error);
  }
}

void FetcherNode::SendLastReport() {
  const v1::ReportFetcherStatsRequest last = Snapshot();
  std::filesystem::path kept;
  if (!options_.reports_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options_.reports_dir, error);
    const std::filesystem::path path =
        std::filesystem::path(options_.reports_dir) / (incarnation_ + kReportExtension);
    if (absl::Status s = WriteFileAtomically(path, last.SerializeAsString()); s.ok()) {
      kept = path;
    } else {
      std::fprintf(stderr, "fetcher %u: cannot keep the last report: %s\n",
                   options_.partition_index, s.ToString().c_str());
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
    std::fprintf(stderr,
                 "fetcher %u: the scheduler did not take the last report (%s); kept in %s for "
                 "the next start\n",
                 options_.partition_index, sent.ToString().c_str(), kept.c_str());
  } else {
    std::fprintf(stderr, "fetcher %u: the scheduler did not take the last report (%s); its "
                         "counters since the previous report are lost\n",
                 options_.partition_index, sent.ToString().c_str());
  }
}

v1::ReportFetcherStatsRequest FetcherNode::Report() const {
  v1::ReportFetcherStatsRequest report = Snapshot();
  absl::MutexLock lock(&mu_);
  for (const auto& [name, crawl] : crawls_) {
    if (crawl->spec_version == 0) continue;
    v1::HeldDefinition* held = report.add_held();
    held->set_name(name);
    held->set_version(crawl->spec_version);
  }
  return report;
}

std::optional<std::vector<v1::CollectionInfo>> FetcherNode::Resolve(
    const v1::ReportFetcherStatsResponse& reply) const {
  std::vector<v1::CollectionInfo> out;
  absl::MutexLock lock(&mu_);
  for (const v1::FetcherCollection& c : reply.collections()) {
    v1::CollectionInfo& info = out.emplace_back();
    info.set_state(c.state());
    *info.mutable_create_time() = c.create_time();
    if (c.has_definition()) {
      *info.mutable_collection() = c.definition();
      continue;
    }
    auto it = crawls_.find(c.name());
    if (it == crawls_.end() || it->second->spec_version != c.definition_version()) {
      return std::nullopt;
    }
    *info.mutable_collection() = it->second->spec;
  }
  return out;
}

void FetcherNode::Reconcile(const std::vector<v1::CollectionInfo>& collections,
                            const v1::ReportFetcherStatsResponse& reply, absl::Time now) {
  absl::MutexLock lock(&mu_);
  std::set<std::string> listed;
  for (const v1::CollectionInfo& info : collections) {
    const std::string& name = info.collection().name();
    listed.insert(name);
    std::unique_ptr<Crawl>& slot = crawls_[name];
    if (slot != nullptr && !google::protobuf::util::MessageDifferencer::Equals(
                               slot->create_time, info.create_time())) {
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
      slot->create_time = info.create_time();
    }
    Crawl& crawl = *slot;
    if (crawl.running() && crawl.done.load(std::memory_order_acquire)) Reap(crawl);
    const bool active = info.state() == v1::COLLECTION_STATE_ACTIVE;
    const bool changed = crawl.router != nullptr &&
                         !google::protobuf::util::MessageDifferencer::Equals(crawl.spec,
                                                                             info.collection());
    if (crawl.running()) {
      if (!active || changed) {
        std::fprintf(stderr, "fetcher %u: stopping collection %s (%s)\n",
                     options_.partition_index, name.c_str(),
                     !active ? "no longer active" : "settings changed");
        crawl.fetcher->Stop();
      }
      continue;
    }
    if (!active) continue;
    if (crawl.ran_out && !changed) {
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
        std::fprintf(stderr, "fetcher %u: cannot start collection %s: %s\n",
                     options_.partition_index, name.c_str(), error.c_str());
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
  for (const v1::FetcherCollection& c : reply.collections()) {
    auto it = crawls_.find(c.name());
    if (it == crawls_.end() || !c.has_definition()) continue;
    Crawl& crawl = *it->second;
    crawl.spec_version =
        google::protobuf::util::MessageDifferencer::Equals(crawl.spec, c.definition())
            ? c.definition_version()
            : 0;
  }
}

absl::Status FetcherNode::Start(Crawl& crawl, const v1::CollectionInfo& info) {
  absl::StatusOr<scheduler::Collection> collection =
      scheduler::FromProto(info.collection(), "collection");
  if (!collection.ok()) return collection.status();
  const uint32_t k = options_.partition_index;
  if (crawl.router == nullptr ||
      !google::protobuf::util::MessageDifferencer::Equals(crawl.spec, info.collection())) {
    absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> core =
        scheduler::Scheduler::Create(*collection, {});
    if (!core.ok()) return core.status();
    std::vector<std::unique_ptr<frontier::FrontierClient>> partitions;
    std::vector<frontier::FrontierClient*> raw;
    for (uint32_t j = 0; j < options_.partition_count; ++j) {
      partitions.push_back(
          partitions_(j, collection->name, scheduler::GenerationOf(info.create_time())));
      raw.push_back(partitions.back().get());
    }
    absl::StatusOr<std::unique_ptr<frontier::RoutedFrontierClient>> router =
        frontier::RoutedFrontierClient::Create(options_.routing, raw, k);
    if (!router.ok()) return router.status();
    if (crawl.router != nullptr) AddRouting(crawl.routing_folded, crawl.router->Routing());
    crawl.links.reset();  // reopened below if the new settings record links
    crawl.outbox.reset();  // before its router goes; the new one takes over its spools
    crawl.core = *std::move(core);
    crawl.router = *std::move(router);
    if (absl::Status s = OpenOutbox(crawl); !s.ok()) return s;
    crawl.partitions = std::move(partitions);
    crawl.spec = info.collection();
  }
  if (crawl.log == nullptr) {
    std::error_code ec;
    std::filesystem::create_directories(options_.log_dir, ec);
    absl::StatusOr<std::unique_ptr<standalone::CrawlLog>> log = standalone::CrawlLog::Open(
        (std::filesystem::path(options_.log_dir) / (collection->name + ".log")).string());
    if (!log.ok()) return log.status();
    crawl.log = *std::move(log);
    crawl.observers.Add(crawl.log.get());
    crawl.observers.Add(&crawl.stats);
    if (options_.metrics != nullptr) {
      crawl.observers.Add(&options_.metrics->ForCollection(collection->name));
    }
  }
  if ((collection->record_links || collection->focus.enabled()) && crawl.links == nullptr) {
    if (absl::Status s = OpenLinks(crawl, *collection, info); !s.ok()) return s;
  }
  if (collection->store_bodies) {
    const std::filesystem::path dir = std::filesystem::path(options_.warc_dir) / collection->name;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return absl::UnavailableError(
          absl::StrCat("cannot create WARC directory ", dir.string(), ": ", ec.message()));
    }
    std::random_device entropy;
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> warc = warc::WarcWriter::Open(
        {.directory = dir.string(),
         .prefix = absl::StrCat(collection->name, "-p", k),
         .max_file_bytes = options_.warc_max_file_bytes,
         .description = absl::StrCat("collection ", collection->name, ", partition ", k),
         .http_header_user_agent = options_.user_agent,
         .robots_policy = options_.fetcher.obey_robots ? "obey" : "ignore"},
        clock_, (static_cast<uint64_t>(entropy()) << 32) ^ entropy());
    if (!warc.ok()) return warc.status();
    crawl.warc = *std::move(warc);
    for (const warc::WarcWriter::Recovered& r : crawl.warc->recovered()) {
      std::fprintf(stderr, "fetcher %u: %s\n", k, r.Describe().c_str());
    }
  }
  FetcherOptions fetcher_options =
      wiring::FetcherOptionsFor(options_.fetcher, *collection, options_.user_agent,
                                options_.partition_header ? static_cast<int>(k) : -1);
  fetcher_options.processing.link_sink = crawl.links.get();
  frontier::FrontierClient& client =
      crawl.outbox != nullptr ? static_cast<frontier::FrontierClient&>(*crawl.outbox)
                              : *crawl.router;
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Fetcher::Create(
      fetcher_options, client, collection->fingerprints ? dedup_ : nullptr, politeness_,
      resolver_, guard_, crawl.core->scope(), crawl.warc.get(), clock_, &crawl.observers);
  if (!fetcher.ok()) {
    if (crawl.warc != nullptr) (void)crawl.warc->Close();
    crawl.warc.reset();
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
  std::fprintf(stderr, "fetcher %u: crawling collection %s\n", k, collection->name.c_str());
  return absl::OkStatus();
}

void FetcherNode::ForgetOutbox(const std::string& collection) const {
  if (options_.outbox_dir.empty()) return;
  // What was kept for a deleted collection has nowhere to go.
  std::error_code error;
  std::filesystem::remove_all(std::filesystem::path(options_.outbox_dir) / collection, error);
}

absl::Status FetcherNode::OpenOutbox(Crawl& crawl) {
  if (options_.partition_count < 2 || options_.outbox_dir.empty()) return absl::OkStatus();
  OutlinkOutboxOptions outbox = options_.outbox;
  outbox.dir = (std::filesystem::path(options_.outbox_dir) / crawl.name).string();
  absl::StatusOr<std::unique_ptr<OutlinkOutbox>> opened = OutlinkOutbox::Create(
      outbox, *crawl.router, clock_,
      [k = options_.partition_index, name = crawl.name](const std::string& line) {
        std::fprintf(stderr, "fetcher %u: collection %s: %s\n", k, name.c_str(), line.c_str());
      });
  if (!opened.ok()) return opened.status();
  crawl.outbox = *std::move(opened);
  return absl::OkStatus();
}

absl::Status FetcherNode::OpenLinks(Crawl& crawl, const scheduler::Collection& collection,
                                    const v1::CollectionInfo& info) {
  const bool by_host = collection.focus.external == "host";
  if (!by_host && psl_ == nullptr) {
    absl::StatusOr<url::PublicSuffixList> psl = url::PublicSuffixList::LoadDefault();
    if (!psl.ok()) return psl.status();
    psl_ = std::make_unique<url::PublicSuffixList>(*std::move(psl));
  }
  LinkLedger::MarkSeen shared;
  if (dedup_ != nullptr) {
    // A collection deleted and created again under its name has a seen set of its own.
    const std::string set = absl::StrCat(collection.name, "@", info.create_time().seconds(), ".",
                                         info.create_time().nanos());
    shared = [dedup = dedup_, set](const std::vector<std::string>& keys) {
      return dedup->MarkLinksSeen(set, keys);
    };
  } else if (collection.focus.enabled()) {
    return absl::FailedPreconditionError(
        "a focused collection needs the dedup service (the fetcher's `dedup` key): it holds the "
        "links seen by every fetcher, so that each counts once");
  }
  std::error_code ec;
  std::filesystem::create_directories(options_.links_dir, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", options_.links_dir, ": ", ec.message()));
  }
  const std::string path = (std::filesystem::path(options_.links_dir) /
                            absl::StrCat(collection.name, "-p", options_.partition_index, ".tsv"))
                               .string();
  absl::StatusOr<std::unique_ptr<LinkLedger>> links =
      LinkLedger::Open(path, by_host ? nullptr : psl_.get(), by_host, std::move(shared));
  if (!links.ok()) return links.status();
  crawl.links = *std::move(links);
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
  if (crawl.warc != nullptr) {
    absl::Status closed = crawl.warc->Close();
    if (status.ok()) status = closed;
    crawl.warc_folded.records += crawl.warc->RecordsWritten();
    crawl.warc_folded.bytes += crawl.warc->BytesWritten();
  }
  crawl.warc.reset();
  crawl.fetcher.reset();
  crawl.ran_out = status.ok() && !stop_.HasBeenNotified();
  if (!status.ok()) {
    std::fprintf(stderr, "fetcher %u: collection %s stopped: %s\n", options_.partition_index,
                 crawl.name.c_str(), status.ToString().c_str());
  }
}

v1::ReportFetcherStatsRequest FetcherNode::Snapshot() const {
  v1::ReportFetcherStatsRequest report;
  report.set_partition(options_.partition_index);
  report.set_incarnation(incarnation_);
  *report.mutable_start_time() = grpc_common::TimeToProto(start_time_);
  absl::MutexLock lock(&mu_);
  for (const auto& [name, crawl] : crawls_) {
    v1::FetcherCollectionStats* c = report.add_collections();
    c->set_collection(name);
    c->set_generation(scheduler::GenerationOf(crawl->create_time));
    const standalone::CrawlTotals totals = crawl->stats.Totals();
    for (const auto& [outcome, count] : totals.outcomes) {
      std::optional<frontier::OutcomeClass> known = ClassNamed(outcome);
      if (!known.has_value()) continue;
      v1::OutcomeCount* o = c->add_outcomes();
      o->set_outcome(frontier::ToProto(*known));
      o->set_count(count);
    }
    c->set_robots_denied(totals.robots_denied);
    c->set_duplicates(totals.duplicates);
    FetcherStats now = crawl->folded;
    if (crawl->running()) {
      const FetcherStats current = crawl->fetcher->Stats();
      now.requests_started += current.requests_started;
      now.abandoned += current.abandoned;
      c->set_in_flight(current.in_flight);
    }
    c->set_requests_started(now.requests_started);
    c->set_leases_abandoned(now.abandoned);
    frontier::RoutingStats routing = crawl->routing_folded;
    if (crawl->router != nullptr) AddRouting(routing, crawl->router->Routing());
    c->set_urls_routed(routing.routed);
    c->set_urls_suppressed(routing.suppressed);
    routing.sent.resize(options_.partition_count);
    for (uint64_t sent : routing.sent) c->add_urls_sent(sent);
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
    FetcherSnapshot::Warc warc = crawl->warc_folded;
    if (crawl->warc != nullptr) {
      warc.records += crawl->warc->RecordsWritten();
      warc.bytes += crawl->warc->BytesWritten();
    }
    if (warc.records > 0 || crawl->warc != nullptr) {
      warc.collection = name;
      out.warc.push_back(std::move(warc));
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
