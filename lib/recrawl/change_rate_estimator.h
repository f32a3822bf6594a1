// Estimators of a page's change rate lambda (changes per day) from its VisitHistory, assuming
// changes arrive as a Poisson process (docs/architecture.md §7). They follow J. Cho and H.
// Garcia-Molina, "Estimating Frequency of Change", ACM TOIT 3(3):256-290, 2003 (sections named
// below), plus a Bayesian posterior mode for pages with few visits. docs/recrawl.md has the
// derivations.
//
// Every estimator counts an unchanged visit as evidence of a slow page: a page seen unchanged
// for a long time gets a low rate, which a change-only count (the FAST-crawler classifier's
// mistake, bayes_change_classifier.h) cannot do.
//
// A visit only tells whether *some* change happened in its interval, so a page that changed at
// every visit has no finite maximum-likelihood rate; the functions that can hit this return
// +infinity and say so. BayesianRate() is the one meant for scheduling: always finite and positive.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_RECRAWL_CHANGE_RATE_ESTIMATOR_H_
#define CRAWLER_LIB_RECRAWL_CHANGE_RATE_ESTIMATOR_H_

#include <array>

#include "lib/recrawl/visit_history.h"

namespace crawler::recrawl {

// What the Poisson likelihood of a history depends on:
//   L(lambda) = lambda^timed_changes * exp(-lambda * quiet_days)
//               * prod_{t in untimed_days} (1 - exp(-lambda * t))
// timed changes are changed visits with a usable Last-Modified (the change happened at a known
// time); quiet days are the days known to be change-free (unchanged intervals, plus the time since
// Last-Modified of timed changes); untimed intervals are known only to contain some change.
struct ChangeEvidence {
  double timed_changes = 0;
  double quiet_days = 0;
  std::array<double, VisitHistory::kMaxCapacity> untimed_days{};
  int untimed_count = 0;

  // ln L(lambda), for lambda > 0.
  double LogLikelihood(double lambda) const;
};

// The evidence of a history. Last-Modified is used only if `use_last_modified`, and only where it
// is usable: a value equal to the fetch time (what dynamically generated pages send on every
// request) says nothing about when the content changed, and one older than the previous visit
// contradicts the detected change.
ChangeEvidence EvidenceOf(const VisitHistory& history, bool use_last_modified = true);

// Naive estimator X / T (TOIT §4.1): changes detected over the total observed time. Biased low
// for pages that change more than once per interval. 0 for an empty history.
double NaiveRate(const VisitHistory& history);

// Improved estimator for regular visits (TOIT §4.2, eq. for r-hat):
//   lambda = -f * ln((unchanged + 0.5) / (visits + 0.5))
// where f is the visit frequency per day. The 0.5 terms keep it finite when every visit saw a
// change and make it nearly unbiased. REQUIRES: 0 <= unchanged <= visits, f >= 0.
double RegularIntervalRate(int visits, int unchanged_visits, double visits_per_day);

// The same estimator applied to a history, with f = visits / total interval (the mean interval).
// Appropriate only when intervals are roughly equal; use MaximumLikelihoodRate() otherwise.
double RegularIntervalRate(const VisitHistory& history);

// Maximum-likelihood estimate for irregular intervals (TOIT §4.3): the lambda solving
//   sum_{changed i} t_i / (e^{lambda t_i} - 1) = sum_{unchanged j} t_j,
// found by a bracketed, safeguarded Newton iteration on log lambda. Returns 0 when no visit saw a
// change and +infinity when every visit did (the likelihood then grows without bound).
double MaximumLikelihoodRate(const VisitHistory& history);

// Maximum-likelihood estimate that also uses Last-Modified (TOIT §5, "last date of change"): for a
// changed visit whose Last-Modified lies inside its interval, the page is known to have been
// unchanged for the last s_i days and to have changed at time visit - s_i, so it contributes
// ln(lambda) - lambda s_i to the log-likelihood instead of ln(1 - e^{-lambda t_i}). Changed visits
// without a usable Last-Modified (absent, or older than the previous visit, which contradicts the
// detected change) keep the interval-only term; unchanged visits contribute -lambda t_j whatever
// the server claims. With Last-Modified on every changed visit this is X / (sum s_i + sum t_j).
// Returns 0 without changes, +infinity when the likelihood is unbounded.
double LastModifiedRate(const VisitHistory& history);

// The bias-corrected Last-Modified estimator (TOIT §5.1, "last date of change", regular visits):
//   lambda = ((X - 1) - X / (n ln(1 - X / n))) / T
// with n visits, X of them changed and T the days known to be change-free (each changed visit's
// time since Last-Modified plus each unchanged interval). The plain MLE X / T is biased high for
// few visits ((X - 1) / T is the unbiased form when every visit changed, X = n); the correction
// term vanishes as n grows. Changed visits without a usable Last-Modified are counted as changes
// with their whole interval as quiet time, which errs low. 0 without changes or time.
double BiasCorrectedLastModifiedRate(const VisitHistory& history);
// The formula itself. REQUIRES: 0 <= changes <= visits, quiet_days >= 0.
double BiasCorrectedLastModifiedRate(int visits, int changes, double quiet_days);

// Gamma prior over lambda (changes per day) for BayesianRate(): density ~ lambda^(shape-1) *
// exp(-rate_days * lambda). It acts like (shape - 1) extra observed changes over rate_days extra
// days of observation.
struct GammaPrior {
  // > 1 so that the posterior mode is positive even before the first observation.
  double shape = 2.0;
  // Days; > 0. The prior's mode is (shape - 1) / rate_days changes per day.
  double rate_days = 1.0;

  // The prior with the given shape whose mode is `mode_per_day`. REQUIRES: shape > 1, mode > 0.
  static GammaPrior WithMode(double mode_per_day, double shape = 2.0) {
    return GammaPrior{shape, (shape - 1.0) / mode_per_day};
  }
};

// Posterior mode (MAP) of lambda under `prior` and the Last-Modified-aware likelihood of
// LastModifiedRate(). For pages with few visits it stays near the prior's mode; as visits
// accumulate it converges to the maximum-likelihood estimate. Always finite and > 0.
// `initial_guess_per_day` (> 0) only speeds up the solver (e.g. the page's previous estimate).
// REQUIRES: prior.shape > 1, prior.rate_days > 0.
double BayesianRate(const VisitHistory& history, const GammaPrior& prior,
                    double initial_guess_per_day = 0.0);

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_CHANGE_RATE_ESTIMATOR_H_
