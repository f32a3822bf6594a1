#include "lib/recrawl/optimal_policy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace crawler::recrawl {
namespace {

// g(r) = 1 - e^{-r} (1 + r), the marginal-value factor of optimal_frequency.h.
double MarginalFactor(double r) {
  if (r < 1e-3) return r * r * (0.5 - r / 3.0);
  return -std::expm1(-r) - r * std::exp(-r);
}

// A posterior over rates, restricted to the grid points that carry probability.
struct Belief {
  std::array<double, RatePrior::kPoints> rates{};
  std::array<double, RatePrior::kPoints> probabilities{};
  int size = 0;
};

Belief BeliefOf(const std::array<double, RatePrior::kPoints>& posterior) {
  Belief belief;
  for (int k = 0; k < RatePrior::kPoints; ++k) {
    if (!(posterior[k] > 1e-12)) continue;
    belief.rates[belief.size] = RatePrior::PointRate(k);
    belief.probabilities[belief.size] = posterior[k];
    ++belief.size;
  }
  return belief;
}

double OptimalVisitsPerDayUnder(const Belief& belief, double weight, double mu) {
  return ExpectedOptimalVisitsPerDay(absl::MakeConstSpan(belief.rates.data(), belief.size),
                                     absl::MakeConstSpan(belief.probabilities.data(), belief.size),
                                     weight, mu);
}

// sum_k p_k w F(lambda_k, f) - mu f at the best f: the value per day of deciding under `belief`.
double DecisionValue(const Belief& belief, double weight, double mu) {
  const double f = OptimalVisitsPerDayUnder(belief, weight, mu);
  if (!(f > 0)) return 0.0;
  double value = 0;
  for (int k = 0; k < belief.size; ++k) {
    const double r = belief.rates[k] / f;
    value += belief.probabilities[k] * (r < 1e-9 ? 1.0 : -std::expm1(-r) / r);
  }
  return weight * value - mu * f;
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
  // The marginal value falls from w E[1 / lambda] (f -> 0) to 0 (f -> infinity).
  double inverse_mean = 0;
  for (size_t k = 0; k < rates.size(); ++k) inverse_mean += probabilities[k] / rates[k];
  if (!(weight * inverse_mean > mu)) return 0.0;
  auto marginal = [&](double f) {
    double value = 0;
    for (size_t k = 0; k < rates.size(); ++k) {
      value += probabilities[k] * MarginalFactor(rates[k] / f) / rates[k];
    }
    return weight * value;
  };
  double lo = std::log(RatePrior::kMinRate * 1e-3);
  double hi = std::log(RatePrior::kMaxRate * 1e3);
  while (hi - lo > 1e-15 * std::max(std::abs(lo), std::abs(hi)) + 1e-300) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (marginal(std::exp(mid)) > mu ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
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
  const bool solved = allocation_.mu > 0 && std::isfinite(allocation_.mu);
  const bool posterior_decision = page.known_rate_per_day < 0 && prior_.fitted.has_value() &&
                                  solved && page.weight > 0 && !page.history.empty();
  if (!posterior_decision) {
    decision.state.rate_per_day = PageRate(page, previous, prior_);
    if (allocation_.mu > 0) {
      const double visits_per_day =
          solver_.VisitsPerDay(decision.state.rate_per_day, page.weight, allocation_);
      decision.next_visit_in_days =
          visits_per_day > 0 ? 1.0 / visits_per_day : std::numeric_limits<double>::infinity();
    }
    return decision;
  }
  const ChangeEvidence evidence = EvidenceOf(page.history);
  const std::array<double, RatePrior::kPoints> posterior = prior_.fitted->Posterior(evidence);
  const Belief belief = BeliefOf(posterior);
  // The rate above which the solve gives a page no visits.
  const double abandon_rate = page.weight / allocation_.mu;
  double mean_log = 0;
  for (int k = 0; k < belief.size; ++k) {
    mean_log += belief.probabilities[k] * std::log(belief.rates[k]);
  }
  decision.state.rate_per_day =
      std::clamp(std::exp(mean_log), RatePrior::kMinRate, RatePrior::kMaxRate);
  const bool expected_freshness =
      options_.expected_freshness ||
      (options_.expected_freshness_when_dated && evidence.timed_changes > 0);
  double visits_per_day =
      expected_freshness
          ? std::max(OptimalVisitsPerDayUnder(belief, page.weight, allocation_.mu),
                     solver_.VisitsPerDay(0, 0, allocation_))  // the exploration floor
          : solver_.VisitsPerDay(decision.state.rate_per_day, page.weight, allocation_);
  decision.next_visit_in_days =
      visits_per_day > 0 ? 1.0 / visits_per_day : std::numeric_limits<double>::infinity();
  const double probe_interval = options_.probe_ratio / abandon_rate;
  const double last_interval = page.history[page.history.size() - 1].interval_days();
  if (options_.probe_horizon_days > 0 && probe_interval < decision.next_visit_in_days &&
      last_interval > 2 * probe_interval &&
      ProbeValue(belief, probe_interval, page.weight, allocation_.mu) *
              options_.probe_horizon_days >
          allocation_.mu) {
    decision.next_visit_in_days = probe_interval;
  }
  return decision;
}

}  // namespace crawler::recrawl
