// DedupServer: the content index as a process (`crawlerd dedup`, docs/services.md): a Dedup core
// on a RocksDB database in data_dir, served as crawler.v1.Dedup with health and reflection on
// the common block's listen address (ServerRunner). DedupServerConfig and its key table are the
// role's YAML file and flags.
//
// Lifetime: Start opens the database and serves; the owner drains the runner (ServeUntilSignal
// does: health off, Shutdown with the drain deadline), then Close() flushes and closes the
// database. Destroying a server that was not closed stops it at once and closes it.
//
// Thread-safety: runner() is thread-safe (ServerRunner); Close is called once, after the
// runner's Shutdown.
#ifndef CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_SERVER_H_
#define CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "services/common/config/key_table.h"
#include "services/common/grpc/call_auth.h"
#include "services/common/grpc/server_runner.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/service/service_config.h"
#include "services/dedup/dedup.h"

namespace crawler::kv {
class RocksDbKvStore;
}  // namespace crawler::kv

namespace crawler::dedup {

class DedupService;

struct DedupServerConfig {
  service::ServiceCommonConfig common;  // listen, TLS, metrics_listen, drain_timeout
  // The RocksDB database of the index (created, with its parents, if absent). Required. One
  // process at a time.
  std::string data_dir;
  DedupOptions dedup;  // near_duplicate_bits

  // kInvalidArgument naming the key.
  absl::Status Validate() const;
};

// The common block's keys, data_dir and DedupKeys() (services/dedup/dedup_config.h).
const config::KeyTable<DedupServerConfig>& DedupServerKeys();

class DedupServer {
 public:
  // Opens the database and starts serving (logging "dedup: serving on HOST:PORT").
  // kInvalidArgument for a bad config, kUnavailable when data_dir is locked by another process
  // or the address cannot be bound, other codes from RocksDB.
  // With `metrics` (may be null; must outlive the server) its metrics are served there
  // (docs/metrics.md, "Dedup").
  // `log` is the role's (serving, draining, what happens to its collections).
  static absl::StatusOr<std::unique_ptr<DedupServer>> Start(
      const DedupServerConfig& config, metrics::MetricsServer* metrics = nullptr,
      const Logger& log = {});
  ~DedupServer();
  DedupServer(const DedupServer&) = delete;
  DedupServer& operator=(const DedupServer&) = delete;

  grpc_server::ServerRunner& runner() { return *runner_; }
  // The port of the internal RPCs (listen's, or the one picked for port 0).
  int port() const { return runner_->Port(0); }

  // Shuts the runner down at once if its owner has not, then releases the core and flushes and
  // closes the database (a restart then replays no log). Idempotent.
  absl::Status Close();

 private:
  DedupServer() = default;

  std::unique_ptr<kv::RocksDbKvStore> store_;
  std::unique_ptr<Dedup> dedup_;
  SystemClock clock_;
  std::unique_ptr<grpc_common::CallAuth> auth_;
  std::unique_ptr<DedupService> service_;
  std::unique_ptr<grpc_server::ServerRunner> runner_;
  // Figures read from the parts above when scraped; reset first in Close.
  metrics::ScopedCollector collector_;
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_GRPC_DEDUP_SERVER_H_
