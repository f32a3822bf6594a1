// Placeholder until lib/robots's owner lands the real command.
#include "tools/crawler/commands.h"

namespace crawler::cli {

void AddInspectRobotsCommand(CLI::App& inspect, int* exit_code) {
  inspect.add_subcommand("robots", "(not built yet)")->callback([exit_code] { *exit_code = kExitUsage; });
}

}  // namespace crawler::cli
