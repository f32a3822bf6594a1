// banditsim: compares the focused-collection bandits (lib/bandit) on simulated site sets under a
// page budget (tools/banditsim/simulator.h explains the model and the oracle; docs/focused.md
// shows results). The command line is a contract scripts rely on:
//
//   banditsim [--set TYPE ...] [--policy NAME ...] [--sites K] [--budget N] [--seeds S]
//             [--seed X] [--csv FILE] [--threads T] [policy and model options]
//
// TYPE is table1, institute, university, mixed or all; NAME is r1, r2, r3, thompson, d-thompson,
// rested-thompson, d-ucb or all. It prints a table and writes the CSV (columns
// set,policy,seeds,mean_links,sd_links,p10_links,p90_links,ratio_to_oracle).
// Exit codes: 0 ok, 1 failure, 2 usage.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/bandit/policy_factory.h"
#include "tools/banditsim/simulator.h"
#include "tools/banditsim/site_set.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int Fail(const absl::Status& status, int code) {
  std::fprintf(stderr, "banditsim: %s\n", std::string(status.message()).c_str());
  return code;
}

// Expands "all" and drops repeats, keeping the order given.
std::vector<std::string> Expand(const std::vector<std::string>& given,
                                const std::vector<std::string>& all) {
  std::vector<std::string> names;
  for (const std::string& name : given) {
    const std::vector<std::string> add = name == "all" ? all : std::vector<std::string>{name};
    for (const std::string& n : add) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"banditsim: focused-collection bandits on simulated site sets (docs/focused.md)"};
  crawler::banditsim::ExperimentConfig config;
  crawler::bandit::PolicyOptions& po = config.policy_options;
  std::vector<std::string> sets = {"all"};
  std::vector<std::string> policies = {"all"};
  std::string csv_path;

  app.add_option("--set", sets,
                 "site set type (repeatable): table1, institute, university, "
                 "mixed, or all")
      ->capture_default_str();
  app.add_option("--policy", policies,
                 "policy (repeatable): r1, r2, r3, thompson, d-thompson, "
                 "rested-thompson, d-ucb, or all")
      ->capture_default_str();
  app.add_option("--sites", config.sites, "K, sites per set")->capture_default_str();
  app.add_option("--budget", config.budget, "N, pages per collection")->capture_default_str();
  app.add_option("--seeds", config.seeds, "site sets drawn per set type")->capture_default_str();
  app.add_option("--seed", config.seed, "base random seed")->capture_default_str();
  app.add_option("--csv", csv_path, "write the summaries here");
  std::string replay_path;
  app.add_option("--replay", replay_path,
                 "run on this site set (name<TAB>new links per page, comma-separated; websim "
                 "--focus-replay, crawler export rewards) instead of drawn ones");
  app.add_option("--threads", config.threads, "worker threads (results do not depend on it)")
      ->capture_default_str();
  app.add_option("--occurrences", config.duplicates.occurrences_per_link,
                 "link occurrences per distinct link (>= 1)")
      ->capture_default_str();
  app.add_option("--zipf", config.duplicates.zipf, "Zipf exponent of link popularity (>= 0)")
      ->capture_default_str();
  app.add_option("--r1-explore", po.r1.explore_pulls, "R1: E (0 = round(N/K))")
      ->capture_default_str();
  app.add_option("--r2-batch", po.r2.batch_pulls, "R2: n")->capture_default_str();
  app.add_option("--r3-initial", po.r3.initial_pulls, "R3: m")->capture_default_str();
  for (auto [prefix, options] : {std::pair{std::string("ts"), &po.thompson},
                                 std::pair{std::string("dts"), &po.discounted_thompson},
                                 std::pair{std::string("rts"), &po.rested_thompson}}) {
    app.add_option("--" + prefix + "-prior-shape", options->prior_shape, "a0")
        ->capture_default_str();
    app.add_option("--" + prefix + "-prior-rate", options->prior_rate, "b0")->capture_default_str();
    app.add_option("--" + prefix + "-scale", options->reward_scale, "reward scale")
        ->capture_default_str();
    app.add_option("--" + prefix + "-initial", options->initial_pulls, "initial pulls per site")
        ->capture_default_str();
  }
  app.add_option("--dts-discount", po.discounted_thompson.discount, "d-thompson: gamma")
      ->capture_default_str();
  app.add_option("--rts-discount", po.rested_thompson.discount, "rested-thompson: gamma")
      ->capture_default_str();
  app.add_option("--ducb-discount", po.discounted_ucb.discount, "d-ucb: gamma")
      ->capture_default_str();
  app.add_option("--ducb-xi", po.discounted_ucb.xi, "d-ucb: xi")->capture_default_str();
  app.add_option("--ducb-initial", po.discounted_ucb.initial_pulls, "d-ucb: initial pulls")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }

  config.set_types = Expand(sets, crawler::banditsim::SetTypeNames());
  if (!replay_path.empty()) {
    std::ifstream in(replay_path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      return Fail(absl::NotFoundError(absl::StrCat("cannot read ", replay_path)), kExitUsage);
    }
    absl::StatusOr<std::vector<crawler::banditsim::Site>> replay =
        crawler::banditsim::ParseReplay(text.str());
    if (!replay.ok()) return Fail(replay.status(), kExitUsage);
    config.replay = *std::move(replay);
    config.sites = static_cast<int>(config.replay.size());
    config.set_types = {"replay"};
  }
  config.policies = Expand(policies, crawler::bandit::PolicyNames());
  if (absl::Status s = crawler::banditsim::ValidateExperiment(config); !s.ok()) {
    return Fail(s, kExitUsage);
  }
  absl::StatusOr<std::vector<crawler::banditsim::Summary>> summaries =
      crawler::banditsim::RunExperiment(config);
  if (!summaries.ok()) return Fail(summaries.status(), kExitFailure);
  std::fputs(crawler::banditsim::FormatTable(config, *summaries).c_str(), stdout);
  if (!csv_path.empty()) {
    if (absl::Status s = crawler::banditsim::WriteCsv(csv_path, *summaries); !s.ok()) {
      return Fail(s, kExitFailure);
    }
  }
  return kExitOk;
}
