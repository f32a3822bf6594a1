#include "tools/crawlsim/simulator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/recrawl/rate_histogram.h"
#include "lib/recrawl/rate_prior.h"
#include "lib/recrawl/revisit_policy.h"
#include "lib/recrawl/visit_history.h"
#include "tools/crawlsim/change_process.h"
#include "tools/crawlsim/freshness_meter.h"
#include "tools/crawlsim/random.h"

namespace crawler::crawlsim {
namespace {

using recrawl::Decision;
using recrawl::FleetSummary;
using recrawl::PageView;
using recrawl::PolicyState;
using recrawl::RateHistogram;
using recrawl::Visit;
using recrawl::VisitHistory;

// Purposes of the seed's random streams; rates and weights are drawn by the caller.
constexpr uint64_t kChangeStream = 1;
constexpr uint64_t kPhaseStream = 2;
constexpr uint64_t kLastModifiedStream = 3;

constexpr double kMaxSeconds = std::numeric_limits<uint32_t>::max();

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

struct Page {
  Page(ChangeProcess process, int history_capacity)
      : changes(process), history(history_capacity) {}

  ChangeProcess changes;
  VisitHistory history;
  PolicyState policy;
  double last_visit_days = 0;
  double fresh_until_days = 0;  // the live page's first change after the last visit
  bool sends_last_modified = false;
};

uint32_t ToSeconds(double days) {
  return static_cast<uint32_t>(std::clamp(std::round(days * recrawl::kSecondsPerDay), 0.0,
                                          kMaxSeconds));
}

// The distribution of `rates` on RatePrior's grid: each rate counts for the grid point nearest
// to it on the log scale (0 and anything below the grid for its first point).
recrawl::RatePrior TruePrior(const std::vector<double>& rates) {
  using recrawl::RatePrior;
  std::array<double, RatePrior::kPoints> weights{};
  for (double rate : rates) {
    const double position =
        rate > 0 ? std::log10(rate / RatePrior::kMinRate) * RatePrior::kPointsPerDecade : 0.0;
    const int k =
        static_cast<int>(std::lround(std::clamp(position, 0.0, RatePrior::kPoints - 1.0)));
    weights[k] += 1;
  }
  return RatePrior(weights);
}

// The policy `name` simulates, with the options of `config` (and, for a budget-matched start,
// the baselines' first interval at the budget's uniform interval). "oracle" is the optimal
// policy on true rates, without an exploration floor.
absl::StatusOr<std::unique_ptr<recrawl::RevisitPolicy>> MakePolicy(const SimulationConfig& config,
                                                                   std::string_view name) {
  const bool oracle = name == "oracle";
  const double matched_interval_days =
      static_cast<double>(config.rates_per_day.size()) / config.budget_visits_per_day;
  recrawl::PolicyOptions options = config.policy_options;
  if (config.budget_matched_start) {
    options.nutch.initial_interval_days = matched_interval_days;
    options.stormcrawler.default_interval_minutes =
        static_cast<int>(std::clamp(std::round(matched_interval_days * 1440.0), 1.0, 1e9));
    options.step.initial_interval_days = matched_interval_days;
  }
  if (oracle) options.optimal.min_visits_per_day = 0;
  absl::StatusOr<std::unique_ptr<recrawl::RevisitPolicy>> made =
      recrawl::MakeRevisitPolicy(oracle ? "optimal" : name, options);
  if (!made.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown policy \"", std::string(name), "\" (try --policy all)"));
  }
  return made;
}

// The run's figures at the end: each page's last interval closed at config.days, freshness and
// age over the window and per bucket, visits made and requested per day.
void Summarise(const SimulationConfig& config, std::vector<Page>& pages,
               const std::vector<double>& last_interval_days, double total_weight,
               FreshnessMeter& meter, PolicyRun& run) {
  run.page_rate_estimate.resize(pages.size());
  for (size_t i = 0; i < pages.size(); ++i) {
    Page& page = pages[i];
    const double weight = config.weights.empty() ? 1.0 : config.weights[i];
    meter.AddInterval(page.last_visit_days, config.days, page.fresh_until_days, weight);
    run.page_rate_estimate[i] = static_cast<float>(page.policy.rate_per_day);
  }
  run.freshness = meter.WindowFreshness(total_weight);
  run.age_days = meter.WindowAgeDays(total_weight);
  run.visits_per_day = run.visits / (config.days - config.warmup_days);
  for (int b = 0; b < meter.bucket_count(); ++b) {
    run.freshness_by_bucket.push_back(meter.BucketFreshness(b, total_weight));
    run.age_by_bucket.push_back(meter.BucketAgeDays(b, total_weight));
  }
  for (double interval : last_interval_days) {
    if (interval > 0 && std::isfinite(interval)) run.requested_visits_per_day += 1.0 / interval;
  }
}

// A retune of the fleet's policy: with the fitted prior, a new fit of the fleet's evidence (warm-
// started from the previous one); with a fixed prior (the true one), that prior.
void Retune(const SimulationConfig& config, bool fit_prior, const recrawl::FleetEvidence& evidence,
            std::optional<recrawl::RatePrior>& fitted_prior, FleetSummary& fleet,
            recrawl::RevisitPolicy& policy) {
  if (fitted_prior.has_value() && !fit_prior) fleet.prior = &*fitted_prior;
  if (fit_prior && evidence.page_count() > 0) {
    recrawl::FleetEvidence::FitOptions fit;
    if (fitted_prior.has_value()) fit.iterations = 20;
    fitted_prior =
        evidence.Fit(fitted_prior.value_or(recrawl::RatePrior::FromGamma(
                         recrawl::FleetPrior(fleet, config.policy_options.optimal.prior_shape))),
                     fit);
    fleet.prior = &*fitted_prior;
  }
  policy.Retune(fleet);
}

}  // namespace

std::vector<std::string> SimulatedPolicyNames() {
  std::vector<std::string> names = {"oracle"};
  for (std::string_view name : recrawl::RevisitPolicyNames()) names.emplace_back(name);
  return names;
}

absl::Status ValidateConfig(const SimulationConfig& config) {
  if (config.rates_per_day.empty()) return absl::InvalidArgumentError("no pages");
  for (double rate : config.rates_per_day) {
    if (!(rate >= 0) || !std::isfinite(rate)) {
      return absl::InvalidArgumentError("change rates must be finite and >= 0");
    }
  }
  if (!config.weights.empty()) {
    if (config.weights.size() != config.rates_per_day.size()) {
      return absl::InvalidArgumentError("one weight per page, or none");
    }
    double total = 0;
    for (double weight : config.weights) {
      if (!(weight >= 0) || !std::isfinite(weight)) {
        return absl::InvalidArgumentError("weights must be finite and >= 0");
      }
      total += weight;
    }
    if (!(total > 0)) return absl::InvalidArgumentError("weights sum to 0");
  }
  if (!(config.budget_visits_per_day > 0) || !std::isfinite(config.budget_visits_per_day)) {
    return absl::InvalidArgumentError("budget must be > 0 visits per day");
  }
  if (!(config.days > 0) || !std::isfinite(config.days)) {
    return absl::InvalidArgumentError("days must be > 0");
  }
  if (!(config.warmup_days >= 0) || !(config.warmup_days < config.days)) {
    return absl::InvalidArgumentError("warm-up must be in [0, days)");
  }
  if (!(config.bucket_days > 0)) return absl::InvalidArgumentError("bucket width must be > 0");
  if (!(config.retune_every_days > 0)) {
    return absl::InvalidArgumentError("retune period must be > 0");
  }
  if (!(config.last_modified_share >= 0 && config.last_modified_share <= 1)) {
    return absl::InvalidArgumentError("Last-Modified share must be in [0, 1]");
  }
  if (config.history_capacity < 1 || config.history_capacity > VisitHistory::kMaxCapacity) {
    return absl::InvalidArgumentError(
        absl::StrCat("history must keep 1..", VisitHistory::kMaxCapacity, " visits"));
  }
  // Each simulated visit is one loop iteration; refuse runs that could not finish.
  if (config.days * config.budget_visits_per_day > 2e10) {
    return absl::InvalidArgumentError("more than 2e10 visits: reduce budget or days");
  }
  return absl::OkStatus();
}

absl::StatusOr<PolicyRun> RunPolicy(const SimulationConfig& config, std::string_view name) {
  if (absl::Status status = ValidateConfig(config); !status.ok()) return status;
  const double started = ThreadCpuSeconds();
  const bool oracle = name == "oracle";
  const int64_t page_count = static_cast<int64_t>(config.rates_per_day.size());
  const double budget = config.budget_visits_per_day;
  absl::StatusOr<std::unique_ptr<recrawl::RevisitPolicy>> made = MakePolicy(config, name);
  if (!made.ok()) return made.status();
  recrawl::RevisitPolicy& policy = **made;

  auto weight_of = [&](int64_t i) { return config.weights.empty() ? 1.0 : config.weights[i]; };
  const bool true_rates = oracle || config.use_true_rates;
  auto known_rate_of = [&](int64_t i) { return true_rates ? config.rates_per_day[i] : -1.0; };
  double total_weight = 0;
  for (int64_t i = 0; i < page_count; ++i) total_weight += weight_of(i);

  RateHistogram histogram;
  FleetSummary fleet{budget, page_count, &histogram, 0.0};
  policy.Retune(fleet);
  // The fleet's evidence and the prior fitted to it, each fit warm-started from the previous one.
  recrawl::FleetEvidence evidence;
  std::optional<recrawl::RatePrior> fitted_prior;
  const bool fit_prior = config.fit_prior && !config.true_prior && !true_rates;
  if (config.true_prior && !true_rates) fitted_prior = TruePrior(config.rates_per_day);

  using Due = std::pair<double, uint32_t>;
  std::vector<Due> due_storage;
  due_storage.reserve(static_cast<size_t>(page_count));
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due(std::greater<Due>(),
                                                                     std::move(due_storage));

  std::vector<Page> pages;
  pages.reserve(static_cast<size_t>(page_count));
  std::vector<double> last_interval_days(static_cast<size_t>(page_count), 0.0);
  for (int64_t i = 0; i < page_count; ++i) {
    pages.emplace_back(ChangeProcess(StreamKey(config.seed, kChangeStream, i),
                                     config.rates_per_day[i]),
                       config.history_capacity);
    Page& page = pages.back();
    page.fresh_until_days = page.changes.next_change_days();
    page.sends_last_modified =
        StreamUniform(StreamKey(config.seed, kLastModifiedStream, i), 0) <
        config.last_modified_share;
    const Decision decision = policy.Decide(
        PageView{page.history, 0.0, weight_of(i), known_rate_of(i)}, PolicyState{});
    page.policy = decision.state;
    last_interval_days[i] = decision.next_visit_in_days;
    histogram.Add(page.policy.rate_per_day, weight_of(i));
    if (std::isfinite(decision.next_visit_in_days)) {
      const double phase = StreamUniform(StreamKey(config.seed, kPhaseStream, i), 0);
      due.emplace(phase * std::max(decision.next_visit_in_days, 0.0), static_cast<uint32_t>(i));
    }
  }
  policy.Retune(fleet);

  FreshnessMeter meter(config.days, config.bucket_days, config.warmup_days);
  PolicyRun run;
  run.policy = std::string(name);
  run.page_visits.assign(static_cast<size_t>(page_count), 0);

  double changes_seen = 0;
  double days_observed = 0;
  double next_retune = config.retune_every_days;
  const int64_t total_visits = static_cast<int64_t>(std::floor(config.days * budget));
  for (int64_t k = 1; k <= total_visits && !due.empty(); ++k) {
    const double now = static_cast<double>(k) / budget;
    if (now >= next_retune) {
      fleet.mean_rate_per_day = changes_seen > 0 ? changes_seen / days_observed : 0.0;
      Retune(config, fit_prior, evidence, fitted_prior, fleet, policy);
      while (next_retune <= now) next_retune += config.retune_every_days;
    }
    const uint32_t i = due.top().second;
    due.pop();
    Page& page = pages[i];
    const double weight = weight_of(i);

    const bool changed = page.fresh_until_days <= now;
    meter.AddInterval(page.last_visit_days, now, page.fresh_until_days, weight);
    page.changes.AdvanceTo(now);
    Visit visit;
    visit.interval_seconds = std::max<uint32_t>(ToSeconds(now - page.last_visit_days), 1);
    visit.changed = changed;
    if (page.sends_last_modified) {
      visit.has_last_modified = true;
      visit.since_last_modified_seconds = ToSeconds(now - page.changes.last_change_days());
    }
    if (fit_prior) evidence.Remove(page.history);
    page.history.Append(visit);
    if (fit_prior) evidence.Add(page.history);
    changes_seen += changed ? 1 : 0;
    days_observed += now - page.last_visit_days;
    page.last_visit_days = now;
    page.fresh_until_days = page.changes.next_change_days();

    const Decision decision =
        policy.Decide(PageView{page.history, now, weight, known_rate_of(i)}, page.policy);
    if (decision.state.rate_per_day != page.policy.rate_per_day) {
      histogram.Remove(page.policy.rate_per_day, weight);
      histogram.Add(decision.state.rate_per_day, weight);
    }
    page.policy = decision.state;
    last_interval_days[i] = decision.next_visit_in_days;
    if (now >= config.warmup_days) {
      ++run.visits;
      ++run.page_visits[i];
    }
    if (std::isfinite(decision.next_visit_in_days)) {
      due.emplace(now + decision.next_visit_in_days, i);
    }
  }

  Summarise(config, pages, last_interval_days, total_weight, meter, run);
  run.cpu_seconds = ThreadCpuSeconds() - started;
  return run;
}

}  // namespace crawler::crawlsim
