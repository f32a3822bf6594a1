// `crawlerd dedup`: the content index (services/dedup/grpc/dedup_server.h).
#include <memory>
#include <string>

#include "services/common/service/service_main.h"
#include "services/dedup/grpc/dedup_server.h"
#include "tools/crawlerd/role.h"

namespace crawler::crawlerd {
namespace {

int RunDedup(const dedup::DedupServerConfig& config, const Logger& log) {
  absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> metrics =
      service::StartMetrics(log, config.common.metrics_listen);
  if (!metrics.ok()) return service::ExitCodeFor(metrics.status());
  absl::StatusOr<std::unique_ptr<dedup::DedupServer>> server =
      dedup::DedupServer::Start(config, metrics->get(), log);
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

void RegisterDedupRole(CLI::App& app, int* exit_code) {
  AddRole<dedup::DedupServerConfig>(
      app, exit_code,
      {.name = "dedup",
       .description = "The content index: exact and near-duplicate lookups for fetchers",
       .keys = &dedup::DedupServerKeys(),
       .validate = [](const dedup::DedupServerConfig& c) { return c.Validate(); },
       .run = RunDedup});
}

}  // namespace crawler::crawlerd
