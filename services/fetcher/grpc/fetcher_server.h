// FetcherServer: replica k of the fetchers as a process (`crawlerd fetcher`, docs/services.md):
// a FetcherNode serving partition k of every collection, over gRPC clients of the frontier
// partitions (frontiers[j] serves partition j), the dedup service and the scheduler. On the
// common block's listen address it serves grpc.health.v1.Health (and reflection), for probes,
// and crawler.v1.ArchiveFiles: its finished WARC files and their CDXJ indexes, which its
// collections' crawls write beside each WARC file they finish (docs/archive.md).
// FetcherServerConfig and its key table are the role's YAML file and flags.
//
// Politeness: one budget per host and per address for the whole process, shared by every
// collection it crawls (the `politeness` keys of this config: min_delay, max_delay, ...); a
// collection's own politeness settings size its leases. The Politeness interface is the slot a
// shared store (Redis) takes.
//
// Lifetime: Start starts serving and crawling; Stop() (the drain's first step) stops the node:
// transfers in flight finish, leases not started go back to the frontier, WARC files are
// closed and indexed; then the owner shuts the runner down.
//
// Thread-safety: runner() and Stop() are thread-safe; Stop may be called more than once.
#ifndef CRAWLER_SERVICES_FETCHER_GRPC_FETCHER_SERVER_H_
#define CRAWLER_SERVICES_FETCHER_GRPC_FETCHER_SERVER_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "lib/politeness/politeness_options.h"
#include "lib/warc/warc_writer.h"
#include "services/common/config/key_table.h"
#include "services/common/grpc/server_runner.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/politeness/politeness_store.h"
#include "services/common/service/service_config.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/fetcher_node.h"
#include "services/scheduler/grpc/proto_record_codec.h"
#include "services/scheduler/scheduler_client.h"

namespace crawler::grpc_common {
class CallAuth;
}  // namespace crawler::grpc_common

namespace crawler::net {
class AddressPolicy;
}  // namespace crawler::net

namespace crawler::politeness {
class Politeness;
}  // namespace crawler::politeness

namespace crawler::fetcher {

class ArchiveFileStore;
class ArchiveFilesService;
class SystemResolver;

struct FetcherServerConfig {
  FetcherServerConfig();

  service::ServiceCommonConfig common;  // listen (health), TLS, metrics, drain
  service::PeerConfig peers;            // how frontiers, dedup and the scheduler are reached
  // The partition this replica serves, < the number of frontiers.
  uint32_t partition_index = 0;
  // Frontier partition j's HOST:PORT, in partition order. Required.
  std::vector<std::string> frontiers;
  // The scheduler's internal HOST:PORT. Required.
  std::string scheduler;
  // The dedup service's HOST:PORT; empty: no duplicate detection.
  std::string dedup;
  // Crawl logs (<data_dir>/logs/<collection>.log) and, by default, WARC files. Required.
  std::string data_dir;
  std::string warc_dir;  // default <data_dir>/warc
  // The standalone crawl's default (WarcWriterOptions), so the two rotate alike.
  uint64_t warc_max_file_bytes = warc::WarcWriterOptions{}.max_file_bytes;
  // A page counts as done only once its WARC records are on disk (as `crawler crawl`'s fsync).
  bool fsync = true;
  std::string user_agent = "crawler/0.1 (+https://github.com/crawler)";
  // CIDRs the SSRF guard lets through, e.g. 127.0.0.0/8 for a test web on loopback.
  std::vector<std::string> allow_networks;
  bool partition_header = false;
  // URLs the popular-URL cache remembers as sent (exchange mode); 0 turns it off.
  size_t popular_cache_entries = size_t{1} << 16;
  absl::Duration report_interval = absl::Seconds(2);
  politeness::PolitenessOptions politeness;
  // Where politeness state lives: a redis:// URL shares one budget per host and address with
  // every other fetcher (and standalone crawl) using that Redis; in-process keeps it here.
  politeness::PolitenessStoreConfig politeness_store;
  FetcherOptions fetcher;

  // kInvalidArgument naming the key.
  absl::Status Validate() const;
};

const config::KeyTable<FetcherServerConfig>& FetcherServerKeys();

class FetcherServer {
 public:
  // Starts serving health and crawling. kInvalidArgument for a bad config, kUnavailable when
  // the health address cannot be bound.
  // With `metrics` (may be null; must outlive the server) its metrics are served there
  // (docs/metrics.md, "Fetcher").
  // `log` is the role's (serving, draining, what happens to its collections).
  static absl::StatusOr<std::unique_ptr<FetcherServer>> Start(
      const FetcherServerConfig& config, metrics::MetricsServer* metrics = nullptr,
      const Logger& log = {});
  ~FetcherServer();
  FetcherServer(const FetcherServer&) = delete;
  FetcherServer& operator=(const FetcherServer&) = delete;

  grpc_server::ServerRunner& runner() { return *runner_; }
  // Stops crawling and waits for the node to finish (see the file comment). Idempotent.
  void Stop();
  // Stops (if not yet) and releases everything. Idempotent.
  absl::Status Close();

 private:
  FetcherServer();

  SystemClock clock_;
  std::vector<std::shared_ptr<grpc::Channel>> frontier_channels_;
  std::unique_ptr<dedup::DedupClient> dedup_;
  std::unique_ptr<scheduler::SchedulerClient> scheduler_;
  const scheduler::ProtoRecordCodec codec_;
  std::unique_ptr<politeness::Politeness> politeness_;
  std::unique_ptr<SystemResolver> resolver_;
  std::unique_ptr<net::AddressPolicy> guard_;
  // The finished archive files, served on the internal port (before runner_: served until it
  // stops).
  std::unique_ptr<ArchiveFileStore> archive_files_;
  std::unique_ptr<grpc_common::CallAuth> archive_auth_;
  std::unique_ptr<ArchiveFilesService> archive_service_;
  // Before node_: its Fetchers report to these observers.
  std::unique_ptr<FetcherMetrics> fetcher_metrics_;
  // Figures read from the parts above when scraped; reset first in Close.
  metrics::ScopedCollector collector_;
  std::unique_ptr<FetcherNode> node_;
  std::thread node_thread_;
  std::unique_ptr<grpc_server::ServerRunner> runner_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_GRPC_FETCHER_SERVER_H_
