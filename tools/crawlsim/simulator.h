// Simulator: a discrete-event simulation of re-visiting a collection of pages under a fixed
// visit budget, for comparing re-visit policies (lib/recrawl) at equal cost. No HTTP: each page
// changes as a Poisson process with its own rate (ChangeProcess), and a policy sees only what a
// crawler would see: per visit, the interval, whether the content changed and, for pages whose
// server sends one, Last-Modified.
//
// Budget and scheduling. One fetcher performs exactly `budget` visits per day, evenly spaced
// (visit k at k / budget). Each visit goes to the page with the earliest due time (ties to the
// lower page index); after a visit the policy sets the page's next due time to now + its
// interval. This is work-conserving: when the policy's intervals ask for more visits than the
// budget, pages are served late; when they ask for fewer, early. Either way a common lag L
// settles where sum_i 1 / (I_i + L) = budget, so every policy spends exactly the budget and its
// intervals act as relative priorities. For allocation policies (uniform, proportional, optimal,
// oracle) the frequencies already sum to the budget and L stays near 0; for uniform the order is
// a fixed round robin (Cho's fixed order).
//
// Start. At time 0 every page's copy is fresh (just crawled), its first visit is due at a random
// fraction of the interval its policy chose, and adaptive policies that take an initial interval
// start at the budget-matched one (pages / budget) so that no policy starts handicapped; their
// other parameters keep their shipped defaults. Rates, weights, change times and first-visit
// phases depend only on the seed, identical for every policy (common random numbers).
//
// Estimating policies re-estimate a page's rate at each of its visits; the fleet summary they are
// retuned with (histogram of current estimates, and a fleet mean rate to centre their priors on:
// changes seen / days observed over all visits so far) is refreshed every `retune_every_days`.
// "oracle" is the optimal policy fed the true rates, with no exploration floor.
//
// Cost: O((visits + pages) log pages), about a microsecond per visit; memory ~500 bytes per page.
//
// Thread-safety: RunPolicy() is reentrant; runs share only the const config.
#ifndef CRAWLER_TOOLS_CRAWLSIM_SIMULATOR_H_
#define CRAWLER_TOOLS_CRAWLSIM_SIMULATOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/recrawl/policy_factory.h"
#include "lib/recrawl/rate_prior.h"
#include "tools/crawlsim/change_process.h"

namespace crawler::crawlsim {

struct SimulationConfig {
  // One entry per page: true change rates (changes per day, >= 0) and importance weights (>= 0;
  // empty = all 1).
  std::vector<double> rates_per_day;
  std::vector<double> weights;
  // Visits per day shared by all pages; > 0.
  double budget_visits_per_day = 0;
  // Simulated days; > 0. Freshness and age are averaged over [warmup_days, days].
  double days = 0;
  double warmup_days = 0;
  // Width of the time buckets of the freshness-over-time series, days.
  double bucket_days = 1.0;
  uint64_t seed = 1;
  // The seed of the pages' change times alone (0: `seed`): the same pages with other changes,
  // to measure how much a freshness figure moves with the changes drawn.
  uint64_t change_seed = 0;
  // How pages' rates move over the run (drift, bursts); constant by default. With drift, known
  // rates (oracle, use_true_rates) are each page's rate at the time, and such a page is
  // re-planned whenever its rate moves.
  ChangeDynamics dynamics;
  // Fraction of pages (chosen by the seed) whose server sends a usable Last-Modified.
  double last_modified_share = 0.0;
  // Visits kept per page (VisitHistory capacity), 1..64.
  int history_capacity = 32;
  // How often estimating policies are retuned with fleet aggregates, days.
  double retune_every_days = 1.0;
  // Start adaptive policies at pages / budget instead of their shipped initial interval.
  bool budget_matched_start = true;
  // Give every estimating policy (optimal, proportional) the true rates instead of its estimates,
  // as in the closed-form comparisons of the papers. "oracle" always has them.
  bool use_true_rates = false;
  // Estimating policies' prior: fitted to the fleet's visit histories by maximum marginal
  // likelihood at every retune (recrawl::FleetEvidence), or, when false, the Gamma prior centred
  // on the fleet's changes per day of observation.
  bool fit_prior = true;
  // Diagnostic: instead of fitting, give the estimating policies the true rates' own
  // distribution, binned on the prior's grid (each page's rate to the nearest grid point), as
  // their prior from the first retune on: what a perfect fit could reach with the same visits.
  // Overrides fit_prior.
  bool true_prior = false;
  // The fitted prior's smoothing (FleetEvidence::FitOptions::smoothing).
  double prior_smoothing = recrawl::FleetEvidence::FitOptions{}.smoothing;
  recrawl::PolicyOptions policy_options;
};

struct PolicyRun {
  std::string policy;
  // Time-averaged (weighted) freshness and age over the window.
  double freshness = 0;
  double age_days = 0;
  // Visits made inside the window, and per day (the budget, by construction).
  int64_t visits = 0;
  double visits_per_day = 0;
  // What the policy asked for at the end: sum over pages of 1 / (its last interval), visits per
  // day. Above the budget, pages were served late; below, early.
  double requested_visits_per_day = 0;
  // Per time bucket, from day 0.
  std::vector<double> freshness_by_bucket;
  std::vector<double> age_by_bucket;
  // Per page: visits inside the window, and the policy's final rate estimate (0 if it has none).
  std::vector<uint32_t> page_visits;
  std::vector<float> page_rate_estimate;
  // CPU time of the run (thread CPU time, so parallel runs do not inflate each other).
  double cpu_seconds = 0;
};

// kInvalidArgument for an inconsistent config or an unknown policy name (the names of
// recrawl::RevisitPolicyNames() plus "oracle").
absl::Status ValidateConfig(const SimulationConfig& config);
absl::StatusOr<PolicyRun> RunPolicy(const SimulationConfig& config, std::string_view policy);

// Every policy name RunPolicy() accepts, oracle first.
std::vector<std::string> SimulatedPolicyNames();

}  // namespace crawler::crawlsim

#endif  // CRAWLER_TOOLS_CRAWLSIM_SIMULATOR_H_
