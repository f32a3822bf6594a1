#include "lib/recrawl/optimal_policy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace crawler::recrawl {
namespace {

// sum_k p_k w F(lambda_k, f) - mu f at the best f: the value per day of deciding under `belief`.
double DecisionValue(const Belief& belief, double weight, double mu) {
  const double f = PosteriorVisitsPerDay(belief, weight, mu);
  if (!(f > 0)) return 0.0;
  return PosteriorFreshness(belief, weight, f) - mu * f;
}

// The expected gain in DecisionValue() from one extra visit `interval_days` after the last one.
double ProbeValue(const Belief& belief, double interval_days, double weight, double mu) {
  Belief changed = belief;
  Belief unchanged = belief;
  double p_changed = 0;
  for (int k = 0; k < belief.size; ++k) {
    const double q = -std::expm1(-belief.rates[k] * interval_days);
    changed.probabilities[k] *= q;
    unchanged.probabilities[k] *= 1.0 - q;
    p_changed += changed.probabilities[k];
  }
  const double p_unchanged = 1.0 - p_changed;
  if (!(p_changed > 1e-12) || !(p_unchanged > 1e-12)) return 0.0;
  for (int k = 0; k < belief.size; ++k) {
    changed.probabilities[k] /= p_changed;
    unchanged.probabilities[k] /= p_unchanged;
  }
  return p_changed * DecisionValue(changed, weight, mu) +
         p_unchanged * DecisionValue(unchanged, weight, mu) - DecisionValue(belief, weight, mu);
}

}  // namespace

double ExpectedOptimalVisitsPerDay(absl::Span<const double> rates,
                                   absl::Span<const double> probabilities, double weight,
                                   double mu) {
  Belief belief;
  for (size_t k = 0; k < rates.size() && k < belief.rates.size(); ++k) {
    belief.rates[k] = rates[k];
    belief.probabilities[k] = probabilities[k];
    ++belief.size;
  }
  return PosteriorVisitsPerDay(belief, weight, mu);
}

double PosteriorRuleFloor(const OptimalPolicyOptions& options, double budget_visits_per_day,
                          int64_t page_count) {
  double floor = options.min_visits_per_day;
  if (options.max_uniform_intervals > 0 && budget_visits_per_day > 0 && page_count > 0) {
    floor = std::max(floor, budget_visits_per_day /
                                (options.max_uniform_intervals * static_cast<double>(page_count)));
  }
  return floor;
}

OptimalPolicy::OptimalPolicy(OptimalPolicyOptions options)
    : options_(options),
      solver_(AllocationOptions{options.min_visits_per_day}),
      prior_(FleetPagePrior(FleetSummary{}, options.prior_shape)) {}

void OptimalPolicy::Retune(const FleetSummary& fleet) {
  prior_ = FleetPagePrior(fleet, options_.prior_shape);
  if (fleet.budget_visits_per_day > 0 && fleet.page_count > 0) {
    uniform_interval_days_ = static_cast<double>(fleet.page_count) / fleet.budget_visits_per_day;
  }
  allocation_ = Allocation{};
  posterior_floor_ = PosteriorRuleFloor(options_, fleet.budget_visits_per_day, fleet.page_count);
  const double previous_mu = std::isfinite(posterior_mu_) ? posterior_mu_ : 0.0;
  posterior_mu_ = 0;
  if (options_.expected_freshness && fleet.prior != nullptr && fleet.evidence != nullptr &&
      fleet.evidence->page_count() > 0 && fleet.page_count > 0) {
    // Pages without a history yet are visited at the uniform interval; the rest share what
    // remains of the budget. The commitments are counted over a quarter of the uniform
    // interval: the shortest horizon H at which those that stand cannot spend more than the
    // budget by themselves (a page committed to c stands with probability 1 - c H, and
    // c (1 - c H) <= 1 / (4 H) = budget / pages). In crawlsim half the interval left up to 5% of
    // the budget unasked for on fast webs, and a tenth of it made the commitments swing.
    // Never shorter than the tuning period: mu holds until the next Retune, so every page
    // re-decided before then follows it, not only those re-decided within H. A shorter horizon
    // counts on too few pages to carry the correction, so each tuning corrects the lag by
    // period / H times over, and from 2x on the commitments swing around the budget with a
    // growing amplitude (re-tuned every half uniform interval, the crawler's mu moved by 20x and
    // its plan between 0.3 and 7 times the budget from one tuning to the next).
    const double horizon_days = std::max(0.25 * uniform_interval_days_, fleet.retune_period_days);
    const double share =
        std::min(1.0, fleet.evidence->page_count() / static_cast<double>(fleet.page_count));
    absl::StatusOr<PosteriorAllocation> solved = PosteriorAllocation::Solve(
        *fleet.evidence, *fleet.prior, fleet.budget_visits_per_day * share,
        PosteriorAllocationOptions{.min_visits_per_day = posterior_floor_,
                                   .mu_hint = previous_mu,
                                   .commitment_horizon_days = horizon_days});
    if (solved.ok()) posterior_mu_ = solved->mu;
  }
  if (fleet.rates == nullptr || fleet.rates->page_count() <= 0) return;
  absl::StatusOr<Allocation> allocation = solver_.Solve(*fleet.rates, fleet.budget_visits_per_day);
  if (allocation.ok()) allocation_ = *allocation;
}

Decision OptimalPolicy::Decide(const PageView& page, const PolicyState& previous) const {
  Decision decision = DecideRegular(page, previous);
  const int visits = page.history.size();
  if (page.known_rate_per_day < 0 && visits > 0 && visits < options_.explore_visits &&
      std::isfinite(decision.next_visit_in_days)) {
    decision.next_visit_in_days *=
        visits % 2 == 1 ? options_.explore_short_share : 2.0 - options_.explore_short_share;
  }
  return decision;
}

Decision OptimalPolicy::DecideRegular(const PageView& page, const PolicyState& previous) const {
  Decision decision{previous, uniform_interval_days_};
  if (posterior_mu_ > 0 && prior_.fitted.has_value() && page.known_rate_per_day < 0 &&
      page.weight > 0 && !page.history.empty()) {
    return DecideOnPosterior(page, decision);
  }
  decision.state.rate_per_day = PageRate(page, previous, prior_);
  if (allocation_.mu > 0) {
    const double visits_per_day =
        solver_.VisitsPerDay(decision.state.rate_per_day, page.weight, allocation_);
    decision.next_visit_in_days =
        visits_per_day > 0 ? 1.0 / visits_per_day : std::numeric_limits<double>::infinity();
  }
  decision.state.interval_days = decision.next_visit_in_days;
  return decision;
}

Decision OptimalPolicy::DecideOnPosterior(const PageView& page, Decision decision) const {
  const Belief belief = Belief::Of(prior_.fitted->Posterior(PooledEvidence::Of(page.history)));
  decision.state.rate_per_day = belief.LogMeanRate();
  const double floor = posterior_floor_;
  const double mu = posterior_mu_;
  // The previous decision is a close start for the Newton iteration.
  const double previous_f = std::max(CommittedVisitsPerDay(decision.state), 0.0);
  const double visits_per_day =
      std::isfinite(mu)
          ? std::max(PosteriorVisitsPerDay(belief, page.weight, mu, previous_f), floor)
          : floor;
  decision.next_visit_in_days =
      visits_per_day > 0 ? 1.0 / visits_per_day : std::numeric_limits<double>::infinity();
  if (options_.probe_horizon_days > 0 && std::isfinite(mu)) {
    // The interval at which one visit best tells rates near the abandon line (weight / mu)
    // apart.
    const double probe_interval = options_.probe_ratio * mu / page.weight;
    const double last_interval = page.history[page.history.size() - 1].interval_days();
    if (probe_interval < decision.next_visit_in_days && last_interval > 2 * probe_interval &&
        ProbeValue(belief, probe_interval, page.weight, mu) * options_.probe_horizon_days > mu) {
      decision.next_visit_in_days = probe_interval;
    }
  }
  decision.state.interval_days = decision.next_visit_in_days;
  return decision;
}

}  // namespace crawler::recrawl
