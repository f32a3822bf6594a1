// `crawler inspect partition`: which of N partitions owns each host (docs/architecture.md §4), as
// the frontiers and the routed client decide it.
//
//   crawler inspect partition --partitions N HOST_OR_URL...   "<partition>\t<host key>" per line
//
// An argument with "://" is a URL and its host key is used; anything else is taken as a host.
// Exit 0 on success; 1 with "invalid URL: <reason>" on stderr for a URL that does not parse; 2
// for bad flags.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "lib/partition/partition.h"
#include "lib/url/host_key.h"
#include "lib/url/url.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

struct InspectPartitionArgs {
  uint32_t partitions = 1;
  std::vector<std::string> inputs;
};

int RunInspectPartition(const InspectPartitionArgs& args) {
  int rc = kExitOk;
  for (const std::string& input : args.inputs) {
    std::string host_key;
    if (absl::StrContains(input, "://")) {
      absl::StatusOr<url::Url> parsed = url::Url::Parse(input);
      if (!parsed.ok()) {
        std::cerr << "invalid URL: " << parsed.status().message() << "\n";
        rc = kExitFailure;
        continue;
      }
      host_key = url::HostKey::Of(*parsed).str();
    } else {
      host_key = absl::AsciiStrToLower(input);
    }
    std::cout << partition::Partition(host_key, args.partitions) << "\t" << host_key << "\n";
  }
  return rc;
}

}  // namespace

void AddInspectPartitionCommand(CLI::App& inspect, int* exit_code) {
  auto args = std::make_shared<InspectPartitionArgs>();
  CLI::App* cmd = inspect.add_subcommand(
      "partition", "Print which of N partitions owns each host (\"<partition>\\t<host key>\")");
  cmd->add_option("--partitions", args->partitions, "Number of partitions")
      ->required()
      ->check(CLI::Range(1u, 65536u));
  cmd->add_option("inputs", args->inputs, "Hosts or URLs")->required();
  cmd->callback([args, exit_code] { *exit_code = RunInspectPartition(*args); });
}

}  // namespace crawler::cli
