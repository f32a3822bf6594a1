// Placeholder until lib/url's owner lands the real command.
#include "tools/crawler/commands.h"

namespace crawler::cli {

void AddInspectUrlCommand(CLI::App& inspect, int* exit_code) {
  inspect.add_subcommand("url", "(not built yet)")->callback([exit_code] { *exit_code = kExitUsage; });
}

}  // namespace crawler::cli
