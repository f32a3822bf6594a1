// `crawlerd scheduler`: collections, the Admin API and the control loop
// (services/scheduler/grpc/scheduler_server.h).
#include <memory>
#include <string>

#include "services/common/service/service_main.h"
#include "services/scheduler/grpc/scheduler_server.h"
#include "tools/crawlerd/role.h"

namespace crawler::crawlerd {
namespace {

int RunScheduler(const scheduler::SchedulerServerConfig& config, const Logger& log) {
  absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> metrics =
      service::StartMetrics(log, config.common.metrics_listen);
  if (!metrics.ok()) return service::ExitCodeFor(metrics.status());
  absl::StatusOr<std::unique_ptr<scheduler::SchedulerServer>> server =
      scheduler::SchedulerServer::Start(config, metrics->get(), log);
  if (!server.ok()) {
    log.Error(server.status().ToString());
    return absl::IsInvalidArgument(server.status()) || absl::IsNotFound(server.status())
               ? service::kExitUsage
               : service::kExitFailure;
  }
  return service::ServeUntilSignal({.log = log,
                                    .runner = &(*server)->runner(),
                                    .drain_timeout = config.common.drain_timeout,
                                    .close = [&] { return (*server)->Close(); }});
}

}  // namespace

void RegisterSchedulerRole(CLI::App& app, int* exit_code) {
  AddRole<scheduler::SchedulerServerConfig>(
      app, exit_code,
      {.name = "scheduler",
       .description = "Collections, the Admin API (crawlctl) and the re-visit policy",
       .keys = &scheduler::SchedulerServerKeys(),
       .validate = [](const scheduler::SchedulerServerConfig& c) { return c.Validate(); },
       .run = RunScheduler});
}

}  // namespace crawler::crawlerd
