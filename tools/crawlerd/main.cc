// `crawlerd <role> --config FILE.yaml [flags]`: the crawler's services, one binary with one
// subcommand per role (tools/crawlerd/role.h; docs/services.md). main() only wires roles.
#include <CLI/CLI.hpp>

#include "services/common/open_file_limit.h"
#include "services/common/service/service_main.h"
#include "tools/crawlerd/role.h"

namespace {

// Every role of crawlerd; adding one is one line here (role.h).
constexpr crawler::crawlerd::RegisterRole kRoles[] = {
    crawler::crawlerd::RegisterFrontierRole,
    crawler::crawlerd::RegisterFetcherRole,
    crawler::crawlerd::RegisterDedupRole,
    crawler::crawlerd::RegisterSchedulerRole,
};

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists (gRPC's, RocksDB's), so that only sigwait ever sees the signals.
  crawler::service::BlockStopSignals();
  // A fetcher of many hosts keeps a connection to each: more than the usual soft limit of 1,024.
  crawler::service::RaiseOpenFileLimit();

  CLI::App app{"crawlerd: the crawler's services (docs/services.md)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "crawlerd " CRAWLER_VERSION);
  int exit_code = crawler::service::kExitOk;
  for (crawler::crawlerd::RegisterRole add : kRoles) add(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? crawler::service::kExitOk : crawler::service::kExitUsage;
  }
  return exit_code;
}
