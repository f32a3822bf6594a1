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
  absl::StatusOr<std::unique_ptr<dedup::DedupServer>> server = dedup::DedupServer::Start(config);
  if (!server.ok()) {
    std::fprintf(stderr, "dedup: %s\n", server.status().ToString().c_str());
    return absl::IsInvalidArgument(server.status()) ? service::kExitUsage : service::kExitFailure;
  }
  return service::ServeUntilSignal({.role = "dedup",
                                    .runner = &(*server)->runner(),
                                    .drain_timeout = config.common.drain_timeout,
                                    .metrics_listen = config.common.metrics_listen,
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
