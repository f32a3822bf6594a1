// `crawlerd frontier`: one frontier partition (services/frontier/grpc/frontier_server.h).
#include <memory>
#include <string>

#include "services/common/service/service_main.h"
#include "services/frontier/grpc/frontier_server.h"
#include "tools/crawlerd/role.h"

namespace crawler::crawlerd {
namespace {

int RunFrontier(const frontier::FrontierServerConfig& config, const Logger& log) {
  absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> metrics =
      service::StartMetrics(log, config.common.metrics_listen);
  if (!metrics.ok()) return service::ExitCodeFor(metrics.status());
  absl::StatusOr<std::unique_ptr<frontier::FrontierServer>> server =
      frontier::FrontierServer::Start(config, metrics->get(), log);
  if (!server.ok()) {
    log.Error(server.status().ToString());
    return service::ExitCodeFor(server.status());
  }
  return service::ServeUntilSignal({.log = log,
                                    .runner = &(*server)->runner(),
                                    .drain_timeout = config.common.drain_timeout,
                                    .close = [&] { return (*server)->Close(); }});
}

}  // namespace

void RegisterFrontierRole(CLI::App& app, int* exit_code) {
  AddRole<frontier::FrontierServerConfig>(
      app, exit_code,
      {.name = "frontier",
       .description = "One frontier partition: URL queues, seen-set, per-URL state, leases",
       .keys = &frontier::FrontierServerKeys(),
       .validate = [](const frontier::FrontierServerConfig& c) { return c.Validate(); },
       .run = RunFrontier});
}

}  // namespace crawler::crawlerd
