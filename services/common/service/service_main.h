// What every crawlerd role's main shares (docs/services.md "Start, signals, exit codes"): SIGTERM
// and SIGINT are taken by sigwait, never by an asynchronous handler, and the first one starts the
// drain:
//
//   1. the role's stop hook (e.g. the fetcher finishes its transfers and hands back its leases);
//   2. health turns NOT_SERVING, so load balancers and clients move away;
//   3. the server stops accepting calls and gives those in progress drain_timeout to finish;
//   4. the close hook releases the cores and their storage (e.g. RocksDB flushes and closes);
//   5. "<role>: stopped" logged, exit code 0 (1 if the close hook failed).
//
// A second SIGTERM/SIGINT during the drain exits at once with 128 + its number (_exit: no
// destructors run; RocksDB's write-ahead log keeps what was written).
//
// Usage, in a role's run function (tools/crawlerd/role.h; main() ran BlockStopSignals), e.g.
// tools/crawlerd/dedup_role.cc:
//
//   auto metrics = service::StartMetrics(log, config.common.metrics_listen);
//   if (!metrics.ok()) return service::ExitCodeFor(metrics.status());  // logged
//   auto server = dedup::DedupServer::Start(config, metrics->get(), log);  // "serving on ..."
//   if (!server.ok()) { ...; return service::ExitCodeFor(server.status()); }
//   return service::ServeUntilSignal({.log = log,
//                                     .runner = &(*server)->runner(),
//                                     .drain_timeout = config.common.drain_timeout,
//                                     .close = [&] { return (*server)->Close(); }});
//
// Thread-safety: BlockStopSignals must run before the process starts any thread (threads
// inherit the signal mask; a thread started earlier could receive the signal and be killed by
// its default action). ServeUntilSignal is called once, from one thread.
#ifndef CRAWLER_SERVICES_COMMON_SERVICE_SERVICE_MAIN_H_
#define CRAWLER_SERVICES_COMMON_SERVICE_SERVICE_MAIN_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/log/logger.h"
#include "services/common/grpc/server_runner.h"
#include "services/common/metrics/metrics_server.h"

namespace crawler::service {

// Exit codes of crawlerd (and of ServeUntilSignal).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // could not start (bind, storage) or close cleanly
inline constexpr int kExitUsage = 2;    // bad flags or configuration

// kExitUsage for kInvalidArgument (a bad flag or key), kExitFailure for any other error.
int ExitCodeFor(const absl::Status& error);

// The role's metrics endpoint (docs/metrics.md) at `listen` (the common block's
// metrics_listen), logging "<role>: metrics on http://HOST:PORT/metrics"; null when `listen` is
// empty. Errors as metrics::MetricsServer::Start, logged. Start it before the role's server, which
// registers its metrics in it, and keep it until that server is closed.
absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> StartMetrics(const Logger& log,
                                                                     const std::string& listen);

// Blocks SIGTERM and SIGINT in the calling thread, hence in every thread it starts later.
void BlockStopSignals();

// Waits for SIGTERM or SIGINT (REQUIRES: BlockStopSignals) and returns its number.
int WaitForStopSignal();

struct ServeOptions {
  // The role's log ("dedup", "frontier", ...): the drain's lines.
  Logger log;
  // The role's started server. Required; not owned.
  grpc_server::ServerRunner* runner = nullptr;
  // Calls in progress get this long to finish once the server stops accepting new ones.
  absl::Duration drain_timeout = absl::Seconds(20);
  // Step 1 of the drain, while the server still serves (the role's own work winds down). May
  // be empty.
  std::function<void()> stop;
  // Step 4, after the server has stopped: close the cores and their storage. An error is
  // logged and makes the exit code kExitFailure. May be empty.
  std::function<absl::Status()> close;
};

// Waits for the first stop signal, then drains as in the file comment. Returns the exit code
// (kExitOk, or kExitFailure when `close` failed); a second signal _exits the process instead.
// REQUIRES: BlockStopSignals() ran before any thread was started.
int ServeUntilSignal(const ServeOptions& options);

}  // namespace crawler::service

#endif  // CRAWLER_SERVICES_COMMON_SERVICE_SERVICE_MAIN_H_
