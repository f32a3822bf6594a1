#include "services/dedup/grpc/dedup_server.h"

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <utility>

#include "services/common/metrics/metrics_server.h"
#include "services/common/metrics/snapshot_collector.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/dedup/dedup_config.h"
#include "services/dedup/grpc/dedup_service.h"

namespace crawler::dedup {

absl::Status DedupServerConfig::Validate() const {
  if (absl::Status s = common.Validate(); !s.ok()) return s;
  if (data_dir.empty()) return absl::InvalidArgumentError("data_dir is required");
  return dedup.Validate();
}

const config::KeyTable<DedupServerConfig>& DedupServerKeys() {
  using C = DedupServerConfig;
  static const auto* const table = [] {
    auto* t = new config::KeyTable<C>;
    t->Include(service::ServiceCommonKeys(), &C::common)
        .Add({"data_dir", "--data-dir", "Directory of the index's RocksDB database", "required"},
             &C::data_dir)
        .Include(DedupKeys(), &C::dedup);
    return t;
  }();
  return *table;
}

absl::StatusOr<std::unique_ptr<DedupServer>> DedupServer::Start(const DedupServerConfig& config,
                                                                metrics::MetricsServer* metrics,
                                                                const Logger& log) {
  if (absl::Status s = config.Validate(); !s.ok()) return s;
  std::unique_ptr<DedupServer> server(new DedupServer);
  // Parents too (RocksDB creates only the last component): a volume's subdirectory, say.
  std::error_code ignored;  // a failure shows in RocksDB's error, which names the path
  std::filesystem::create_directories(config.data_dir, ignored);
  absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store =
      kv::RocksDbKvStore::Open({.path = config.data_dir}, Dedup::ColumnFamilies());
  if (!store.ok()) return store.status();
  server->store_ = *std::move(store);
  absl::StatusOr<std::unique_ptr<Dedup>> dedup = Dedup::Open(config.dedup, *server->store_);
  if (!dedup.ok()) return dedup.status();
  server->dedup_ = *std::move(dedup);
  absl::StatusOr<std::string> token = config.common.InternalToken();
  if (!token.ok()) return token.status();
  const std::set<std::string> fetcher = {"fetcher"};
  server->auth_ = std::make_unique<grpc_common::CallAuth>(
      grpc_common::CallAuthOptions{
          .token = *std::move(token),
          .roles = {{"Check", fetcher}, {"Record", fetcher}, {"MarkLinksSeen", fetcher}}},
      server->clock_, log);
  server->service_ = std::make_unique<DedupService>(*server->dedup_, server->auth_.get());
  absl::StatusOr<std::unique_ptr<grpc_server::ServerRunner>> runner =
      grpc_server::ServerRunner::Start(
          {.name = "dedup",
           .log = log,
           .endpoints = {config.common.InternalEndpoint({server->service_.get()})},
           .interceptors = metrics::RpcInterceptors(metrics, "dedup")});
  if (!runner.ok()) return runner.status();
  server->runner_ = *std::move(runner);
  server->collector_ = metrics::ScopedCollector(metrics, [service = server->service_.get()] {
    const DedupService::Counts c = service->counts();
    metrics::SnapshotFamilies out;
    out.Counter("crawler_dedup_lookups_total",
                "Content checks answered, by verdict (unique, exact or near duplicate).")
        .Add({{"result", "unique"}}, static_cast<double>(c.unique))
        .Add({{"result", "exact"}}, static_cast<double>(c.exact))
        .Add({{"result", "near"}}, static_cast<double>(c.near));
    out.Counter("crawler_dedup_index_entries_added_total",
                "Entries added to the content index since the service started.")
        .Add({}, static_cast<double>(c.recorded));
    out.Counter("crawler_dedup_links_marked_total",
                "Link keys of focused collections marked seen, by whether they were fresh.")
        .Add({{"result", "fresh"}}, static_cast<double>(c.fresh_links))
        .Add({{"result", "seen"}}, static_cast<double>(c.link_keys - c.fresh_links));
    return out.Take();
  });
  return server;
}

DedupServer::~DedupServer() { Close().IgnoreError(); }

absl::Status DedupServer::Close() {
  if (runner_ != nullptr) runner_->Shutdown(absl::ZeroDuration());
  collector_.Reset();
  dedup_.reset();
  if (store_ == nullptr) return absl::OkStatus();
  absl::Status flushed = store_->Flush();
  store_.reset();
  return flushed;
}

}  // namespace crawler::dedup
