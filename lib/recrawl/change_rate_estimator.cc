#include "lib/recrawl/change_rate_estimator.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>

namespace crawler::recrawl {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Rates are searched in [kMinRate, kMaxRate] changes per day: once in ~3 million years to once
// per millisecond. Beyond these the answer makes no scheduling difference.
constexpr double kMinRate = 1e-9;
constexpr double kMaxRate = 1e8;

// The score (derivative of the log-likelihood, or log-posterior, in lambda) shared by every
// estimator here:
//   S(lambda) = a / lambda - b + sum_{t in c} t / (e^{lambda t} - 1)
// a: changes whose time is known (Last-Modified) plus prior pseudo-changes; b: days known to be
// change-free plus the prior's rate; c: intervals known only to contain some change.
// S decreases strictly in lambda, so its root is unique when it exists.
struct Score {
  double a = 0;
  double b = 0;
  const ChangeEvidence* evidence = nullptr;

  struct Point {
    double value;
    double slope;  // d value / d ln(lambda)
  };

  Point Evaluate(double lambda) const {
    double s = a / lambda - b;
    double ds = -a / (lambda * lambda);
    for (int i = 0; i < evidence->untimed_count; ++i) {
      const double t = evidence->untimed_days[i];
      const double x = lambda * t;
      if (x > 700) continue;  // both terms underflow to 0
      const double em1 = std::expm1(x);
      s += t / em1;
      ds -= (t / em1) * (t / em1) * (em1 + 1.0);
    }
    return {s, ds * lambda};
  }
};

// Score of `evidence` plus a prior acting as `pseudo_changes` over `pseudo_days`.
Score ScoreOf(const ChangeEvidence& evidence, double pseudo_changes = 0, double pseudo_days = 0) {
  return Score{evidence.timed_changes + pseudo_changes, evidence.quiet_days + pseudo_days,
               &evidence};
}

double SolveScore(const Score& score, double guess) {
  const ChangeEvidence& evidence = *score.evidence;
  if (score.a <= 0 && evidence.untimed_count == 0) return 0.0;  // no evidence of any change
  if (score.b <= 0) return kInfinity;                          // no evidence of any quiet time
  if (!(guess > 0) || !std::isfinite(guess)) {
    double c_days = 0;
    for (int i = 0; i < evidence.untimed_count; ++i) c_days += evidence.untimed_days[i];
    guess = (score.a + evidence.untimed_count) / (score.b + c_days);
  }
  // Newton on u = ln(lambda), where S is smooth and monotone. The bracket [u_lo, u_hi] holds the
  // root once both signs were seen; a step that leaves it bisects instead, and while one side is
  // still open the search moves by a factor e^2 towards it. A warm start (the page's previous
  // estimate) typically converges in two or three evaluations.
  const double u_min = std::log(kMinRate);
  const double u_max = std::log(kMaxRate);
  double u_lo = -kInfinity;
  double u_hi = kInfinity;
  double u = std::clamp(std::log(guess), u_min, u_max);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const auto [value, slope] = score.Evaluate(std::exp(u));
    if (value == 0) break;
    if (value > 0) {
      if (u >= u_max) return kMaxRate;
      u_lo = u;
    } else {
      if (u <= u_min) return kMinRate;
      u_hi = u;
    }
    double next = u - value / slope;
    if (!(next > u_lo && next < u_hi)) {
      if (std::isfinite(u_lo) && std::isfinite(u_hi)) {
        next = 0.5 * (u_lo + u_hi);
      } else {
        next = value > 0 ? u + 2 : u - 2;
      }
    }
    next = std::clamp(next, u_min, u_max);
    const bool converged = std::abs(next - u) < 1e-10;
    u = next;
    if (converged) break;
  }
  return std::exp(u);
}

}  // namespace

double ChangeEvidence::LogLikelihood(double lambda) const {
  double log_l = timed_changes * std::log(lambda) - lambda * quiet_days;
  for (int i = 0; i < untimed_count; ++i) {
    log_l += std::log(-std::expm1(-lambda * untimed_days[i]));
  }
  return log_l;
}

ChangeEvidence EvidenceOf(const VisitHistory& history, bool use_last_modified) {
  ChangeEvidence evidence;
  for (int i = 0; i < history.size(); ++i) {
    const Visit& visit = history[i];
    const double t = visit.interval_days();
    if (!visit.changed) {
      evidence.quiet_days += t;
      continue;
    }
    const bool usable = use_last_modified && visit.has_last_modified &&
                        visit.since_last_modified_seconds > 0 &&
                        visit.since_last_modified_seconds <= visit.interval_seconds;
    if (usable) {
      evidence.timed_changes += 1;
      evidence.quiet_days += visit.since_last_modified_seconds / kSecondsPerDay;
    } else {
      evidence.untimed_days[evidence.untimed_count++] = t;
    }
  }
  return evidence;
}

double NaiveRate(const VisitHistory& history) {
  const double days = history.total_interval_days();
  if (days <= 0) return 0.0;
  return history.changed_count() / days;
}

double RegularIntervalRate(int visits, int unchanged_visits, double visits_per_day) {
  assert(visits >= 0 && unchanged_visits >= 0 && unchanged_visits <= visits);
  if (visits <= 0 || visits_per_day <= 0) return 0.0;
  return -visits_per_day * std::log((unchanged_visits + 0.5) / (visits + 0.5));
}

double RegularIntervalRate(const VisitHistory& history) {
  const double days = history.total_interval_days();
  if (history.empty() || days <= 0) return 0.0;
  const int n = history.size();
  return RegularIntervalRate(n, n - history.changed_count(), n / days);
}

double MaximumLikelihoodRate(const VisitHistory& history) {
  const ChangeEvidence evidence = EvidenceOf(history, /*use_last_modified=*/false);
  return SolveScore(ScoreOf(evidence), 0.0);
}

double LastModifiedRate(const VisitHistory& history) {
  const ChangeEvidence evidence = EvidenceOf(history, /*use_last_modified=*/true);
  return SolveScore(ScoreOf(evidence), 0.0);
}

double BiasCorrectedLastModifiedRate(int visits, int changes, double quiet_days) {
  assert(visits >= 0 && changes >= 0 && changes <= visits && quiet_days >= 0);
  if (changes == 0 || !(quiet_days > 0)) return 0.0;
  const double x = changes;
  const double n = visits;
  // X = n: ln(1 - X/n) = -infinity and the term is 0.
  const double correction = changes == visits ? 0.0 : x / (n * std::log1p(-x / n));
  return std::max(0.0, ((x - 1.0) - correction) / quiet_days);
}

double BiasCorrectedLastModifiedRate(const VisitHistory& history) {
  const ChangeEvidence evidence = EvidenceOf(history, /*use_last_modified=*/true);
  double quiet_days = evidence.quiet_days;
  for (int i = 0; i < evidence.untimed_count; ++i) quiet_days += evidence.untimed_days[i];
  return BiasCorrectedLastModifiedRate(history.size(), history.changed_count(), quiet_days);
}

double BayesianRate(const VisitHistory& history, const GammaPrior& prior,
                    double initial_guess_per_day) {
  assert(prior.shape > 1 && prior.rate_days > 0);
  const ChangeEvidence evidence = EvidenceOf(history, /*use_last_modified=*/true);
  return SolveScore(
      ScoreOf(evidence, std::max(prior.shape - 1.0, 1e-9), std::max(prior.rate_days, 1e-12)),
      initial_guess_per_day);
}

}  // namespace crawler::recrawl
