#include "services/fetcher/grpc/fetcher_server.h"

#include <pthread.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/net/address_policy.h"
#include "lib/net/ip_address.h"
#include "services/common/grpc/call_auth.h"
#include "services/common/grpc/channel.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/metrics/snapshot_collector.h"
#include "services/common/politeness/politeness_keys.h"
#include "services/dedup/grpc/grpc_dedup_client.h"
#include "services/fetcher/archive_file_store.h"
#include "services/fetcher/fetcher_config.h"
#include "services/fetcher/grpc/archive_files_service.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/grpc/grpc_frontier_client.h"
#include "services/scheduler/grpc/grpc_scheduler_client.h"

namespace crawler::fetcher {

FetcherServerConfig::FetcherServerConfig() {
  common.listen = "127.0.0.1:50053";
  // Hand-overs to the frontiers are RPCs here: half a second of a fetcher's outcomes and
  // outlinks per call keeps them to a few per thousand pages (the standalone crawl's 50 ms
  // costs nothing in one process).
  fetcher.flush_interval = absl::Milliseconds(500);
  // Likewise for leases: a frontier with nothing (more) ready is asked again after a pause.
  fetcher.lease_pause_empty = absl::Milliseconds(250);
  fetcher.lease_pause_partial = absl::Milliseconds(100);
  // And for batches: a hand-over of up to 4,096 outcomes and outlinks (one call per
  // destination, routing.max_batch_urls below), dedup checks of up to 64 pages.
  fetcher.flush_batch = 4096;
  fetcher.worker_batch = 64;
}

absl::Status FetcherServerConfig::Validate() const {
  if (absl::Status s = common.Validate(); !s.ok()) return s;
  if (absl::Status s = peers.Validate(); !s.ok()) return s;
  if (absl::Status s = politeness_store.Validate(); !s.ok()) return s;
  if (frontiers.empty()) {
    return absl::InvalidArgumentError("frontiers: list every frontier partition's HOST:PORT");
  }
  for (size_t k = 0; k < frontiers.size(); ++k) {
    if (absl::Status s =
            service::ValidateHostPort(absl::StrCat("frontiers[", k, "]"), frontiers[k]);
        !s.ok()) {
      return s;
    }
  }
  if (partition_index >= frontiers.size()) {
    return absl::InvalidArgumentError(absl::StrCat("partition_index ", partition_index,
                                                   " is not below the number of frontiers (",
                                                   frontiers.size(), ")"));
  }
  if (absl::Status s = service::ValidateHostPort("scheduler", scheduler); !s.ok()) return s;
  if (!dedup.empty()) {
    if (absl::Status s = service::ValidateHostPort("dedup", dedup); !s.ok()) return s;
  }
  if (data_dir.empty()) return absl::InvalidArgumentError("data_dir is required");
  if (user_agent.empty()) return absl::InvalidArgumentError("user_agent must not be empty");
  if (warc_max_file_bytes < 4096) {
    return absl::InvalidArgumentError("warc_max_file_bytes must be >= 4096");
  }
  if (report_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("report_interval must be > 0");
  }
  for (const std::string& cidr : allow_networks) {
    if (absl::Status s = net::CidrBlock::Parse(cidr).status(); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("allow_networks: ", s.message()));
    }
  }
  if (absl::Status s = politeness.Validate(); !s.ok()) return s;
  return fetcher.Validate();
}

const config::KeyTable<FetcherServerConfig>& FetcherServerKeys() {
  using C = FetcherServerConfig;
  static const auto* const table = [] {
    auto* t = new config::KeyTable<C>;
    t->Include(service::ServiceCommonKeys(), &C::common)
        .Include(service::PeerKeys(), &C::peers)
        .Add({"partition_index", "--partition", "The partition this fetcher serves (0..N-1)"},
             &C::partition_index)
        .Add({"frontiers", "--frontier",
              "Frontier partition k's HOST:PORT, in partition order (repeatable)", "required"},
             &C::frontiers)
        .Add({"scheduler", "--scheduler", "The scheduler's internal HOST:PORT", "required"},
             &C::scheduler)
        .Add({"dedup", "--dedup", "The dedup service's HOST:PORT (empty: no dedup)"}, &C::dedup)
        .Add({"data_dir", "--data-dir", "Crawl logs (DATA_DIR/logs) and default WARC directory",
              "required"},
             &C::data_dir)
        .Add({"warc_dir", "--warc-dir", "WARC output directory (a subdirectory per collection)",
              "DATA_DIR/warc"},
             &C::warc_dir)
        .Add({"warc_max_file_bytes", "--warc-max-file-bytes", "Rotate WARC files at this size"},
             &C::warc_max_file_bytes)
        .Add({"fsync", "--no-fsync",
              "fsync WARC records before a page counts as done (its completion is sent)"},
             &C::fsync)
        .Add({"user_agent", "--user-agent", "User-Agent (its first token matches robots.txt)"},
             &C::user_agent)
        .Add({"allow_networks", "--allow-network",
              "CIDR the SSRF guard lets through (repeatable), e.g. 127.0.0.0/8"},
             &C::allow_networks)
        .Add({"partition_header", "--partition-header",
              "Send each request's partition as X-Crawler-Partition (to check partitioning)"},
             &C::partition_header)
        .Add({"popular_cache_entries", "--popular-cache-entries",
              "Outlinks remembered as sent, dropped when found again (0: no cache)"},
             &C::popular_cache_entries)
        .Add({"report_interval", "--report-interval",
              "Time between reports to the scheduler (its reply may set another)"},
             &C::report_interval)
        .Include(politeness::PolitenessKeys(), &C::politeness)
        .Include(politeness::PolitenessStoreKeys(), &C::politeness_store)
        .Include(FetcherKeys(), &C::fetcher);
    return t;
  }();
  return *table;
}

FetcherServer::FetcherServer() = default;
FetcherServer::~FetcherServer() { Close().IgnoreError(); }

absl::StatusOr<std::unique_ptr<FetcherServer>> FetcherServer::Start(
    const FetcherServerConfig& config, metrics::MetricsServer* metrics, const Logger& log) {
  if (absl::Status s = config.Validate(); !s.ok()) return s;
  std::unique_ptr<FetcherServer> server(new FetcherServer);
  FetcherServer& s = *server;
  absl::StatusOr<std::string> token = config.common.InternalToken();
  if (!token.ok()) return token.status();
  const grpc_common::ChannelOptions channel = config.peers.Channel(*token);
  for (const std::string& target : config.frontiers) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> c = grpc_common::MakeChannel(target, channel);
    if (!c.ok()) return c.status();
    s.frontier_channels_.push_back(*std::move(c));
  }
  if (!config.dedup.empty()) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> c =
        grpc_common::MakeChannel(config.dedup, channel);
    if (!c.ok()) return c.status();
    s.dedup_ = std::make_unique<dedup::GrpcDedupClient>(
        *std::move(c), dedup::GrpcDedupClientOptions{.call_timeout = config.peers.rpc_deadline});
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> scheduler =
      grpc_common::MakeChannel(config.scheduler, channel);
  if (!scheduler.ok()) return scheduler.status();
  s.scheduler_ = std::make_unique<scheduler::GrpcSchedulerClient>(*std::move(scheduler),
                                                                  config.peers.rpc_deadline);
  std::random_device entropy;
  absl::StatusOr<std::unique_ptr<politeness::Politeness>> politeness =
      politeness::OpenPolitenessStore(config.politeness_store, config.politeness,
                                      config.fetcher.http.total_timeout, s.clock_,
                                      (static_cast<uint64_t>(entropy()) << 32) ^ entropy(), log);
  if (!politeness.ok()) return politeness.status();
  s.politeness_ = *std::move(politeness);
  s.resolver_ = std::make_unique<SystemResolver>();
  absl::StatusOr<net::AddressPolicy> guard = net::AddressPolicy::Create(config.allow_networks);
  if (!guard.ok()) return guard.status();
  s.guard_ = std::make_unique<net::AddressPolicy>(*std::move(guard));

  const std::filesystem::path data(config.data_dir);
  FetcherNodeOptions node;
  node.partition_index = config.partition_index;
  node.partition_count = static_cast<uint32_t>(config.frontiers.size());
  node.fetcher = config.fetcher;
  if (metrics != nullptr) {
    s.fetcher_metrics_ = std::make_unique<FetcherMetrics>(metrics->registry());
    node.metrics = s.fetcher_metrics_.get();
  }
  node.user_agent = config.user_agent;
  node.warc_dir = config.warc_dir.empty() ? (data / "warc").string() : config.warc_dir;
  node.log_dir = (data / "logs").string();
  node.links_dir = (data / "links").string();
  node.reports_dir = (data / "reports").string();
  node.outbox_dir = (data / "outbox").string();
  node.warc_max_file_bytes = config.warc_max_file_bytes;
  node.fsync = config.fsync;
  node.partition_header = config.partition_header;
  node.routing.popular_cache_entries = config.popular_cache_entries;
  node.routing.max_batch_urls = config.fetcher.flush_batch;
  node.report_interval = config.report_interval;
  node.log = log;
  // The archive files are served before the node exists: the scheduler reaches them at the
  // reports' own address, on this port, and knows the fetcher by the volume they are on.
  s.archive_files_ = std::make_unique<ArchiveFileStore>(node.warc_dir);
  const std::set<std::string> scheduler_role = {"scheduler"};
  s.archive_auth_ = std::make_unique<grpc_common::CallAuth>(
      grpc_common::CallAuthOptions{
          .token = *token,
          .roles = {{"ListArchiveFiles", scheduler_role}, {"ReadArchiveFile", scheduler_role}}},
      s.clock_, log);
  s.archive_service_ =
      std::make_unique<ArchiveFilesService>(*s.archive_files_, s.archive_auth_.get());
  absl::StatusOr<std::unique_ptr<grpc_server::ServerRunner>> runner =
      grpc_server::ServerRunner::Start(
          {.name = "fetcher",
           .log = log,
           .endpoints = {config.common.InternalEndpoint({s.archive_service_.get()})},
           .interceptors = metrics::RpcInterceptors(metrics, "fetcher")});
  if (!runner.ok()) return runner.status();
  s.runner_ = *std::move(runner);
  absl::StatusOr<std::string> volume = ArchiveVolumeId(config.data_dir);
  if (!volume.ok()) return volume.status();
  node.archive_address = absl::StrCat(":", s.runner_->Port(0));
  node.archive_volume = *std::move(volume);
  // Digests now, while the files are in the page cache: a listing then reads no file.
  node.archive_indexed = [store = s.archive_files_.get()](const std::string& warc,
                                                          const std::string& cdxj) {
    store->Warm(warc).IgnoreError();
    store->Warm(cdxj).IgnoreError();
  };
  const std::vector<std::shared_ptr<grpc::Channel>>* channels = &s.frontier_channels_;
  const absl::Duration deadline = config.peers.rpc_deadline;
  absl::StatusOr<std::unique_ptr<FetcherNode>> created = FetcherNode::Create(
      node,
      [channels, deadline](uint32_t k, const std::string& collection, uint64_t generation)
          -> std::unique_ptr<frontier::FrontierClient> {
        return std::make_unique<frontier::GrpcFrontierClient>(
            (*channels)[k], collection, frontier::GrpcFrontierClientOptions{.deadline = deadline},
            generation);
      },
      *s.scheduler_, s.codec_, s.dedup_.get(), *s.politeness_, *s.resolver_, *s.guard_, s.clock_);
  if (!created.ok()) return created.status();
  s.node_ = *std::move(created);
  s.collector_ = metrics::ScopedCollector(metrics, [node = s.node_.get()] {
    metrics::SnapshotFamilies out;
    AppendFetcherSnapshot(node->MetricsSnapshot(), out);
    return out.Take();
  });
  FetcherNode* n = s.node_.get();
  s.node_thread_ = std::thread([n, log] {
    pthread_setname_np(pthread_self(), "fetcher-node");
    if (absl::Status status = n->Run(); !status.ok()) log.Error(status.ToString());
  });
  return server;
}

void FetcherServer::Stop() {
  if (node_ != nullptr) node_->Stop();
  if (node_thread_.joinable()) node_thread_.join();
}

absl::Status FetcherServer::Close() {
  Stop();
  if (runner_ != nullptr) runner_->Shutdown(absl::ZeroDuration());
  collector_.Reset();
  runner_.reset();
  node_.reset();
  return absl::OkStatus();
}

}  // namespace crawler::fetcher
