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
#include <tuple>
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
  const ChangeDynamics& dynamics = config.dynamics;
  if (!(dynamics.drift_days >= 0) || !std::isfinite(dynamics.drift_days)) {
    return absl::InvalidArgumentError("drift days must be >= 0");
  }
  if (!(dynamics.burst_share > 0 && dynamics.burst_share <= 1) ||
      (dynamics.bursts() && !(dynamics.burst_days > 0 && std::isfinite(dynamics.burst_days)))) {
    return absl::InvalidArgumentError(
        "bursts need an active share in (0, 1] and active periods of > 0 days");
  }
  // Each simulated visit is one loop iteration; refuse runs that could not finish.
  if (config.days * config.budget_visits_per_day > 2e10) {
    return absl::InvalidArgumentError("more than 2e10 visits: reduce budget or days");
  }
  return absl::OkStatus();
}

namespace {

// One policy's run over the configured pages (RunPolicy()).
class PolicySimulation {
 public:
  PolicySimulation(const SimulationConfig& config, std::string_view name,
                   recrawl::RevisitPolicy& policy)
      : config_(config),
        policy_(policy),
        oracle_(name == "oracle"),
        true_rates_(oracle_ || config.use_true_rates),
        budget_(config.budget_visits_per_day),
        fit_prior_(config.fit_prior && !config.true_prior && !true_rates_),
        collect_evidence_(!true_rates_ && (fit_prior_ || config.true_prior)),
        // Known rates change with a drift: the page is re-planned when they do.
        replan_on_drift_(true_rates_ && config.dynamics.drifts()),
        meter_(config.days, config.bucket_days, config.warmup_days) {
    run_.policy = std::string(name);
    if (config.true_prior && !true_rates_) fitted_prior_ = TruePrior(config.rates_per_day);
  }

  PolicyRun Run() {
    Start();
    next_retune_ = config_.retune_every_days;
    const int64_t total_visits = static_cast<int64_t>(std::floor(config_.days * budget_));
    for (int64_t k = 1; k <= total_visits; ++k) {
      const double now = static_cast<double>(k) / budget_;
      if (now >= next_retune_) Retune(now);
      if (replan_on_drift_) ReplanDrifted(now);
      std::optional<uint32_t> i = PopDue();
      if (!i.has_value()) break;
      VisitPage(*i, now);
    }
    return Finish();
  }

 private:
  struct Due {
    double days;
    uint32_t page;
    uint32_t generation;
    friend bool operator>(const Due& a, const Due& b) {
      return std::tie(a.days, a.page) > std::tie(b.days, b.page);
    }
  };

  double weight_of(size_t i) const { return config_.weights.empty() ? 1.0 : config_.weights[i]; }
  double known_rate_of(size_t i) const {
    return true_rates_ ? pages_[i].changes.rate_per_day() : -1.0;
  }

  void Schedule(uint32_t i, double days) {
    due_.push(Due{days, i, ++generation_[i]});
  }

  // The page due next (entries superseded by a re-plan are skipped).
  std::optional<uint32_t> PopDue() {
    while (!due_.empty()) {
      const Due next = due_.top();
      due_.pop();
      if (next.generation == generation_[next.page]) return next.page;
    }
    return std::nullopt;
  }

  void Start() {
    const size_t page_count = config_.rates_per_day.size();
    for (size_t i = 0; i < page_count; ++i) total_weight_ += weight_of(i);
    fleet_ = FleetSummary{budget_, static_cast<int64_t>(page_count), &histogram_, 0.0};
    fleet_.retune_period_days = config_.retune_every_days;
    policy_.Retune(fleet_);
    pages_.reserve(page_count);
    generation_.assign(page_count, 0);
    last_interval_days_.assign(page_count, 0.0);
    run_.page_visits.assign(page_count, 0);
    for (size_t i = 0; i < page_count; ++i) {
      const uint64_t change_seed = config_.change_seed != 0 ? config_.change_seed : config_.seed;
      pages_.emplace_back(ChangeProcess(StreamKey(change_seed, kChangeStream, i),
                                        config_.rates_per_day[i], config_.dynamics,
                                        config_.rates_per_day, config_.days),
                          config_.history_capacity);
      Page& page = pages_.back();
      page.fresh_until_days = page.changes.next_change_days();
      page.sends_last_modified =
          StreamUniform(StreamKey(config_.seed, kLastModifiedStream, i), 0) <
          config_.last_modified_share;
      const Decision decision = policy_.Decide(
          PageView{page.history, 0.0, weight_of(i), known_rate_of(i)}, PolicyState{});
      page.policy = decision.state;
      last_interval_days_[i] = decision.next_visit_in_days;
      histogram_.Add(page.policy.rate_per_day, weight_of(i));
      if (std::isfinite(decision.next_visit_in_days)) {
        const double phase = StreamUniform(StreamKey(config_.seed, kPhaseStream, i), 0);
        Schedule(static_cast<uint32_t>(i), phase * std::max(decision.next_visit_in_days, 0.0));
      }
      if (replan_on_drift_ && std::isfinite(page.changes.next_drift_days())) {
        drifts_.push(Due{page.changes.next_drift_days(), static_cast<uint32_t>(i), 0});
      }
    }
    policy_.Retune(fleet_);
  }

  void Retune(double now) {
    fleet_.mean_rate_per_day = changes_seen_ > 0 ? changes_seen_ / days_observed_ : 0.0;
    if (fitted_prior_.has_value() && !fit_prior_) fleet_.prior = &*fitted_prior_;
    if (collect_evidence_) fleet_.evidence = &evidence_;
    if (fit_prior_ && evidence_.page_count() > 0) {
      recrawl::FleetEvidence::FitOptions fit;
      fit.smoothing = config_.prior_smoothing;
      if (fitted_prior_.has_value()) fit.iterations = 20;
      fitted_prior_ = evidence_.Fit(
          fitted_prior_.value_or(recrawl::RatePrior::FromGamma(
              recrawl::FleetPrior(fleet_, config_.policy_options.optimal.prior_shape))),
          fit);
      fleet_.prior = &*fitted_prior_;
    }
    policy_.Retune(fleet_);
    while (next_retune_ <= now) next_retune_ += config_.retune_every_days;
  }

  // Re-decides, with its new rate, every page whose rate drifted before `now`.
  void ReplanDrifted(double now) {
    while (!drifts_.empty() && drifts_.top().days <= now) {
      const Due drift = drifts_.top();
      drifts_.pop();
      Page& page = pages_[drift.page];
      page.changes.AdvanceTo(drift.days);
      const Decision decision = Decide(drift.page, drift.days);
      if (std::isfinite(decision.next_visit_in_days)) {
        Schedule(drift.page,
                 std::max(drift.days, page.last_visit_days + decision.next_visit_in_days));
      } else {
        ++generation_[drift.page];  // never, until the next drift
      }
      if (std::isfinite(page.changes.next_drift_days())) {
        drifts_.push(Due{page.changes.next_drift_days(), drift.page, 0});
      }
    }
  }

  // The policy's decision for page i at `now`, kept in the page and the histogram.
  Decision Decide(uint32_t i, double now) {
    Page& page = pages_[i];
    const Decision decision =
        policy_.Decide(PageView{page.history, now, weight_of(i), known_rate_of(i)}, page.policy);
    if (decision.state.rate_per_day != page.policy.rate_per_day) {
      histogram_.Remove(page.policy.rate_per_day, weight_of(i));
      histogram_.Add(decision.state.rate_per_day, weight_of(i));
    }
    page.policy = decision.state;
    last_interval_days_[i] = decision.next_visit_in_days;
    return decision;
  }

  void VisitPage(uint32_t i, double now) {
    Page& page = pages_[i];
    const bool changed = page.fresh_until_days <= now;
    meter_.AddInterval(page.last_visit_days, now, page.fresh_until_days, weight_of(i));
    page.changes.AdvanceTo(now);
    recrawl::Visit visit;
    visit.interval_seconds = std::max<uint32_t>(ToSeconds(now - page.last_visit_days), 1);
    visit.changed = changed;
    if (page.sends_last_modified) {
      visit.has_last_modified = true;
      visit.since_last_modified_seconds = ToSeconds(now - page.changes.last_change_days());
    }
    // The evidence holds each page's history with its last decision: out with the old pair, in
    // with the new.
    if (collect_evidence_) {
      evidence_.Remove(page.history, 1.0, recrawl::CommittedVisitsPerDay(page.policy));
    }
    page.history.Append(visit);
    changes_seen_ += changed ? 1 : 0;
    days_observed_ += now - page.last_visit_days;
    page.last_visit_days = now;
    page.fresh_until_days = page.changes.next_change_days();

    const Decision decision = Decide(i, now);
    if (collect_evidence_) {
      evidence_.Add(page.history, 1.0, recrawl::CommittedVisitsPerDay(decision.state));
    }
    if (now >= config_.warmup_days) {
      ++run_.visits;
      ++run_.page_visits[i];
    }
    if (std::isfinite(decision.next_visit_in_days)) {
      Schedule(i, now + decision.next_visit_in_days);
    } else {
      ++generation_[i];
    }
  }

  PolicyRun Finish() {
    const size_t page_count = pages_.size();
    run_.page_rate_estimate.resize(page_count);
    for (size_t i = 0; i < page_count; ++i) {
      const Page& page = pages_[i];
      meter_.AddInterval(page.last_visit_days, config_.days, page.fresh_until_days, weight_of(i));
      run_.page_rate_estimate[i] = static_cast<float>(page.policy.rate_per_day);
    }
    run_.freshness = meter_.WindowFreshness(total_weight_);
    run_.age_days = meter_.WindowAgeDays(total_weight_);
    run_.visits_per_day = run_.visits / (config_.days - config_.warmup_days);
    for (int b = 0; b < meter_.bucket_count(); ++b) {
      run_.freshness_by_bucket.push_back(meter_.BucketFreshness(b, total_weight_));
      run_.age_by_bucket.push_back(meter_.BucketAgeDays(b, total_weight_));
    }
    for (double interval : last_interval_days_) {
      if (interval > 0 && std::isfinite(interval)) run_.requested_visits_per_day += 1.0 / interval;
    }
    return std::move(run_);
  }

  const SimulationConfig& config_;
  recrawl::RevisitPolicy& policy_;
  const bool oracle_;
  const bool true_rates_;
  const double budget_;
  const bool fit_prior_;
  const bool collect_evidence_;
  const bool replan_on_drift_;

  std::vector<Page> pages_;
  // Per page: the generation of its live due entry, and the interval its policy chose last.
  std::vector<uint32_t> generation_;
  std::vector<double> last_interval_days_;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> drifts_;
  RateHistogram histogram_;
  FleetSummary fleet_;
  // The fleet's evidence and the prior fitted to it, each fit warm-started from the previous one.
  recrawl::FleetEvidence evidence_;
  std::optional<recrawl::RatePrior> fitted_prior_;
  FreshnessMeter meter_;
  PolicyRun run_;
  double total_weight_ = 0;
  double changes_seen_ = 0;
  double days_observed_ = 0;
  double next_retune_ = 0;
};

}  // namespace

absl::StatusOr<PolicyRun> RunPolicy(const SimulationConfig& config, std::string_view name) {
  if (absl::Status status = ValidateConfig(config); !status.ok()) return status;
  const double started = ThreadCpuSeconds();
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
  if (oracle) {
    options.optimal.min_visits_per_day = 0;
    options.optimal.max_uniform_intervals = 0;
  }
  absl::StatusOr<std::unique_ptr<recrawl::RevisitPolicy>> made =
      recrawl::MakeRevisitPolicy(oracle ? "optimal" : name, options);
  if (!made.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown policy \"", std::string(name), "\" (try --policy all)"));
  }
  PolicyRun run = PolicySimulation(config, name, **made).Run();
  run.cpu_seconds = ThreadCpuSeconds() - started;
  return run;
}

}  // namespace crawler::crawlsim
