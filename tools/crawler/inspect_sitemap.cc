// Placeholder until lib/sitemap's owner lands the real command.
#include "tools/crawler/commands.h"

namespace crawler::cli {

void AddInspectSitemapCommand(CLI::App& inspect, int* exit_code) {
  inspect.add_subcommand("sitemap", "(not built yet)")->callback([exit_code] { *exit_code = kExitUsage; });
}

}  // namespace crawler::cli
