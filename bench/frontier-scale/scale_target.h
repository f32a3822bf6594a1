// The two ways bench/frontier-scale reaches one frontier partition, behind one FrontierClient:
//
// - CoreTarget: the Frontier core in this process, on its RocksDB store, called directly
//   (LocalFrontierClient): what the frontier itself costs.
// - ServerTarget: `crawlerd frontier` as a child process on a loopback port, called over gRPC
//   as a fetcher calls it (GrpcFrontierClient): the core plus the RPC layer. The child can be
//   stopped with SIGTERM (it drains and closes its stores) or SIGKILL, and started again on the
//   same data directory, timing how long it takes to lease again.
//
// Both use the same store, <data_dir>/collections/<collection>/store, the layout the server
// keeps (services/frontier/grpc/frontier_host.h), and the same options: the server's defaults
// (FrontierServerConfig) with the collection's settings. So a store grown through the core is
// served by the server as it is.
//
// Thread-safety: a target's client() may be used from several threads (both clients are
// thread-safe); starting, stopping and closing are for one thread.
#ifndef CRAWLER_BENCH_FRONTIER_SCALE_SCALE_TARGET_H_
#define CRAWLER_BENCH_FRONTIER_SCALE_SCALE_TARGET_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/frontier_client.h"
#include "services/frontier/frontier_options.h"

namespace crawler::bench {

// Resident set size of a process, from /proc/PID/status (pid 0: this process).
struct Memory {
  uint64_t rss_bytes = 0;
  uint64_t peak_rss_bytes = 0;
};
Memory MemoryOf(pid_t pid);

// Bytes of the files under `path` (recursively); 0 if it does not exist.
uint64_t DirectoryBytes(const std::string& path);

struct TargetConfig {
  std::string data_dir;  // the server's --data-dir
  frontier::CollectionSettings collection;
  // Server-wide options that differ from FrontierServerConfig's defaults.
  uint64_t max_urls_per_host = frontier::FrontierOptions().max_urls_per_host;
  size_t seen_cache_entries = frontier::FrontierOptions().seen_cache_entries;
  std::string crawlerd;  // the crawlerd binary (ServerTarget only)
};

// The path of the collection's store under the data directory.
std::string StorePath(const TargetConfig& config);

class CoreTarget {
 public:
  // Opens (or creates) the store and the core. How long Open took is open_time().
  static absl::StatusOr<std::unique_ptr<CoreTarget>> Open(const TargetConfig& config);
  ~CoreTarget();

  frontier::FrontierClient& client() { return *client_; }
  kv::RocksDbKvStore& store() { return *store_; }
  absl::Duration open_time() const { return open_time_; }
  // Closes the core, then the store (RocksDB flushes its memtables).
  void Close();

 private:
  CoreTarget() = default;
  SystemClock clock_;
  std::unique_ptr<kv::RocksDbKvStore> store_;
  std::unique_ptr<frontier::Frontier> core_;
  std::unique_ptr<frontier::FrontierClient> client_;
  absl::Duration open_time_;
};

class ServerTarget {
 public:
  // Starts the server (opening the collection on its first start) and waits until it serves;
  // `log_path` receives its stderr. kDeadlineExceeded after `timeout`.
  static absl::StatusOr<std::unique_ptr<ServerTarget>> Start(const TargetConfig& config,
                                                             const std::string& log_path,
                                                             absl::Duration timeout);
  // Kills the child (SIGKILL) if it still runs.
  ~ServerTarget();

  frontier::FrontierClient& client() { return *client_; }
  pid_t pid() const { return pid_; }
  // From fork to the first Lease that returned a URL (set by WaitForFirstLease).
  absl::Duration first_lease_time() const { return first_lease_time_; }

  // Polls Lease(1, 1) until it returns a URL (whose lease is handed back), timing it from the
  // fork. kDeadlineExceeded after `timeout` (the frontier has nothing to lease, or is stuck).
  absl::Status WaitForFirstLease(absl::Duration timeout);

  // Sends `signal` and waits (at most `timeout`) for the child to exit.
  absl::Status Stop(int signal, absl::Duration timeout);

 private:
  ServerTarget() = default;
  absl::Status Spawn(const TargetConfig& config, const std::string& log_path);
  absl::Status Connect(const TargetConfig& config, const std::string& log_path,
                       absl::Duration timeout);

  pid_t pid_ = 0;
  absl::Time forked_;
  std::unique_ptr<frontier::FrontierClient> client_;
  absl::Duration first_lease_time_ = absl::InfiniteDuration();
};

}  // namespace crawler::bench

#endif  // CRAWLER_BENCH_FRONTIER_SCALE_SCALE_TARGET_H_
