// RevisitPolicy: decides, after each visit of a page, when the page is due again
// (docs/architecture.md §7). One interface for the freshness-optimal policy and the baselines it is
// compared with, so the frontier and the simulator (tools/crawlsim) drive them all the same way:
//
//   - Retune(fleet) is called whenever fleet-wide aggregates change (the scheduler's budget, page
//     count, histogram of rate estimates); policies that split a budget recompute their
//     parameters there (e.g. mu). Adaptive per-page policies ignore it.
//   - Decide(page, previous) is called once when a page enters the schedule (empty history) and
//     after every visit; it returns the page's new PolicyState and the days until the next visit.
//
// A page's PolicyState is a small value owned by the caller (stored next to the VisitHistory in
// the frontier's URL record); each policy documents which fields it uses. Decide() is pure.
//
// Budget: adaptive policies (Nutch, StormCrawler, the step rule, the Bayesian classifier) ask for
// intervals without knowing the budget. A caller with a fixed fetch capacity serves pages in order
// of due time, so their intervals become relative priorities; tools/crawlsim explains how it
// compares policies at equal cost.
//
// Thread-safety: Decide() is const and may run concurrently; Retune() must not run concurrently
// with anything else on the same policy.
#ifndef CRAWLER_LIB_RECRAWL_REVISIT_POLICY_H_
#define CRAWLER_LIB_RECRAWL_REVISIT_POLICY_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#include "lib/recrawl/change_rate_estimator.h"
#include "lib/recrawl/rate_histogram.h"
#include "lib/recrawl/rate_prior.h"
#include "lib/recrawl/visit_history.h"

namespace crawler::recrawl {

// Per-page state of a policy. Zero-initialised for a page no policy has seen.
struct PolicyState {
  // Adaptive policies: the current re-visit interval in days (0 = not set yet). OptimalPolicy:
  // the interval it decided last, +infinity for never (CommittedVisitsPerDay()).
  double interval_days = 0;
  // Nutch: when the last change was detected (days on the caller's clock).
  double reference_days = 0;
  // Estimating policies: the page's latest change-rate estimate, changes per day (0 = none).
  // Callers keep the fleet's RateHistogram in step with it.
  double rate_per_day = 0;
  // Bayesian classifier: probability of each change category.
  std::array<float, 3> category_probability = {0, 0, 0};
};

// What a policy may look at for one page.
struct PageView {
  // The page's visits, including the one just made (empty on the first decision).
  const VisitHistory& history;
  // The time of that visit, in days on the caller's clock.
  double now_days = 0;
  // Importance weight (>= 0) for policies that weigh pages.
  double weight = 1.0;
  // >= 0: the true change rate, for oracle runs of estimating policies; < 0: estimate it.
  double known_rate_per_day = -1;
};

struct FleetSummary {
  // Visits per day the collection may spend on re-visits; > 0.
  double budget_visits_per_day = 0;
  // Pages in the collection.
  int64_t page_count = 0;
  // The current rate estimates (PolicyState::rate_per_day) of all pages; may be null for
  // policies that do not split the budget by rate.
  const RateHistogram* rates = nullptr;
  // Fleet-wide change rate used to centre per-page priors, changes per day; 0 = unknown, in which
  // case budget / page_count (pages change about as often as they can be visited) is assumed.
  double mean_rate_per_day = 0;
  // The empirical-Bayes prior fitted to the fleet's histories (FleetEvidence::Fit); may be null.
  // When set, estimating policies take each page's posterior rate under it instead of the
  // Gamma prior centred on mean_rate_per_day.
  const RatePrior* prior = nullptr;
  // The fleet's visit histories, binned (FleetEvidence); may be null. With `prior`, the optimal
  // policy solves its multiplier over the pages' posteriors (posterior_allocation.h).
  const FleetEvidence* evidence = nullptr;
  // Days until the next Retune, as far as the caller knows (its tuning period); 0 = unknown.
  // Decisions made until then follow this tuning, which the optimal policy's solve counts on
  // (OptimalPolicy::Retune).
  double retune_period_days = 0;
};

// The visits per day the page's last decision committed it to (0 for never), what the fleet's
// evidence keeps next to its history (FleetEvidence::Add); -1 when the state records no
// interval (a new page, or a policy that keeps none).
inline double CommittedVisitsPerDay(const PolicyState& state) {
  if (!(state.interval_days > 0)) return -1;
  return std::isinf(state.interval_days) ? 0.0 : 1.0 / state.interval_days;
}

struct Decision {
  PolicyState state;
  // Days from PageView::now_days until the page is due: +infinity for never, <= 0 for now.
  double next_visit_in_days = 0;
};

class RevisitPolicy {
 public:
  virtual ~RevisitPolicy() = default;

  // The policy's name as the simulator and configuration spell it ("optimal", "nutch", ...).
  virtual std::string_view name() const = 0;

  virtual void Retune(const FleetSummary& /*fleet*/) {}

  virtual Decision Decide(const PageView& page, const PolicyState& previous) const = 0;
};

// The prior an estimating policy holds between retunes: the fleet's fitted prior when it has
// one, else a Gamma prior centred on the fleet (FleetPrior()).
struct PagePrior {
  GammaPrior gamma;
  std::optional<RatePrior> fitted;
};

// The rate an estimating policy uses for a page: the known rate for oracle runs, otherwise the
// posterior rate under the fitted prior or, without one, BayesianRate() under the Gamma prior
// (warm-started from the previous estimate).
double PageRate(const PageView& page, const PolicyState& previous, const PagePrior& prior);

// The PagePrior of `fleet` with a Gamma prior of the given shape.
PagePrior FleetPagePrior(const FleetSummary& fleet, double shape);

// The prior an estimating policy centres on the fleet: mode = fleet.mean_rate_per_day, or
// budget / page_count when that is unknown, with the given shape.
GammaPrior FleetPrior(const FleetSummary& fleet, double shape);

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_REVISIT_POLICY_H_
