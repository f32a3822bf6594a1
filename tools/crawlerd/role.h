// The roles of `crawlerd <role> --config FILE.yaml [flags]` (docs/services.md): one binary, one
// subcommand per service, as the Helm chart runs them.
//
// Adding a role takes one file and one line:
//   - tools/crawlerd/<role>_role.cc defines `void Register<Role>Role(CLI::App& app, int*
//     exit_code)`, which calls AddRole with the role's config table and run function (see
//     dedup_role.cc), and is listed in tools/crawlerd/CMakeLists.txt;
//   - its declaration below and its entry in kRoles (main.cc).
//
// AddRole gives every role the same command line: `--config FILE` (YAML, keys as in the role's
// table; unknown keys rejected), the table's flags (overriding the file), `--help`. Config
// errors print "<role>: <message>" on stderr and exit kExitUsage (2). The run function gets the
// validated config and returns the exit code; a serving role ends it with
// service::ServeUntilSignal (services/common/service/service_main.h). main() has blocked
// SIGTERM/SIGINT before any role runs.
#ifndef CRAWLER_TOOLS_CRAWLERD_ROLE_H_
#define CRAWLER_TOOLS_CRAWLERD_ROLE_H_

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "lib/log/logger.h"
#include "services/common/config/flag_binding.h"
#include "services/common/config/key_table.h"
#include "services/common/service/service_main.h"

namespace crawler::crawlerd {

template <typename Config>
struct RoleSpec {
  std::string name;         // the subcommand, also the prefix of its log lines
  std::string description;  // one line for --help
  const config::KeyTable<Config>* keys = nullptr;  // its YAML keys and flags; required
  // Checks the config once file and flags are in (kInvalidArgument naming the key). May be
  // empty.
  std::function<absl::Status(const Config&)> validate;
  // Runs the role with its log (the role's name on stderr); returns the process exit code
  // (service::kExit*).
  std::function<int(const Config&, const Logger&)> run;
};

// Registers `spec` as a subcommand of `app`; its callback stores the exit code in *exit_code.
template <typename Config>
void AddRole(CLI::App& app, int* exit_code, RoleSpec<Config> spec) {
  struct State {
    RoleSpec<Config> spec;
    std::string config_file;
    std::unique_ptr<config::FlagBinding<Config>> flags;
  };
  auto state = std::make_shared<State>();
  state->spec = std::move(spec);
  CLI::App* cmd = app.add_subcommand(state->spec.name, state->spec.description);
  cmd->add_option("--config", state->config_file,
                  "YAML file (docs/configuration.md); flags override it");
  state->flags = std::make_unique<config::FlagBinding<Config>>(*state->spec.keys, *cmd);
  cmd->callback([state, exit_code] {
    const RoleSpec<Config>& s = state->spec;
    StderrLogSink sink;
    const Logger log(sink, s.name);
    auto usage_error = [&](const absl::Status& status) {
      log.Error(status.message());
      return service::kExitUsage;
    };
    Config config;
    if (!state->config_file.empty()) {
      if (absl::Status st = s.keys->LoadFile(state->config_file, config); !st.ok()) {
        *exit_code = usage_error(st);
        return;
      }
    }
    if (absl::Status st = state->flags->Apply(config); !st.ok()) {
      *exit_code = usage_error(st);
      return;
    }
    if (s.validate) {
      if (absl::Status st = s.validate(config); !st.ok()) {
        *exit_code = usage_error(st);
        return;
      }
    }
    *exit_code = s.run(config, log);
  });
}

// One per role (each in its <role>_role.cc).
using RegisterRole = void (*)(CLI::App& app, int* exit_code);
void RegisterDedupRole(CLI::App& app, int* exit_code);
void RegisterFetcherRole(CLI::App& app, int* exit_code);
void RegisterFrontierRole(CLI::App& app, int* exit_code);
void RegisterSchedulerRole(CLI::App& app, int* exit_code);

}  // namespace crawler::crawlerd

#endif  // CRAWLER_TOOLS_CRAWLERD_ROLE_H_
