#include "services/frontier/grpc/frontier_server.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/metrics/snapshot_collector.h"
#include "services/common/periodic_runner.h"
#include "services/frontier/frontier_config.h"
#include "services/frontier/frontier_metrics.h"
#include "services/frontier/grpc/frontier_host.h"
#include "services/frontier/grpc/frontier_service.h"
#include "services/frontier/lease_reaper.h"

namespace crawler::frontier {

FrontierServerConfig::FrontierServerConfig() {
  common.listen = "127.0.0.1:50050";
  // Fetchers outlive a restarted frontier: their completions of leases it handed out are taken.
  frontier.restored_lease_grace = absl::Seconds(15);
}

absl::Status FrontierServerConfig::Validate() const {
  if (absl::Status s = common.Validate(); !s.ok()) return s;
  if (data_dir.empty()) return absl::InvalidArgumentError("data_dir is required");
  if (partition_count < 1 || partition_count > 65536) {
    return absl::InvalidArgumentError("partitions must be in [1, 65536]");
  }
  if (absl::Status s = store_memory.Validate(); !s.ok()) return s;
  if (partition_index >= partition_count) {
    return absl::InvalidArgumentError(absl::StrCat("partition ", partition_index,
                                                   " is not below partitions (",
                                                   partition_count, ")"));
  }
  return absl::OkStatus();
}

const config::KeyTable<FrontierServerConfig>& FrontierServerKeys() {
  using C = FrontierServerConfig;
  static const auto* const table = [] {
    auto* t = new config::KeyTable<C>;
    t->Include(service::ServiceCommonKeys(), &C::common)
        .Add({"data_dir", "--data-dir", "Directory of the collections' RocksDB stores",
              "required"},
             &C::data_dir)
        .Add({"partition_index", "--partition", "The partition this frontier serves (0..N-1)"},
             &C::partition_index)
        .Add({"partition_count", "--partitions", "N, the number of frontier partitions"},
             &C::partition_count)
        .Include(FrontierKeys(), &C::frontier)
        .Include(StoreMemoryKeys(), &C::store_memory)
        .AddField<absl::Duration>({"lease_restore_grace", "--lease-restore-grace",
              "How long leases handed out before a restart stay out for their fetchers' "
              "completions (0: leased again at once)"},
             [](C& c) -> absl::Duration& { return c.frontier.restored_lease_grace; });
    return t;
  }();
  return *table;
}

FrontierServer::FrontierServer() = default;
FrontierServer::~FrontierServer() { Close().IgnoreError(); }

int FrontierServer::port() const { return runner_->Port(0); }

absl::StatusOr<std::unique_ptr<FrontierServer>> FrontierServer::Start(
    const FrontierServerConfig& config, metrics::MetricsServer* metrics, const Logger& log) {
  if (absl::Status s = config.Validate(); !s.ok()) return s;
  std::unique_ptr<FrontierServer> server(new FrontierServer);
  absl::StatusOr<std::shared_ptr<kv::RocksDbMemory>> memory = config.store_memory.Create();
  if (!memory.ok()) return memory.status();
  FrontierHostOptions options;
  options.data_dir = config.data_dir;
  options.store.shared_memory = *std::move(memory);
  options.base = config.frontier;
  options.partition_index = config.partition_index;
  options.partition_count = config.partition_count;
  options.log = log;
  absl::StatusOr<std::unique_ptr<FrontierHost>> host = FrontierHost::Open(options, server->clock_);
  if (!host.ok()) return host.status();
  server->host_ = *std::move(host);
  const std::vector<std::string> names = server->host_->Names();
  log.Info("partition ", config.partition_index, " of ", config.partition_count, ", ", names.size(),
           " collection(s) in ", config.data_dir);
  absl::StatusOr<std::string> token = config.common.InternalToken();
  if (!token.ok()) return token.status();
  server->auth_ = std::make_unique<grpc_common::CallAuth>(
      grpc_common::CallAuthOptions{.token = *std::move(token), .roles = FrontierCallRoles()},
      server->clock_, log);
  server->service_ = std::make_unique<FrontierService>(*server->host_, server->auth_.get());
  FrontierHost* h = server->host_.get();
  // A store that cannot be written (a full disk) fails every round until it recovers: one line
  // every 10 s says so, not four a second.
  server->reaper_log_ =
      std::make_unique<RateLimitedLog>(absl::Seconds(10), server->clock_, log, LogLevel::kError);
  RateLimitedLog* reaper_log = server->reaper_log_.get();
  server->reaper_ = std::make_unique<LeaseReaper>(
      LeaseReaperOptions{}, [h] { return h->Cores(); },
      [reaper_log](const absl::Status& s) {
        reaper_log->Log(absl::StrCat("re-queuing expired leases failed: ", s.ToString()));
      });
  server->loop_ = std::make_unique<PeriodicRunner>(
      PeriodicRunnerOptions{.thread_name = "frontier-reap"}, server->clock_,
      std::vector<PeriodicJob*>{server->reaper_.get()});
  absl::StatusOr<std::unique_ptr<grpc_server::ServerRunner>> runner =
      grpc_server::ServerRunner::Start(
          {.name = "frontier",
           .log = log,
           .endpoints = {config.common.InternalEndpoint({server->service_.get()})},
           .interceptors = metrics::RpcInterceptors(metrics, "frontier")});
  if (!runner.ok()) return runner.status();
  server->runner_ = *std::move(runner);
  server->collector_ = metrics::ScopedCollector(metrics, [h, partition = config.partition_index,
                                                          dir = config.data_dir] {
    std::vector<PartitionFigures> partitions;
    for (const std::string& name : h->Names()) {
      std::shared_ptr<Frontier> core = h->Find(name);
      if (core == nullptr) continue;  // dropped meanwhile
      partitions.push_back({.collection = name, .partition = partition, .stats = core->Stats()});
    }
    metrics::SnapshotFamilies out;
    AppendFrontierSnapshot(partitions, dir, out);
    return out.Take();
  });
  server->loop_->Start();
  return server;
}

absl::Status FrontierServer::Close() {
  if (runner_ != nullptr) runner_->Shutdown(absl::ZeroDuration());
  collector_.Reset();
  if (loop_ != nullptr) loop_->Stop();
  loop_.reset();
  reaper_.reset();
  runner_.reset();
  service_.reset();
  auth_.reset();
  // Closing the host closes every collection's store (RocksDB flushes on close).
  host_.reset();
  return absl::OkStatus();
}

}  // namespace crawler::frontier
