// `crawlerd fetcher`: replica k of the fetchers (services/fetcher/grpc/fetcher_server.h).
#include <memory>
#include <string>

#include "services/common/service/service_main.h"
#include "services/fetcher/grpc/fetcher_server.h"
#include "tools/crawlerd/role.h"

namespace crawler::crawlerd {
namespace {

int RunFetcher(const fetcher::FetcherServerConfig& config, const Logger& log) {
  absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> metrics =
      service::StartMetrics(log, config.common.metrics_listen);
  if (!metrics.ok()) return service::ExitCodeFor(metrics.status());
  absl::StatusOr<std::unique_ptr<fetcher::FetcherServer>> server =
      fetcher::FetcherServer::Start(config, metrics->get(), log);
  if (!server.ok()) {
    log.Error(server.status().ToString());
    return service::ExitCodeFor(server.status());
  }
  return service::ServeUntilSignal({.log = log,
                                    .runner = &(*server)->runner(),
                                    .drain_timeout = config.common.drain_timeout,
                                    .stop = [&] { (*server)->Stop(); },
                                    .close = [&] { return (*server)->Close(); }});
}

}  // namespace

void RegisterFetcherRole(CLI::App& app, int* exit_code) {
  AddRole<fetcher::FetcherServerConfig>(
      app, exit_code,
      {.name = "fetcher",
       .description = "Fetches partition k of every collection (exchange mode)",
       .keys = &fetcher::FetcherServerKeys(),
       .validate = [](const fetcher::FetcherServerConfig& c) { return c.Validate(); },
       .run = RunFetcher});
}

}  // namespace crawler::crawlerd
