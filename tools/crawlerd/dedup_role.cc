// `crawlerd dedup`: the content index (services/dedup/grpc/dedup_server.h).
#include <cstdio>
#include <memory>
#include <string>

#include "services/common/service/service_main.h"
#include "services/dedup/grpc/dedup_server.h"
#include "tools/crawlerd/role.h"

namespace crawler::crawlerd {
namespace {

int RunDedup(const dedup::DedupServerConfig& config) {
  absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> metrics =
      service::StartMetrics("dedup", config.common.metrics_listen);
  if (!metrics.ok()) return service::ExitCodeFor(metrics.status());
  absl::StatusOr<std::unique_ptr<dedup::DedupServer>> server =
      dedup::DedupServer::Start(config, metrics->get());
  if (!server.ok()) {
    std::fprintf(stderr, "dedup: %s\n", server.status().ToString().c_str());
    return service::ExitCodeFor(server.status());
  }
  return service::ServeUntilSignal({.role = "dedup",
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
