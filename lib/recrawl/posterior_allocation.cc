#include "lib/recrawl/posterior_allocation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::recrawl {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Posterior mass below this is left out of a Belief: it moves a decision by less than 1e-6 of
// the value of a visit even at the grid's slowest rate.
constexpr double kNegligible = 1e-10;

// The marginal value m = w sum_k p_k g(lambda_k / f) / lambda_k at f = e^x, and dm/dx.
struct Marginal {
  double value = 0;
  double slope = 0;
};

Marginal MarginalAt(const Belief& belief, double weight, double x) {
  const double f = std::exp(x);
  Marginal m;
  for (int k = 0; k < belief.size; ++k) {
    const double r = belief.rates[k] / f;
    const double e = std::exp(-r);
    // g(r) = 1 - e^{-r} (1 + r), the marginal-value factor of optimal_frequency.h, with its
    // Taylor series where the closed form cancels (to ~1e-12 relative above 0.01).
    const double g =
        r < 0.01 ? r * r * (0.5 - r * (1.0 / 3 - r * (1.0 / 8 - r / 30))) : 1.0 - e * (1.0 + r);
    m.value += belief.probabilities[k] * g / belief.rates[k];
    m.slope -= belief.probabilities[k] * r * e;
  }
  m.value *= weight;
  m.slope *= weight / f;
  return m;
}

}  // namespace

Belief Belief::Of(const std::array<double, RatePrior::kPoints>& posterior) {
  Belief belief;
  for (int k = 0; k < RatePrior::kPoints; ++k) {
    if (!(posterior[k] > kNegligible)) continue;
    belief.rates[belief.size] = RatePrior::PointRate(k);
    belief.probabilities[belief.size] = posterior[k];
    ++belief.size;
  }
  return belief;
}

double Belief::InverseMean() const {
  double sum = 0;
  for (int k = 0; k < size; ++k) sum += probabilities[k] / rates[k];
  return sum;
}

double Belief::LogMeanRate() const {
  double mean_log = 0;
  for (int k = 0; k < size; ++k) mean_log += probabilities[k] * std::log(rates[k]);
  return std::clamp(std::exp(mean_log), RatePrior::kMinRate, RatePrior::kMaxRate);
}

double PosteriorVisitsPerDay(const Belief& belief, double weight, double mu, double start) {
  // The marginal value falls from w E[1 / lambda] (f -> 0) to 0 (f -> infinity).
  if (belief.size == 0 || !(weight * belief.InverseMean() > mu)) return 0.0;
  // Bracket in x = ln f: far below the slowest rate every r is huge and m ~ w E[1 / lambda] >
  // mu; since g(r) <= r^2 / 2, m <= w E[lambda] / (2 f^2) <= mu once f^2 >= w max(lambda) /
  // (2 mu).
  double slowest = belief.rates[0];
  double fastest = belief.rates[0];
  for (int k = 1; k < belief.size; ++k) {
    slowest = std::min(slowest, belief.rates[k]);
    fastest = std::max(fastest, belief.rates[k]);
  }
  double lo = std::log(slowest) - 40;
  double hi = std::max(lo + 1, 0.5 * std::log(weight * fastest / (2 * mu)) + 1);
  double x = start > 0 ? std::clamp(std::log(start), lo, hi) : hi - 1;
  for (int step = 0; step < 200; ++step) {
    const Marginal m = MarginalAt(belief, weight, x);
    (m.value > mu ? lo : hi) = x;
    // Newton on ln m, which is close to linear in x on both sides of the root.
    double next = m.value > 0 && m.slope < 0
                      ? x - (std::log(m.value) - std::log(mu)) / (m.slope / m.value)
                      : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    const double moved = std::abs(next - x);
    x = next;
    if (moved < 1e-12 || hi - lo < 1e-12) break;
  }
  return std::exp(x);
}

double PosteriorFreshness(const Belief& belief, double weight, double visits_per_day) {
  if (!(visits_per_day > 0)) return 0.0;
  double value = 0;
  for (int k = 0; k < belief.size; ++k) {
    const double r = belief.rates[k] / visits_per_day;
    value += belief.probabilities[k] * (r < 1e-9 ? 1.0 : -std::expm1(-r) / r);
  }
  return weight * value;
}

namespace {

// One evidence cell in PosteriorAllocation::Solve().
struct SolveCell {
  double pages;
  double committed_pages;
  double committed_visits_per_day;
  // The share of the committed pages whose commitment still stands a horizon from now
  // (StandingShare()).
  double standing;
  Belief belief;
  double f;  // the latest decision: the next evaluation's Newton start
};

// The share of a cell's committed pages that the plan cannot re-decide within `horizon_days`.
// A page is reconsidered only at its next visit, 1 / c days after the last one for a page
// committed to c visits a day; with the time since that visit uniform over the interval, the
// page is still waiting after the horizon with probability max(0, 1 - c horizon), taken at the
// cell's mean commitment. A page parked at the floor (decided not worth a visit) counts wholly
// as committed: it waits 1 / floor days from its decision, far beyond any horizon the plan acts
// on, and pages are parked as the plan moves, not spread evenly over that wait, so the share
// 1 - floor horizon would count on parked pages coming back that do not (in crawlsim 2-3% of
// the budget went unasked for).
double StandingShare(double committed_pages, double committed_visits_per_day, double horizon_days,
                     double floor) {
  if (!(committed_pages > 0) || !(horizon_days > 0)) return 0.0;
  const double mean = committed_visits_per_day / committed_pages;
  if (mean <= floor * (1 + 1e-9)) return 1.0;
  return std::clamp(1.0 - mean * horizon_days, 0.0, 1.0);
}

// The mu in [mu_lo, mu_hi] at which total_at(mu), falling in mu, equals `budget`, given
// total_at(mu_lo) = total_lo >= budget > total_at(mu_hi). Regula falsi on (ln mu, ln total),
// Illinois-style, with bisection whenever it stalls: a few dozen evaluations to 1e-10 of the
// budget.
template <typename Total>
double RootOfSpend(Total& total_at, double budget, double mu_lo, double total_lo, double mu_hi) {
  double a = std::log(mu_lo);
  double b = std::log(mu_hi);
  double fa = std::log(std::max(total_lo, 1e-300)) - std::log(budget);
  double fb = std::log(std::max(total_at(mu_hi), 1e-300)) - std::log(budget);
  int side = 0;
  for (int step = 0; step < 200 && b - a > 1e-15 * std::max(1.0, std::abs(a)); ++step) {
    double c = std::isfinite(fb) && fa - fb > 0 ? a + fa * (b - a) / (fa - fb) : 0.5 * (a + b);
    if (!(c > a && c < b) || step % 4 == 3) c = 0.5 * (a + b);
    const double fc = std::log(std::max(total_at(std::exp(c)), 1e-300)) - std::log(budget);
    if (std::abs(fc) < 1e-10) return std::exp(c);
    if (fc > 0) {
      a = c;
      fa = fc;
      if (side == -1) fb *= 0.5;
      side = -1;
    } else {
      b = c;
      fb = fc;
      if (side == 1) fa *= 0.5;
      side = 1;
    }
  }
  return std::exp(a);
}

}  // namespace

absl::StatusOr<PosteriorAllocation> PosteriorAllocation::Solve(
    const FleetEvidence& evidence, const RatePrior& prior, double budget,
    const PosteriorAllocationOptions& options) {
  if (!(budget > 0) || !std::isfinite(budget)) {
    return absl::InvalidArgumentError(
        absl::StrCat("posterior allocation: budget must be a positive number, got ", budget));
  }
  const double floor = options.min_visits_per_day;
  if (!(floor >= 0) || !std::isfinite(floor)) {
    return absl::InvalidArgumentError("posterior allocation: min_visits_per_day must be >= 0");
  }
  std::vector<SolveCell> cells;
  double pages = 0;
  double mu_hi = 0;
  double committed = 0;
  for (const FleetEvidence::CellPosterior& cell : evidence.Posteriors(prior)) {
    pages += cell.pages;
    committed += cell.committed_visits_per_day;
    cells.push_back(SolveCell{cell.pages, cell.committed_pages, cell.committed_visits_per_day,
                              StandingShare(cell.committed_pages, cell.committed_visits_per_day,
                                            options.commitment_horizon_days, floor),
                              Belief::Of(cell.posterior), 0.0});
    mu_hi = std::max(mu_hi, cells.back().belief.InverseMean());
  }
  if (!(pages > 0)) {
    return absl::FailedPreconditionError("posterior allocation: no page has evidence");
  }
  // The pages that follow the plan within the horizon (the uncommitted ones and the share of
  // the committed ones that is re-decided by then); without any, the commitments cannot be
  // steered and the plan is solved as if every page were re-decided now.
  double following = 0;
  for (const SolveCell& cell : cells) {
    following += cell.pages - cell.standing * cell.committed_pages;
  }
  if (!(following > 1e-9 * pages)) {
    for (SolveCell& cell : cells) cell.standing = 0;
  }
  // What the plan at mu spends once the pages that follow it within the horizon are re-decided:
  // every page at today's decision (`planned`), less the lag of the commitments that stand
  // (`lag`: the plan's decision for those pages minus what they are committed to).
  auto spend_at = [&](double mu, double* planned, double* lag) {
    *planned = 0;
    *lag = 0;
    for (SolveCell& cell : cells) {
      cell.f = std::isfinite(mu) ? PosteriorVisitsPerDay(cell.belief, 1.0, mu, cell.f) : 0.0;
      const double f = std::max(cell.f, floor);
      *planned += cell.pages * f;
      *lag += cell.standing * (cell.committed_pages * f - cell.committed_visits_per_day);
    }
    return *planned - *lag;
  };
  auto total_at = [&](double mu) {
    double planned = 0;
    double lag = 0;
    return spend_at(mu, &planned, &lag);
  };
  auto finish = [&](double mu) {
    PosteriorAllocation allocation;
    allocation.mu = mu;
    double lag = 0;
    spend_at(mu, &allocation.visits_per_day, &lag);
    allocation.target_visits_per_day = budget + lag;
    allocation.committed_visits_per_day = committed;
    for (const SolveCell& cell : cells) {
      allocation.expected_freshness +=
          cell.pages * PosteriorFreshness(cell.belief, 1.0, std::max(cell.f, floor));
    }
    allocation.expected_freshness /= pages;
    return allocation;
  };
  // total_at() falls as mu grows. At mu >= max E[1 / lambda] no first visit is worth mu: only
  // floors remain.
  if (!(mu_hi > 0) || total_at(kInfinity) >= budget) return finish(kInfinity);
  // Bracket the root: from the hint (the previous solve: mu moves little between tunings)
  // outwards by factors of 4, else down from mu_hi by factors of 16.
  double mu_lo = mu_hi;
  double total_lo = total_at(mu_lo);
  if (options.mu_hint > 0 && options.mu_hint < mu_hi) {
    mu_lo = options.mu_hint;
    total_lo = total_at(mu_lo);
    if (total_lo < budget) {
      mu_hi = mu_lo;
    } else {
      double up = std::min(mu_lo * 4, mu_hi);
      while (up < mu_hi && total_at(up) >= budget) {
        mu_lo = up;
        up = std::min(up * 4, mu_hi);
      }
      mu_hi = up;
      total_lo = total_at(mu_lo);
    }
  }
  while (total_lo < budget) {
    mu_hi = mu_lo;
    mu_lo /= options.mu_hint > 0 ? 4 : 16;
    if (mu_lo < 1e-300) return finish(mu_lo);
    total_lo = total_at(mu_lo);
  }
  return finish(RootOfSpend(total_at, budget, mu_lo, total_lo, mu_hi));
}

}  // namespace crawler::recrawl
