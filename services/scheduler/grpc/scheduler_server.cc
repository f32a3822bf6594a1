#include "services/scheduler/grpc/scheduler_server.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/clock/clock.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/metrics/snapshot_collector.h"
#include "services/common/periodic_runner.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/scheduler/grpc/admin_service.h"
#include "services/scheduler/grpc/archive_admin_service.h"
#include "services/scheduler/grpc/grpc_partition_fleet.h"
#include "services/scheduler/resharder.h"
#include "services/scheduler/scheduler_config.h"
#include "services/scheduler/scheduler_metrics.h"

namespace crawler::scheduler {

absl::Status SchedulerServerConfig::Validate() const {
  if (absl::Status s = common.Validate(); !s.ok()) return s;
  if (absl::Status s = peers.Validate(); !s.ok()) return s;
  if (absl::Status s = service::ValidateHostPort("admin_listen", admin_listen); !s.ok()) return s;
  // Port 0 asks for a free port at each bind, so both may ask for it.
  if (admin_listen == common.listen && !absl::EndsWith(admin_listen, ":0")) {
    return absl::InvalidArgumentError(
        "admin_listen must differ from listen (the Admin API has a port of its own)");
  }
  if (admin_tls_cert_file.empty() != admin_tls_key_file.empty()) {
    return absl::InvalidArgumentError("admin_tls_cert_file and admin_tls_key_file go together");
  }
  if (admin_token_file.empty()) {
    return absl::InvalidArgumentError("admin_token_file is required (the Admin API's token)");
  }
  if (data_dir.empty()) return absl::InvalidArgumentError("data_dir is required");
  if (frontiers.empty()) {
    return absl::InvalidArgumentError("frontiers: list every frontier partition's HOST:PORT");
  }
  if (frontiers.size() > 1024) return absl::InvalidArgumentError("frontiers: at most 1024");
  if (partitions > frontiers.size()) {
    return absl::InvalidArgumentError(absl::StrCat("partitions: ", partitions, " of ",
                                                   frontiers.size(), " frontiers listed"));
  }
  if (reshard_settle < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("reshard_settle must not be negative");
  }
  for (size_t k = 0; k < frontiers.size(); ++k) {
    if (absl::Status s = service::ValidateHostPort(absl::StrCat("frontiers[", k, "]"),
                                                   frontiers[k]);
        !s.ok()) {
      return s;
    }
  }
  if (sync_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("sync_interval must be > 0");
  }
  if (report_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("report_interval must be > 0");
  }
  if (lease_refill <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("lease_refill must be > 0");
  }
  if (revisit_tuner.interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("revisit_tune_interval must be > 0");
  }
  if (focus_tune_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("focus_tune_interval must be > 0");
  }
  return absl::OkStatus();
}

const config::KeyTable<SchedulerServerConfig>& SchedulerServerKeys() {
  using C = SchedulerServerConfig;
  static const auto* const table = [] {
    auto* t = new config::KeyTable<C>;
    t->Include(service::ServiceCommonKeys(), &C::common)
        .Include(service::PeerKeys(), &C::peers)
        .Add({"admin_listen", "--admin-listen", "HOST:PORT of the Admin API (crawlctl)"},
             &C::admin_listen)
        .Add({"admin_tls_cert_file", "--admin-tls-cert-file",
              "PEM certificate of the Admin API; with the key, it speaks TLS"},
             &C::admin_tls_cert_file)
        .Add({"admin_tls_key_file", "--admin-tls-key-file", "PEM key of admin_tls_cert_file"},
             &C::admin_tls_key_file)
        .Add({"admin_token_file", "--admin-token-file",
              "File with the Admin API's bearer token (>= 16 characters)", "required"},
             &C::admin_token_file)
        .Add({"data_dir", "--data-dir", "Directory of the collections' RocksDB database",
              "required"},
             &C::data_dir)
        .Add({"frontiers", "--frontier",
              "Frontier partition k's HOST:PORT, in partition order (repeatable)", "required"},
             &C::frontiers)
        .Add({"partitions", "--partitions",
              "The partition count to crawl with (0: every frontier); a change reshards"},
             &C::partitions)
        .Add({"reshard_settle", "--reshard-settle",
              "After a reshard's flip, how long the old layout's URLs are still taken"},
             &C::reshard_settle)
        .Add({"sync_interval", "--sync-interval",
              "Time between control-loop rounds (seeds owed, finishing, tuning)"},
             &C::sync_interval)
        .Add({"report_interval", "--report-interval", "How often fetchers report, e.g. 2s"},
             &C::report_interval)
        .Add({"lease_refill", "--lease-refill",
              "Twice the fetchers' hand-over interval: sizes the URLs of a host on lease"},
             &C::lease_refill)
        .Add({"focus_tune_interval", "--focus-tune-interval",
              "How often a focused collection's page budget is split over the partitions"},
             &C::focus_tune_interval)
        .Include(RevisitTunerKeys(), &C::revisit_tuner);
    return t;
  }();
  return *table;
}

SchedulerServer::SchedulerServer() = default;
SchedulerServer::~SchedulerServer() { Close().IgnoreError(); }

namespace {

// The partition layout and the reshard under way or the last one (Resharder::Status), so that
// a dashboard shows a reshard's progress and an alert can see one stuck.
void AppendReshardMetrics(const ReshardStatus& s, metrics::SnapshotFamilies& out) {
  out.Gauge("crawler_scheduler_partitions",
            "Partitions the fleet routes hosts by (the layout's count).")
      .Add({}, static_cast<double>(s.layout.count));
  out.Gauge("crawler_scheduler_partition_layout_epoch",
            "Epoch of the partition layout, raised at every change.")
      .Add({}, static_cast<double>(s.layout.epoch));
  metrics::SnapshotFamily phase =
      out.Gauge("crawler_scheduler_reshard_phase", "1 for the reshard's current phase, else 0.");
  for (ReshardStatus::Phase p : {ReshardStatus::Phase::kSteady, ReshardStatus::Phase::kMoving,
                                 ReshardStatus::Phase::kSettling, ReshardStatus::Phase::kBlocked}) {
    phase.Add({{"phase", PhaseName(p)}}, p == s.phase ? 1.0 : 0.0);
  }
  out.Gauge("crawler_scheduler_reshard_hosts_moved",
            "Hosts moved to their new partition by the reshard under way or the last one.")
      .Add({}, static_cast<double>(s.hosts_moved));
  out.Gauge("crawler_scheduler_reshard_urls_moved",
            "URL records moved with those hosts.")
      .Add({}, static_cast<double>(s.urls_moved));
  out.Gauge("crawler_scheduler_reshard_hosts_left",
            "Hosts still to move, at the reshard's last pass.")
      .Add({}, static_cast<double>(s.hosts_left));
  out.Gauge("crawler_scheduler_reshard_held_urls",
            "URLs partitions hold for other partitions, at the reshard's last pass.")
      .Add({}, static_cast<double>(s.held_urls));
  out.Gauge("crawler_scheduler_reshard_partitions_unreachable",
            "Partitions that did not answer the reshard's last pass.")
      .Add({}, static_cast<double>(s.partitions_unreachable));
}

// crawler_scheduler_collections{state}: the collections by state, read from the store's
// collection list when scraped (a few records per collection); the re-visit tunings' gauges
// of the re-visiting collections (their tuners' latest results); and the reshard's gauges.
std::vector<prometheus::MetricFamily> SchedulerMetrics(const CollectionManager& manager,
                                                       const Resharder& resharder) {
  uint64_t active = 0, paused = 0, finished = 0;
  std::string token;
  do {
    auto page = manager.List(1000, token);
    if (!page.ok()) return {};  // the store failed: no figures rather than wrong ones
    for (const CollectionInfo& info : page->first) {
      switch (info.state) {
        case CollectionState::kActive:
          ++active;
          break;
        case CollectionState::kPaused:
          ++paused;
          break;
        case CollectionState::kFinished:
          ++finished;
          break;
      }
    }
    token = page->second;
  } while (!token.empty());
  metrics::SnapshotFamilies out;
  out.Gauge("crawler_scheduler_collections", "Collections, by state.")
      .Add({{"state", "active"}}, static_cast<double>(active))
      .Add({{"state", "paused"}}, static_cast<double>(paused))
      .Add({{"state", "finished"}}, static_cast<double>(finished));
  std::vector<CollectionTuning> tunings;
  for (auto& [name, tuning] : manager.LatestTunings()) {
    tunings.push_back({.collection = std::move(name), .tuning = std::move(tuning)});
  }
  AppendRevisitMetrics(tunings, out);
  AppendReshardMetrics(resharder.Status(), out);
  return out.Take();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SchedulerServer>> SchedulerServer::Start(
    const SchedulerServerConfig& config, metrics::MetricsServer* metrics, const Logger& log) {
  if (absl::Status s = config.Validate(); !s.ok()) return s;
  absl::StatusOr<std::string> token = grpc_common::ReadTokenFile(config.admin_token_file);
  if (!token.ok()) return token.status();
  absl::StatusOr<std::string> internal_token = config.common.InternalToken();
  if (!internal_token.ok()) return internal_token.status();
  std::unique_ptr<SchedulerServer> server(new SchedulerServer);
  std::vector<kv::ColumnFamilySpec> families = CollectionManager::ColumnFamilies();
  for (const kv::ColumnFamilySpec& f : Resharder::ColumnFamilies()) families.push_back(f);
  absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store =
      kv::RocksDbKvStore::Open({.path = config.data_dir}, families);
  if (!store.ok()) {
    return absl::Status(store.status().code(),
                        absl::StrCat("data_dir ", config.data_dir, ": ", store.status().message()));
  }
  server->store_ = *std::move(store);
  absl::StatusOr<std::unique_ptr<PartitionFleet>> fleet =
      GrpcPartitionFleet::Create(config.frontiers, config.peers.Channel(*internal_token),
                                 config.peers.rpc_deadline, config.lease_refill);
  if (!fleet.ok()) return fleet.status();
  server->fleet_ = *std::move(fleet);
  // The layout the crawl routes by comes first: the collections' routing depends on it.
  const uint32_t partitions = config.partitions == 0
                                  ? static_cast<uint32_t>(config.frontiers.size())
                                  : config.partitions;
  absl::StatusOr<ReshardStatus> loaded = Resharder::Load(*server->store_, partitions);
  if (!loaded.ok()) return loaded.status();
  if (absl::Status s = server->fleet_->SetLayout(loaded->layout); !s.ok()) return s;
  CollectionManagerOptions options;
  options.tuner = config.revisit_tuner;
  options.focus_tuner.interval = config.focus_tune_interval;
  options.log = log;
  absl::StatusOr<std::unique_ptr<CollectionManager>> manager = CollectionManager::Open(
      options, *server->store_, *server->fleet_, server->codec_, server->clock_);
  if (!manager.ok()) return manager.status();
  server->manager_ = *std::move(manager);
  absl::StatusOr<std::unique_ptr<Resharder>> resharder = Resharder::Open(
      {.partitions = partitions,
       .settle = config.reshard_settle,
       .log = log},
      *std::move(loaded), *server->store_, *server->fleet_, *server->manager_, server->clock_);
  if (!resharder.ok()) return resharder.status();
  server->resharder_ = *std::move(resharder);
  server->loop_ = std::make_unique<PeriodicRunner>(
      PeriodicRunnerOptions{.tick = config.sync_interval, .thread_name = "sched-loop"},
      server->clock_,
      std::vector<PeriodicJob*>{server->resharder_.get(), server->manager_.get()});
  server->admin_ = std::make_unique<AdminService>(*server->manager_, *token, server->clock_, log);
  server->admin_->SetResharder(server->resharder_.get());
  // A fetcher that missed several reports is gone (a report every report_interval).
  server->fetchers_ = std::make_unique<FetcherDirectory>(
      std::max(absl::Seconds(30), 5 * config.report_interval), server->clock_);
  server->archive_admin_ = std::make_unique<ArchiveAdminService>(
      *server->fetchers_, *std::move(token), server->clock_,
      ArchiveAdminOptions{.channel = config.peers.Channel(*internal_token),
                          .partitions = static_cast<uint32_t>(config.frontiers.size()),
                          .log = log});
  // Only fetchers report.
  server->internal_auth_ = std::make_unique<grpc_common::CallAuth>(
      grpc_common::CallAuthOptions{.token = *std::move(internal_token),
                                   .roles = {{"ReportFetcherStats", {"fetcher"}}}},
      server->clock_, log);
  server->internal_ = std::make_unique<SchedulerInternalService>(
      *server->manager_, config.report_interval, server->fetchers_.get(),
      server->internal_auth_.get());
  grpc_server::Endpoint internal = config.common.InternalEndpoint({server->internal_.get()});
  // Reports are a few hundred bytes per collection, and no call of either port is hot: what
  // callers can make the scheduler hold stays far below its memory (the chart's 512 MiB).
  internal.max_receive_bytes = 1 << 20;
  internal.max_memory_bytes = size_t{32} << 20;
  grpc_server::Endpoint admin;
  admin.listen = config.admin_listen;
  admin.max_memory_bytes = size_t{32} << 20;
  // Never client certificates: users authenticate with the token.
  admin.tls = {config.admin_tls_cert_file, config.admin_tls_key_file, ""};
  admin.services = {server->admin_.get(), server->archive_admin_.get()};
  absl::StatusOr<std::unique_ptr<grpc_server::ServerRunner>> runner =
      grpc_server::ServerRunner::Start(
          {.name = "scheduler",
           .log = log,
           .endpoints = {std::move(internal), std::move(admin)},
           .interceptors = metrics::RpcInterceptors(metrics, "scheduler")});
  if (!runner.ok()) return runner.status();
  server->runner_ = *std::move(runner);
  server->collector_ = metrics::ScopedCollector(
      metrics, [manager = server->manager_.get(), resharder = server->resharder_.get()] {
        return SchedulerMetrics(*manager, *resharder);
      });
  server->loop_->Start();
  return server;
}

absl::Status SchedulerServer::Close() {
  if (runner_ != nullptr) runner_->Shutdown(absl::ZeroDuration());
  collector_.Reset();
  if (loop_ != nullptr) loop_->Stop();
  loop_.reset();
  runner_.reset();
  admin_.reset();
  archive_admin_.reset();
  internal_.reset();
  fetchers_.reset();
  internal_auth_.reset();
  resharder_.reset();
  manager_.reset();
  fleet_.reset();
  if (store_ == nullptr) return absl::OkStatus();
  absl::Status flushed = store_->Flush();
  store_.reset();
  return flushed;
}

}  // namespace crawler::scheduler
