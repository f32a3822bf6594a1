#include "services/common/service/service_main.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
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

absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> StartMetrics(const std::string& role,
                                                                     const std::string& listen) {
  if (listen.empty()) return nullptr;
  absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> server =
      metrics::MetricsServer::Start(listen);
  if (server.ok()) {
    std::fprintf(stderr, "%s: metrics on http://%s/metrics\n", role.c_str(),
                 (*server)->address().c_str());
  } else {
    std::fprintf(stderr, "%s: %s\n", role.c_str(), server.status().ToString().c_str());
  }
  return server;
}

int ServeUntilSignal(const ServeOptions& options) {
  const char* role = options.role.c_str();
  const int first = WaitForStopSignal();
  std::fprintf(stderr, "%s: %s received, draining (again to exit at once)\n", role,
               SignalName(first));

  // A second signal ends the process at once; the watcher is released by a signal of our own
  // once the drain is over.
  std::atomic<bool> drained{false};
  std::thread watcher([&drained, role] {
    const int sig = WaitForStopSignal();
    if (drained.load()) return;
    std::fprintf(stderr, "%s: %s received again, exiting without draining\n", role,
                 SignalName(sig));
    std::fflush(stderr);
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
    std::fprintf(stderr, "%s: closing failed: %s\n", role, closed.ToString().c_str());
    return kExitFailure;
  }
  std::fprintf(stderr, "%s: stopped\n", role);
  return kExitOk;
}

}  // namespace crawler::service
