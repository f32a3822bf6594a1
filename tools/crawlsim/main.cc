// crawlsim: compares re-visit policies on a simulated collection of pages under a fixed budget
// (tools/crawlsim/simulator.h explains the model; docs/recrawl.md shows results). The command
// line is a contract scripts rely on:
//
//   crawlsim --pages N --rates gamma:SHAPE,SCALE|lognormal:MU,SIGMA|FILE --budget VISITS_PER_DAY
//            --days D --policy NAME [--policy NAME ...] [--seed S] [--csv FILE]
//
// NAME is oracle, optimal, uniform, proportional, fixed, nutch, stormcrawler, step,
// bayes-published, bayes-corrected, or all. It prints a table and writes the CSV (columns
// policy,freshness,age,...; see report.h). Exit codes: 0 ok, 1 failure, 2 usage.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "tools/crawlsim/report.h"
#include "tools/crawlsim/simulator.h"
#include "tools/crawlsim/value_distribution.h"

namespace {

using crawler::crawlsim::ClosedForms;
using crawler::crawlsim::PolicyRun;
using crawler::crawlsim::SimulationConfig;
using crawler::crawlsim::ValueDistribution;

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// Streams of the seed used here (the simulator uses others).
constexpr uint64_t kRateSeedOffset = 0x5241544553ull;    // "RATES"
constexpr uint64_t kWeightSeedOffset = 0x574549474854ull;  // "WEIGHT"

int Fail(const absl::Status& status, int code) {
  std::fprintf(stderr, "crawlsim: %s\n", std::string(status.message()).c_str());
  return code;
}

// Runs the policies on up to `threads` threads; results keep the order of `names`.
std::vector<absl::StatusOr<PolicyRun>> RunAll(const SimulationConfig& config,
                                              const std::vector<std::string>& names,
                                              int threads) {
  std::vector<absl::StatusOr<PolicyRun>> results(names.size(),
                                                 absl::UnknownError("not run"));
  std::vector<std::thread> workers;
  const size_t count = std::max<size_t>(1, std::min<size_t>(threads, names.size()));
  for (size_t w = 0; w < count; ++w) {
    workers.emplace_back([&, w] {
      for (size_t i = w; i < names.size(); i += count) {
        results[i] = crawler::crawlsim::RunPolicy(config, names[i]);
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  return results;
}

// Every flag, and the simulation's configuration they make.
struct Flags {
  int64_t pages = 0;
  std::string rates_spec;
  std::string weights_spec;
  SimulationConfig config;
  std::vector<std::string> policies;
  std::string csv_path;
  std::string series_path;
  std::string allocation_path;
  int allocation_sample = 2000;
  double warmup_days = -1;
  double max_interval_days = 0;
  int threads = 1;
  std::string prior = "fitted";
  std::vector<double> bursts;
};

void AddFlags(CLI::App& app, Flags& f) {
  app.add_option("--pages", f.pages, "number of pages")->required()->check(CLI::Range(1, 50000000));
  app.add_option("--rates", f.rates_spec,
                 "change rates per day: gamma:SHAPE,SCALE, lognormal:MU,SIGMA, list:R1,R2,..., "
                 "or a file with one rate per line (repeated to fill --pages)")
      ->required();
  app.add_option("--budget", f.config.budget_visits_per_day, "visits per day, all pages together")
      ->required();
  app.add_option("--days", f.config.days, "simulated days")->required();
  app.add_option("--policy", f.policies,
                 "policy to run (repeatable): oracle, optimal, uniform, proportional, fixed, "
                 "nutch, stormcrawler, step, bayes-published, bayes-corrected, or all")
      ->required();
  app.add_option("--seed", f.config.seed, "random seed (same seed, same pages and changes)")
      ->default_val(1);
  app.add_option("--change-seed", f.config.change_seed,
                 "seed of the change times alone (default: --seed): the same pages, other "
                 "changes");
  app.add_option("--csv", f.csv_path, "write per-policy results here");
  app.add_option("--warmup", f.warmup_days,
                 "days excluded from the averages (default: half of --days)");
  app.add_option("--weights", f.weights_spec,
                 "importance weights, same syntax as --rates (default: all 1)");
  app.add_option("--series-csv", f.series_path, "write freshness and age over time here");
  app.add_option("--allocation-csv", f.allocation_path,
                 "write a sample of pages with optimal and realised visit frequencies here");
  app.add_option("--allocation-sample", f.allocation_sample, "pages in --allocation-csv")
      ->default_val(2000);
  app.add_option("--bucket-days", f.config.bucket_days, "time bucket of --series-csv, days")
      ->default_val(1.0);
  app.add_option("--last-modified", f.config.last_modified_share,
                 "share of pages whose server sends a usable Last-Modified, 0..1")
      ->default_val(0.0);
  app.add_option("--drift-days", f.config.dynamics.drift_days,
                 "re-draw each page's rate from the fleet's rates at exponential times of this "
                 "mean, days (0 = rates never move)")
      ->default_val(0.0);
  app.add_option("--bursts", f.bursts,
                 "SHARE,DAYS: pages change in bursts, active SHARE of the time in periods of DAYS "
                 "on average (at rate / SHARE), quiet otherwise")
      ->delimiter(',')
      ->expected(2);
  app.add_option("--history", f.config.history_capacity, "visits kept per page, 1..64")
      ->default_val(32);
  app.add_option("--retune-days", f.config.retune_every_days,
                 "how often estimating policies are retuned, days")
      ->default_val(1.0);
  app.add_option("--max-interval-days", f.max_interval_days,
                 "optimal: re-check every page at least this often (0 = 30 x pages/budget)")
      ->default_val(0.0);
  app.add_option("--prior-shape", f.config.policy_options.optimal.prior_shape,
                 "optimal, proportional: shape of the Gamma prior of the rate estimator (> 1)")
      ->default_val(2.0);
  app.add_option("--expected-freshness", f.config.policy_options.optimal.expected_freshness,
                 "optimal: decide every page on its posterior-expected freshness, mu solved over "
                 "the fleet's posteriors (true, the default), or plug the posterior log-mean "
                 "rate into the optimum (false: the previous rule)")
      ->default_val(true);
  app.add_option("--probe-horizon", f.config.policy_options.optimal.probe_horizon_days,
                 "optimal: probe pages the budget may abandon when the information repays the "
                 "visit within this many days (0 = never)")
      ->default_val(0.0);
  app.add_option("--explore-visits", f.config.policy_options.optimal.explore_visits,
                 "optimal: alternate short and long intervals until a page has this many visits "
                 "(0 = never)")
      ->check(CLI::NonNegativeNumber)
      ->default_val(0);
  app.add_option("--explore-short", f.config.policy_options.optimal.explore_short_share,
                 "optimal: the short exploration interval as a share of the chosen one, (0, 1]")
      ->check(CLI::Range(1e-9, 1.0))
      ->default_val(0.3);
  app.add_option("--prior", f.prior,
                 "optimal, proportional: the estimators' prior, fitted (to the fleet's histories, "
                 "by maximum marginal likelihood), fleet-mean (Gamma centred on changes per "
                 "day observed) or true (the true rates binned on the fitted prior's grid: what "
                 "a perfect fit could reach; a diagnostic)")
      ->check(CLI::IsMember({"fitted", "fleet-mean", "true"}))
      ->default_val("fitted");
  app.add_option("--prior-smoothing", f.config.prior_smoothing,
                 "the fitted prior's EMS smoothing: the share of each grid point's weight passed "
                 "to each neighbour per EM step")
      ->check(CLI::Range(0.0, 0.5))
      ->default_val(f.config.prior_smoothing);
  app.add_flag("--true-rates", f.config.use_true_rates,
               "give optimal and proportional the true rates instead of their estimates");
  app.add_option("--threads", f.threads, "policies simulated in parallel")->default_val(1);
}

// The configuration the flags describe: rates and weights drawn, the prior and warm-up chosen,
// the exploration floor set. `mean_rate` is the rate distribution's mean. kInvalidArgument for
// flags that do not fit together.
absl::Status Configure(Flags& f, double* mean_rate) {
  absl::StatusOr<ValueDistribution> rates = ValueDistribution::Parse(f.rates_spec);
  if (!rates.ok()) return rates.status();
  *mean_rate = rates->mean();
  f.config.rates_per_day = rates->Draw(f.pages, f.config.seed ^ kRateSeedOffset);
  if (!f.weights_spec.empty()) {
    absl::StatusOr<ValueDistribution> weights = ValueDistribution::Parse(f.weights_spec);
    if (!weights.ok()) return weights.status();
    f.config.weights = weights->Draw(f.pages, f.config.seed ^ kWeightSeedOffset);
  }
  if (!f.bursts.empty()) {
    f.config.dynamics.burst_share = f.bursts[0];
    f.config.dynamics.burst_days = f.bursts[1];
  }
  f.config.fit_prior = f.prior == "fitted";
  f.config.true_prior = f.prior == "true";
  f.config.warmup_days = f.warmup_days >= 0 ? f.warmup_days : f.config.days / 2;
  f.config.policy_options.proportional.prior_shape = f.config.policy_options.optimal.prior_shape;
  if (f.config.policy_options.optimal.prior_shape <= 1) {
    return absl::InvalidArgumentError("--prior-shape must be > 1");
  }
  const double matched_interval = static_cast<double>(f.pages) / f.config.budget_visits_per_day;
  if (f.max_interval_days < 0) {
    return absl::InvalidArgumentError("--max-interval-days must be >= 0");
  }
  f.config.policy_options.optimal.min_visits_per_day =
      1.0 / (f.max_interval_days > 0 ? f.max_interval_days : 30.0 * matched_interval);
  return crawler::crawlsim::ValidateConfig(f.config);
}

// The policies asked for, each once ("all" expands to every one), or kInvalidArgument.
absl::StatusOr<std::vector<std::string>> PolicyNames(const Flags& f) {
  std::vector<std::string> names;
  for (const std::string& policy : f.policies) {
    if (policy == "all") {
      for (const std::string& name : crawler::crawlsim::SimulatedPolicyNames()) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    } else if (std::find(names.begin(), names.end(), policy) == names.end()) {
      names.push_back(policy);
    }
  }
  for (const std::string& name : names) {
    const std::vector<std::string> known = crawler::crawlsim::SimulatedPolicyNames();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return absl::InvalidArgumentError("unknown policy \"" + name + "\" (try --policy all)");
    }
  }
  return names;
}

// The CSV files asked for.
absl::Status WriteCsvFiles(const Flags& f, const ClosedForms& closed,
                           const std::vector<PolicyRun>& runs) {
  if (!f.csv_path.empty()) {
    if (absl::Status s = crawler::crawlsim::WriteSummaryCsv(f.csv_path, f.config, runs); !s.ok()) {
      return s;
    }
  }
  if (!f.series_path.empty()) {
    if (absl::Status s = crawler::crawlsim::WriteSeriesCsv(f.series_path, f.config, runs);
        !s.ok()) {
      return s;
    }
  }
  if (!f.allocation_path.empty()) {
    if (absl::Status s = crawler::crawlsim::WriteAllocationCsv(f.allocation_path, f.config, closed,
                                                               runs, f.allocation_sample);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"crawlsim: re-visit policies under a visit budget, simulated (docs/recrawl.md)"};
  Flags f;
  AddFlags(app, f);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  double mean_rate = 0;
  if (absl::Status s = Configure(f, &mean_rate); !s.ok()) return Fail(s, kExitUsage);
  absl::StatusOr<std::vector<std::string>> names = PolicyNames(f);
  if (!names.ok()) return Fail(names.status(), kExitUsage);

  absl::StatusOr<ClosedForms> closed = crawler::crawlsim::ComputeClosedForms(f.config);
  if (!closed.ok()) return Fail(closed.status(), kExitFailure);

  std::vector<PolicyRun> runs;
  for (absl::StatusOr<PolicyRun>& result : RunAll(f.config, *names, f.threads)) {
    if (!result.ok()) return Fail(result.status(), kExitFailure);
    runs.push_back(*std::move(result));
  }

  const std::string description = absl::StrFormat(
      "crawlsim: %d pages, rates %s (mean %.4g/day), budget %g visits/day (%.4g per page per "
      "day), %g days, averages over days %g..%g, seed %d, Last-Modified share %g%s",
      f.pages, f.rates_spec, mean_rate, f.config.budget_visits_per_day,
      f.config.budget_visits_per_day / static_cast<double>(f.pages), f.config.days,
      f.config.warmup_days, f.config.days, f.config.seed, f.config.last_modified_share,
      f.config.use_true_rates ? ", true rates" : "");
  std::fputs(crawler::crawlsim::FormatTable(description, *closed, runs).c_str(), stdout);
  if (absl::Status s = WriteCsvFiles(f, *closed, runs); !s.ok()) return Fail(s, kExitFailure);
  return kExitOk;
}
