// FrontierServer: one frontier partition as a process (`crawlerd frontier`, docs/services.md):
// a FrontierHost (its collections, each a Frontier core on a RocksDB store of its own under
// data_dir) served as crawler.v1.Frontier with health and reflection on the common block's
// listen address, and a lease reaper re-queuing expired leases of every collection.
// FrontierServerConfig and its key table are the role's YAML file and flags.
//
// Lifetime: Start opens every collection found in data_dir and serves; the owner drains the
// runner (ServeUntilSignal), then Close() stops the reaper and closes every store (RocksDB
// flushes its memtables, so a restart replays no log).
//
// Thread-safety: runner() is thread-safe; Close is called once, after the runner's Shutdown.
#ifndef CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_SERVER_H_
#define CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "services/common/config/key_table.h"
#include "services/common/grpc/call_auth.h"
#include "services/common/grpc/server_runner.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/rate_limited_log.h"
#include "services/common/service/service_config.h"
#include "services/frontier/frontier_config.h"
#include "services/frontier/frontier_options.h"

namespace crawler {
class PeriodicRunner;
}  // namespace crawler

namespace crawler::frontier {

class FrontierHost;
class FrontierService;
class LeaseReaper;

struct FrontierServerConfig {
  FrontierServerConfig();

  service::ServiceCommonConfig common;  // listen, TLS, metrics, drain
  // Collections' stores live under data_dir/collections/. Required. One process at a time.
  std::string data_dir;
  // This server's partition: it owns the hosts with Partition(host, partitions) == partition.
  uint32_t partition_index = 0;
  uint32_t partition_count = 1;
  // The cores' server-wide options (lease duration, retries, seen cache, ...).
  FrontierOptions frontier;
  // RocksDB memory of the whole process, shared by every collection's store.
  StoreMemoryConfig store_memory;

  // kInvalidArgument naming the key.
  absl::Status Validate() const;
};

const config::KeyTable<FrontierServerConfig>& FrontierServerKeys();

class FrontierServer {
 public:
  // Opens the collections and starts serving (logging "frontier: serving on HOST:PORT").
  // kInvalidArgument for a bad config, kUnavailable when a store is locked by another process or
  // the address cannot be bound, the store's or core's error otherwise.
  // With `metrics` (may be null; must outlive the server) its metrics are served there
  // (docs/metrics.md, "Frontier").
  // `log` is the role's (serving, draining, what happens to its collections).
  static absl::StatusOr<std::unique_ptr<FrontierServer>> Start(
      const FrontierServerConfig& config, metrics::MetricsServer* metrics = nullptr,
      const Logger& log = {});
  ~FrontierServer();
  FrontierServer(const FrontierServer&) = delete;
  FrontierServer& operator=(const FrontierServer&) = delete;

  grpc_server::ServerRunner& runner() { return *runner_; }
  int port() const;

  // Shuts the runner down at once if its owner has not, stops the reaper and closes every
  // collection's store. Idempotent.
  absl::Status Close();

 private:
  FrontierServer();

  SystemClock clock_;
  std::unique_ptr<FrontierHost> host_;
  std::unique_ptr<grpc_common::CallAuth> auth_;
  std::unique_ptr<FrontierService> service_;
  std::unique_ptr<RateLimitedLog> reaper_log_;
  std::unique_ptr<LeaseReaper> reaper_;
  std::unique_ptr<PeriodicRunner> loop_;
  std::unique_ptr<grpc_server::ServerRunner> runner_;
  // Figures read from the parts above when scraped; reset first in Close.
  metrics::ScopedCollector collector_;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_SERVER_H_
