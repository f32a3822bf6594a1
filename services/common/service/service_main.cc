#include "services/common/service/service_main.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace crawler::service {
namespace {

sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  return signals;
}

const char* SignalName(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

}  // namespace

void BlockStopSignals() {
  const sigset_t signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

int WaitForStopSignal() {
  const sigset_t signals = StopSignals();
  int sig = 0;
  while (sigwait(&signals, &sig) != 0) {
  }
  return sig;
}

int ExitCodeFor(const absl::Status& error) {
  return absl::IsInvalidArgument(error) ? kExitUsage : kExitFailure;
}

absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> StartMetrics(const Logger& log,
                                                                     const std::string& listen) {
  if (listen.empty()) return nullptr;
  absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> server =
      metrics::MetricsServer::Start(listen);
  if (server.ok()) {
    log.Info("metrics on http://", (*server)->address(), "/metrics");
  } else {
    log.Error(server.status().ToString());
  }
  return server;
}

int ServeUntilSignal(const ServeOptions& options) {
  const Logger& log = options.log;
  const int first = WaitForStopSignal();
  log.Info(SignalName(first), " received, draining (again to exit at once)");

  // A second signal ends the process at once; the watcher is released by a signal of our own
  // once the drain is over.
  std::atomic<bool> drained{false};
  std::thread watcher([&drained, &log] {
    const int sig = WaitForStopSignal();
    if (drained.load()) return;
    log.Info(SignalName(sig), " received again, exiting without draining");
    _exit(128 + sig);
  });

  if (options.stop) options.stop();
  options.runner->SetServing(false);
  options.runner->Shutdown(options.drain_timeout);
  absl::Status closed = options.close ? options.close() : absl::OkStatus();

  drained.store(true);
  pthread_kill(watcher.native_handle(), SIGTERM);
  watcher.join();

  if (!closed.ok()) {
    log.Error("closing failed: ", closed.ToString());
    return kExitFailure;
  }
  log.Info("stopped");
  return kExitOk;
}

}  // namespace crawler::service
