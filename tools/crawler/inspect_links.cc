// Placeholder until lib/links's owner lands the real command.
#include "tools/crawler/commands.h"

namespace crawler::cli {

void AddInspectLinksCommand(CLI::App& inspect, int* exit_code) {
  inspect.add_subcommand("links", "(not built yet)")->callback([exit_code] { *exit_code = kExitUsage; });
}

}  // namespace crawler::cli
