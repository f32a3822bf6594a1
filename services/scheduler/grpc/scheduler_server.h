// SchedulerServer: the control plane as a process (`crawlerd scheduler`, docs/services.md): the
// CollectionManager on a RocksDB database in data_dir, its control loop on a PeriodicRunner, the
// SchedulerInternal service (fetchers' reports) on the common block's listen address and the
// Admin API, guarded by a bearer token, on admin_listen, with ArchiveAdmin beside it: the
// collections' archive files, gathered from the fetchers that report (docs/archive.md). The
// frontier partitions are reached at `frontiers` (partition k at frontiers[k]).
// SchedulerServerConfig and its key table are the role's YAML file and flags.
//
// Lifetime: Start opens the database and serves; the owner drains the runner (ServeUntilSignal),
// then Close() stops the control loop and flushes and closes the database.
//
// Thread-safety: runner() is thread-safe; Close is called once, after the runner's Shutdown.
#ifndef CRAWLER_SERVICES_SCHEDULER_GRPC_SCHEDULER_SERVER_H_
#define CRAWLER_SERVICES_SCHEDULER_GRPC_SCHEDULER_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "services/common/config/key_table.h"
#include "services/common/grpc/call_auth.h"
#include "services/common/grpc/server_runner.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/service/service_config.h"
#include "services/scheduler/collection_manager.h"
#include "services/scheduler/focus_budget_tuner.h"
#include "services/scheduler/grpc/proto_record_codec.h"
#include "services/scheduler/revisit_tuner.h"

namespace crawler::kv {
class RocksDbKvStore;
}  // namespace crawler::kv

namespace crawler {
class PeriodicRunner;
}  // namespace crawler

namespace crawler::scheduler {

class AdminService;
class ArchiveAdminService;
class FetcherDirectory;
class SchedulerInternalService;
class PartitionFleet;
class Resharder;

struct SchedulerServerConfig {
  service::ServiceCommonConfig common;  // listen (internal: fetchers), TLS, metrics, drain
  service::PeerConfig peers;            // how the frontiers are reached
  // HOST:PORT of the Admin API (crawlctl). Required; never the same as listen.
  std::string admin_listen = "127.0.0.1:50052";
  // PEM certificate and key of the Admin API's TLS; both empty: plaintext. The users' port has
  // certificates of its own: the common block's are the internal ones (a private CA, role names).
  std::string admin_tls_cert_file;
  std::string admin_tls_key_file;
  // File holding the Admin API's bearer token (at least 16 characters). Required.
  std::string admin_token_file;
  // The RocksDB database of collections and fetcher reports (created if absent). Required.
  std::string data_dir;
  // The frontier partitions, HOST:PORT each, partition k at index k. Required (N >= 1).
  std::vector<std::string> frontiers;
  // The partition count the crawl runs with; 0: every frontier listed. Another count than the
  // one the crawl ran with starts a reshard (Resharder, docs/architecture.md §4); `frontiers`
  // must list every partition the reshard spans (a crawl shrinking from 3 to 2 keeps the third
  // listed until the reshard is done).
  uint32_t partitions = 0;
  // A reshard's settling time after its flip (ResharderOptions::settle).
  absl::Duration reshard_settle = absl::Seconds(30);
  // Time between control-loop rounds (seeds owed, finishing, re-opening, re-visit tuning).
  absl::Duration sync_interval = absl::Seconds(1);
  // How often fetchers are asked to report (sent in every reply).
  absl::Duration report_interval = absl::Seconds(2);
  // The fetchers' hand-over interval times two: sizes the URLs of a host on lease at once
  // (collections::LeaseAheadPerHost).
  absl::Duration lease_refill = absl::Seconds(1);
  RevisitTunerOptions revisit_tuner;
  // How often a focused collection's page budget is split over the partitions again.
  absl::Duration focus_tune_interval = FocusBudgetTunerOptions{}.interval;

  // kInvalidArgument naming the key.
  absl::Status Validate() const;
};

const config::KeyTable<SchedulerServerConfig>& SchedulerServerKeys();

class SchedulerServer {
 public:
  // Opens the database and starts serving (logging "scheduler: serving on HOST:PORT" for both
  // endpoints). kInvalidArgument for a bad config, kNotFound for an unreadable token file,
  // kUnavailable when data_dir is locked or an address cannot be bound.
  // With `metrics` (may be null; must outlive the server) its metrics are served there
  // (docs/metrics.md, "Scheduler").
  // `log` is the role's (serving, draining, what happens to its collections).
  static absl::StatusOr<std::unique_ptr<SchedulerServer>> Start(
      const SchedulerServerConfig& config, metrics::MetricsServer* metrics = nullptr,
      const Logger& log = {});
  ~SchedulerServer();
  SchedulerServer(const SchedulerServer&) = delete;
  SchedulerServer& operator=(const SchedulerServer&) = delete;

  grpc_server::ServerRunner& runner() { return *runner_; }
  int internal_port() const { return runner_->Port(0); }
  int admin_port() const { return runner_->Port(1); }

  // Stops the control loop, then flushes and closes the database. Idempotent.
  absl::Status Close();

 private:
  SchedulerServer();

  SystemClock clock_;
  const ProtoRecordCodec codec_;
  std::unique_ptr<kv::RocksDbKvStore> store_;
  std::unique_ptr<PartitionFleet> fleet_;
  std::unique_ptr<CollectionManager> manager_;
  std::unique_ptr<Resharder> resharder_;
  std::unique_ptr<PeriodicRunner> loop_;
  std::unique_ptr<AdminService> admin_;
  std::unique_ptr<FetcherDirectory> fetchers_;
  std::unique_ptr<ArchiveAdminService> archive_admin_;
  std::unique_ptr<grpc_common::CallAuth> internal_auth_;
  std::unique_ptr<SchedulerInternalService> internal_;
  std::unique_ptr<grpc_server::ServerRunner> runner_;
  // Figures read from the parts above when scraped; reset first in Close.
  metrics::ScopedCollector collector_;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_GRPC_SCHEDULER_SERVER_H_
