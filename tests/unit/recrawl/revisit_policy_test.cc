// The re-visit policies of lib/recrawl, each pinned to the behaviour of its source: Nutch's
// AdaptiveFetchSchedule, StormCrawler's AdaptiveScheduler, the 2004 sampling-frequency step rule,
// the FAST-crawler thesis' Bayesian classifier (as published and corrected), and the budget
// allocations of Cho & Garcia-Molina (TODS 2003, §5).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/recrawl/bayes_change_classifier.h"
#include "lib/recrawl/nutch_adaptive_schedule.h"
#include "lib/recrawl/optimal_frequency.h"
#include "lib/recrawl/optimal_policy.h"
#include "lib/recrawl/rate_prior.h"
#include "lib/recrawl/policy_factory.h"
#include "lib/recrawl/proportional_policy.h"
#include "lib/recrawl/sampling_step_rule.h"
#include "lib/recrawl/stormcrawler_adaptive_scheduler.h"
#include "lib/recrawl/uniform_policy.h"

namespace crawler::recrawl {
namespace {

absl::Time Day(double d) { return absl::FromUnixSeconds(1'600'000'000) + absl::Seconds(d * 86400); }

struct Trace {
  std::vector<double> intervals;         // next_visit_in_days of every decision
  std::vector<PolicyState> states;       // state after every decision
};

// Drives `policy` on a page that changes exactly every `period` days (at 0, period, 2 period,
// ...), visiting at the policy's own intervals, or every `visit_every` days if given.
Trace Drive(const RevisitPolicy& policy, double period, double days, bool last_modified,
            std::optional<double> visit_every = std::nullopt) {
  auto last_change = [&](double t) { return std::floor(t / period + 1e-9) * period; };
  auto lm = [&](double t) {
    return last_modified ? std::optional<absl::Time>(Day(last_change(t))) : std::nullopt;
  };
  VisitHistory history;
  history.Record(Day(0), false, lm(0));
  Trace trace;
  Decision decision = policy.Decide(PageView{history, 0.0}, PolicyState{});
  trace.intervals.push_back(decision.next_visit_in_days);
  trace.states.push_back(decision.state);
  double now = 0;
  while (true) {
    const double next = now + (visit_every ? *visit_every : decision.next_visit_in_days);
    if (next > days) break;
    const bool changed = last_change(next) > now + 1e-9;
    history.Record(Day(next), changed, lm(next));
    now = next;
    decision = policy.Decide(PageView{history, now}, decision.state);
    trace.intervals.push_back(decision.next_visit_in_days);
    trace.states.push_back(decision.state);
  }
  return trace;
}

// A one-visit history for driving single decisions.
VisitHistory OneVisit(double interval_days, bool changed) {
  VisitHistory history;
  history.Append(Visit{static_cast<uint32_t>(interval_days * 86400), changed, false, 0});
  return history;
}

// --- Nutch AdaptiveFetchSchedule, shipped defaults -------------------------------------------

TEST(NutchAdaptiveFetchSchedule, NewPageGetsTheDefaultInterval) {
  const NutchAdaptiveSchedule nutch;
  const Decision d = nutch.Decide(PageView{VisitHistory(), 5.0}, PolicyState{});
  EXPECT_DOUBLE_EQ(d.next_visit_in_days, 30.0);
  EXPECT_DOUBLE_EQ(d.state.reference_days, 5.0);
}

TEST(NutchAdaptiveFetchSchedule, NotModifiedGrowsByIncRateAndSyncsWithTheLastChange) {
  const NutchAdaptiveSchedule nutch;
  PolicyState state;
  state.interval_days = 30;
  state.reference_days = 0;  // last modification seen at day 0
  const Decision d = nutch.Decide(PageView{OneVisit(30, false), 30.0}, state);
  EXPECT_DOUBLE_EQ(d.state.interval_days, 42.0);  // 30 * (1 + 0.4)
  // Next fetch = (30 - 0.3 * 30) + 42 = 63, i.e. 33 days from now.
  EXPECT_NEAR(d.next_visit_in_days, 33.0, 1e-12);
}

TEST(NutchAdaptiveFetchSchedule, ModifiedShrinksByDecRate) {
  const NutchAdaptiveSchedule nutch;
  PolicyState state;
  state.interval_days = 10;
  state.reference_days = 0;
  const Decision d = nutch.Decide(PageView{OneVisit(10, true), 50.0}, state);
  EXPECT_DOUBLE_EQ(d.state.interval_days, 8.0);  // 10 * (1 - 0.2)
  EXPECT_DOUBLE_EQ(d.state.reference_days, 50.0);
  EXPECT_DOUBLE_EQ(d.next_visit_in_days, 8.0);
}

TEST(NutchAdaptiveFetchSchedule, LongUnchangedIntervalIsRaisedToTheTimeSinceTheChange) {
  const NutchAdaptiveSchedule nutch;
  PolicyState state;
  state.interval_days = 10;
  state.reference_days = 0;
  const Decision d = nutch.Decide(PageView{OneVisit(10, false), 100.0}, state);
  EXPECT_DOUBLE_EQ(d.state.interval_days, 100.0);  // delta = 100 > 14
  EXPECT_NEAR(d.next_visit_in_days, 70.0, 1e-9);    // (100 - 30) + 100 - 100
}

TEST(NutchAdaptiveFetchSchedule, ClampsToMinAndMaxInterval) {
  const NutchAdaptiveSchedule nutch;
  PolicyState state;
  state.interval_days = 61.0 / 86400;
  EXPECT_DOUBLE_EQ(nutch.Decide(PageView{OneVisit(1, true), 1.0}, state).state.interval_days,
                   60.0 / 86400);
  state.interval_days = 300;
  state.reference_days = 999;
  EXPECT_DOUBLE_EQ(nutch.Decide(PageView{OneVisit(1, false), 1000.0}, state).state.interval_days,
                   365.0);
}

TEST(NutchAdaptiveFetchSchedule, Nutch1564NextFetchInThePastKeptAsShipped) {
  // Unchanged for 2000 days: interval = delta = 2000, clamped to 365, but counted from
  // 2000 - 0.3 * 2000: the next fetch is 235 days in the past.
  const NutchAdaptiveSchedule nutch;
  PolicyState state;
  state.interval_days = 365;
  state.reference_days = 0;
  const Decision d = nutch.Decide(PageView{OneVisit(365, false), 2000.0}, state);
  EXPECT_NEAR(d.next_visit_in_days, -235.0, 1e-9);
}

// --- StormCrawler AdaptiveScheduler, shipped defaults ----------------------------------------

TEST(StormCrawlerAdaptiveScheduler, WholeMinuteArithmeticAsInTheOriginal) {
  const StormCrawlerAdaptiveScheduler storm;
  Decision d = storm.Decide(PageView{VisitHistory(), 0.0}, PolicyState{});
  EXPECT_DOUBLE_EQ(d.next_visit_in_days, 1.0);  // 1440 min
  const Decision unchanged = storm.Decide(PageView{OneVisit(1, false), 1.0}, d.state);
  EXPECT_DOUBLE_EQ(unchanged.next_visit_in_days * 1440, 2160);  // 1440 * 1.5
  const Decision changed = storm.Decide(PageView{OneVisit(1, true), 1.0}, d.state);
  EXPECT_DOUBLE_EQ(changed.next_visit_in_days * 1440, 750);  // 0.5 * 1440 + 0.5 * 60
}

TEST(StormCrawlerAdaptiveScheduler, ConvergesToTheMinimumAndCapsAtTheMaximum) {
  const StormCrawlerAdaptiveScheduler storm;
  PolicyState state;
  state.interval_days = 1.0;
  for (int i = 0; i < 20; ++i) {
    state = storm.Decide(PageView{OneVisit(0.1, true), 1.0}, state).state;
  }
  EXPECT_DOUBLE_EQ(state.interval_days * 1440, 60);
  for (int i = 0; i < 20; ++i) {
    state = storm.Decide(PageView{OneVisit(1, false), 1.0}, state).state;
  }
  EXPECT_DOUBLE_EQ(state.interval_days * 1440, 20160);
}

// --- The 2004 sampling-frequency step rule ---------------------------------------------------

TEST(SamplingStepRule2004, PageChangingEveryFiveDaysGoesOneThreeFiveThenStable) {
  for (bool last_modified : {true, false}) {
    const Trace trace = Drive(SamplingStepRule(), 5.0, 80.0, last_modified);
    ASSERT_GE(trace.intervals.size(), 8u);
    EXPECT_EQ(trace.intervals[0], 1.0) << last_modified;
    EXPECT_EQ(trace.intervals[1], 3.0) << last_modified;
    for (size_t i = 2; i < trace.intervals.size(); ++i) {
      EXPECT_EQ(trace.intervals[i], 5.0) << "decision " << i << " lm " << last_modified;
    }
  }
}

TEST(SamplingStepRule2004, ChangesCloserThanTheIntervalStepDownByFour) {
  SamplingStepRuleOptions options;
  options.initial_interval_days = 13;
  // A page changing every 3 days, sampled every 13: at day 26 the last two Last-Modified dates
  // (12, 24) are 12 days apart, under 13 - 0.5, so 13 -> 9. From then on consecutive dates are 9
  // days apart: the rule cannot tell one change per interval from three, and holds at 9.
  const Trace trace = Drive(SamplingStepRule(options), 3.0, 80.0, true);
  ASSERT_GE(trace.intervals.size(), 5u);
  EXPECT_EQ(trace.intervals[0], 13.0);
  EXPECT_EQ(trace.intervals[1], 13.0);  // no earlier date to compare with yet
  for (size_t i = 2; i < trace.intervals.size(); ++i) EXPECT_EQ(trace.intervals[i], 9.0) << i;
}

TEST(SamplingStepRule2004, ClampedToOneAndThirtyDays) {
  // Changes dated 1.5 and 2.1 (0.6 days apart), sampled every 2 days: 2 - 4 is clamped to 1.
  VisitHistory history;
  history.Append(Visit{2 * 86400, true, true, 43200});    // visit at day 2
  history.Append(Visit{2 * 86400, true, true, 164160});   // visit at day 4
  PolicyState state;
  state.interval_days = 2;
  EXPECT_EQ(SamplingStepRule().Decide(PageView{history, 4.0}, state).next_visit_in_days, 1.0);
  // A page that never changes climbs by 2 to the 30-day ceiling.
  const Trace still = Drive(SamplingStepRule(), 1e9, 400.0, true);
  EXPECT_EQ(still.intervals[1], 3.0);
  EXPECT_EQ(still.intervals[2], 5.0);
  EXPECT_EQ(still.intervals.back(), 30.0);
}

// --- The FAST-crawler thesis' Bayesian classifier ---------------------------------------------

TEST(FastCrawlerBayesClassifier, PublishedDriftsEveryPageToDaily) {
  BayesClassifierOptions options;
  options.update = BayesClassifierOptions::Update::kPublished;
  const BayesChangeClassifier published(options);
  // A page changing every 10 days, crawled daily: after its 4th detected change (day 40) the
  // published update puts P(1 day) at about 0.96, and it only ever rises.
  const Trace trace = Drive(published, 10.0, 40.0, false, 1.0);
  float previous = 0;
  for (const PolicyState& state : trace.states) {
    EXPECT_GE(state.category_probability[0], previous);
    previous = state.category_probability[0];
  }
  EXPECT_NEAR(trace.states.back().category_probability[0], 0.97, 0.015);
  EXPECT_EQ(trace.intervals.back(), 1.0);
  // Even a page that changes every 30 days ends up daily.
  EXPECT_GT(Drive(published, 30.0, 180.0, false, 1.0).states.back().category_probability[0], 0.9);
}

TEST(FastCrawlerBayesClassifier, CorrectedClassifiesThreeAndSevenDayPages) {
  const BayesChangeClassifier corrected;
  for (double period : {3.0, 7.0}) {
    const Trace trace = Drive(corrected, period, 60.0, false, 1.0);
    const int expected = period == 3.0 ? 1 : 2;
    EXPECT_EQ(BayesChangeClassifier::MostProbable(trace.states.back().category_probability),
              expected)
        << period;
    EXPECT_GT(trace.states.back().category_probability[expected], 0.9) << period;
    EXPECT_EQ(trace.intervals.back(), period);
  }
  // The same pages under the published rule: both "daily".
  BayesClassifierOptions options;
  options.update = BayesClassifierOptions::Update::kPublished;
  for (double period : {3.0, 7.0}) {
    const Trace trace = Drive(BayesChangeClassifier(options), period, 60.0, false, 1.0);
    EXPECT_EQ(BayesChangeClassifier::MostProbable(trace.states.back().category_probability), 0);
  }
}

TEST(FastCrawlerBayesClassifier, PoissonLikelihoodOfOneVisit) {
  const BayesChangeClassifier classifier;
  const std::array<double, 3> p = classifier.Update({1.0 / 3, 1.0 / 3, 1.0 / 3}, 1.0, true);
  const double l[] = {1 - std::exp(-1.0), 1 - std::exp(-1.0 / 3), 1 - std::exp(-1.0 / 7)};
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(p[c], l[c] / (l[0] + l[1] + l[2]), 1e-12);
}

// --- Budget allocations -------------------------------------------------------------------------

TEST(Tods2003_5, UniformSplitsTheBudgetEvenly) {
  UniformPolicy uniform;
  uniform.Retune(FleetSummary{50.0, 200});
  EXPECT_DOUBLE_EQ(uniform.Decide(PageView{VisitHistory(), 0}, PolicyState{}).next_visit_in_days,
                   4.0);
}

TEST(Tods2003_5, ProportionalAndOptimalWithKnownRates) {
  RateHistogram histogram;
  histogram.Add(1.0);
  histogram.Add(9.0);
  const FleetSummary fleet{2.0, 2, &histogram};
  ProportionalPolicy proportional;
  proportional.Retune(fleet);
  OptimalPolicy optimal;
  optimal.Retune(fleet);
  const VisitHistory history;
  auto interval = [&](const RevisitPolicy& policy, double rate) {
    return policy.Decide(PageView{history, 0, 1.0, rate}, PolicyState{}).next_visit_in_days;
  };
  EXPECT_NEAR(interval(proportional, 1.0), 1 / 0.2, 1e-12);
  EXPECT_NEAR(interval(proportional, 9.0), 1 / 1.8, 1e-12);
  EXPECT_NEAR(1 / interval(optimal, 1.0), 1.76, 0.01);
  EXPECT_NEAR(1 / interval(optimal, 9.0), 0.24, 0.01);
  // The 9/day page sits at the margin (see Allocation::marginal_share); the budget is met.
  EXPECT_NEAR(1 / interval(optimal, 1.0) + 1 / interval(optimal, 9.0), 2.0, 1e-6);
}

TEST(Tods2003_5, OptimalEstimatesTheRateFromTheHistory) {
  RateHistogram histogram;
  for (int i = 0; i < 10; ++i) histogram.Add(0.5);
  OptimalPolicy optimal;
  optimal.Retune(FleetSummary{5.0, 10, &histogram, 0.5});
  VisitHistory history;
  for (int i = 0; i < 20; ++i) history.Append(Visit{86400, i % 4 == 0, false, 0});
  const Decision d = optimal.Decide(PageView{history, 20.0}, PolicyState{});
  EXPECT_NEAR(d.state.rate_per_day, BayesianRate(history, GammaPrior::WithMode(0.5)), 1e-9);
  EXPECT_GT(d.next_visit_in_days, 0);
  EXPECT_TRUE(std::isfinite(d.next_visit_in_days));
}

TEST(ExpectedOptimalVisitsPerDay, OnePointIsTheKnownRateOptimum) {
  const OptimalFrequency frequency;
  const std::vector<double> rates = {0.3};
  const std::vector<double> certain = {1.0};
  for (double mu : {0.5, 2.0, 3.0}) {
    EXPECT_NEAR(ExpectedOptimalVisitsPerDay(rates, certain, 1.0, mu),
                frequency.VisitsPerDay(0.3, 1.0, mu), 1e-12)
        << mu;
  }
  // mu >= w / lambda: not worth a visit.
  EXPECT_EQ(ExpectedOptimalVisitsPerDay(rates, certain, 1.0, 1 / 0.3 + 1e-9), 0.0);
}

TEST(ExpectedOptimalVisitsPerDay, TwoPointsByHand) {
  // Rate 0.1 or 1 per day, even odds. f = 0 exactly when w E[1 / lambda] = 0.5 * 10 + 0.5 * 1 =
  // 5.5 <= mu, although the log-mean rate 0.316 alone would be worth visits up to mu = 3.16.
  const std::vector<double> rates = {0.1, 1.0};
  const std::vector<double> even = {0.5, 0.5};
  EXPECT_EQ(ExpectedOptimalVisitsPerDay(rates, even, 1.0, 5.6), 0.0);
  EXPECT_GT(ExpectedOptimalVisitsPerDay(rates, even, 1.0, 5.4), 0.0);
  // mu = 2: the root of 0.5 g(0.1 / f) / 0.1 + 0.5 g(1 / f) / 1 = 2, g(r) = 1 - e^{-r} (1 + r):
  // f = 0.0911240 (at f = 0.0911: g(1.0974) = 0.3000, g(10.974) = 0.9998; 1.5000 + 0.4999).
  EXPECT_NEAR(ExpectedOptimalVisitsPerDay(rates, even, 1.0, 2.0), 0.0911240400, 1e-9);
  // The weight scales mu: w = 2, mu = 4 is the same decision.
  EXPECT_NEAR(ExpectedOptimalVisitsPerDay(rates, even, 2.0, 4.0), 0.0911240400, 1e-9);
}

// The fleet of the OptimalPolicy tests below: 100 pages estimated at 0.2 changes a day.
RateHistogram HundredPagesAtPointTwo() {
  RateHistogram histogram;
  for (int i = 0; i < 100; ++i) histogram.Add(0.2);
  return histogram;
}

// A prior that says a page changes 0.1995 (grid point 33) or 1 (point 40) times a day, even odds.
RatePrior SlowOrFastPrior() {
  std::array<double, RatePrior::kPoints> weights{};
  weights[33] = 0.5;
  weights[40] = 0.5;
  return RatePrior(weights);
}

// A fleet of 100 pages, half seen changed at each of three visits 10 days apart, half never,
// with its evidence: what the posterior rule of OptimalPolicy decides on.
struct HundredPages {
  HundredPages() {
    for (int i = 0; i < 3; ++i) {
      changed.Append(Visit{10 * 86400, true, false, 0});
      unchanged.Append(Visit{10 * 86400, false, false, 0});
    }
    for (int i = 0; i < 50; ++i) {
      evidence.Add(changed);
      evidence.Add(unchanged);
    }
  }
  // These pages' fleet summary under `prior`, budget 10 visits a day.
  FleetSummary Fleet(const RatePrior& prior) const {
    return FleetSummary{.budget_visits_per_day = 10.0,
                        .page_count = 100,
                        .rates = &histogram,
                        .prior = &prior,
                        .evidence = &evidence};
  }

  VisitHistory changed;
  VisitHistory unchanged;
  FleetEvidence evidence;
  RateHistogram histogram = HundredPagesAtPointTwo();
};

TEST(OptimalPolicy, DecidesEveryPageOnItsPosteriorAndSpendsTheBudget) {
  // Under the fitted prior the page's f maximises its posterior-expected freshness minus mu f,
  // mu solved over the fleet's posteriors so that the decisions add up to the budget.
  const HundredPages pages;
  const RatePrior prior = SlowOrFastPrior();
  const FleetSummary fleet = pages.Fleet(prior);
  OptimalPolicy policy;
  policy.Retune(fleet);
  const absl::StatusOr<PosteriorAllocation> solved =
      PosteriorAllocation::Solve(pages.evidence, prior, 10.0);
  ASSERT_TRUE(solved.ok());
  double planned = 0;
  for (const VisitHistory* history : {&pages.changed, &pages.unchanged}) {
    const Decision decision = policy.Decide(PageView{*history, 30.0}, PolicyState{});
    const Belief belief = Belief::Of(prior.Posterior(PooledEvidence::Of(*history)));
    EXPECT_NEAR(decision.next_visit_in_days,
                1 / PosteriorVisitsPerDay(belief, 1.0, solved->mu), 1e-9)
        << history->size();
    EXPECT_NEAR(decision.state.rate_per_day, belief.LogMeanRate(), 1e-12);
    planned += 50 / decision.next_visit_in_days;
  }
  EXPECT_NEAR(planned, 10.0, 1e-6);
  // The pages seen changed each time may be slow or fast: P(fast) = 1 / (1 + 0.8647^3) =
  // 0.607 and their log-mean 0.53 is past the plug-in's abandon line (w / mu = 0.3367 for 100
  // pages at 0.2), so the previous rule gives them nothing, and the pages never seen changing
  // all the budget; the posterior decision keeps visiting both.
  OptimalPolicyOptions plug_in_options;
  plug_in_options.expected_freshness = false;
  OptimalPolicy plug_in(plug_in_options);
  plug_in.Retune(fleet);
  EXPECT_TRUE(std::isinf(
      plug_in.Decide(PageView{pages.changed, 30.0}, PolicyState{}).next_visit_in_days));
  EXPECT_TRUE(std::isfinite(
      policy.Decide(PageView{pages.changed, 30.0}, PolicyState{}).next_visit_in_days));
  // The plug-in's mu was solved over the histogram of 100 pages at 0.2 (0.1 visits a day each),
  // not over its own decisions: with half the pages abandoned it asks for half the budget.
  const double plug_in_planned =
      50 / plug_in.Decide(PageView{pages.unchanged, 30.0}, PolicyState{}).next_visit_in_days;
  EXPECT_LT(plug_in_planned, 0.6 * 10.0);
}

// The spend of the commitment-aware solve at mu, computed here from its definition: the pages
// that follow the plan within the horizon at today's decisions, the rest at their commitments.
double SpendWithCommitments(const FleetEvidence& evidence, const RatePrior& prior, double mu,
                            double floor, double horizon_days) {
  double spend = 0;
  for (const FleetEvidence::CellPosterior& cell : evidence.Posteriors(prior)) {
    const double f = std::max(PosteriorVisitsPerDay(Belief::Of(cell.posterior), 1.0, mu), floor);
    double standing = 0;
    if (cell.committed_pages > 0) {
      const double mean = cell.committed_visits_per_day / cell.committed_pages;
      // (At the floor up to rounding: the sum of the commitments is not exact.)
      standing = mean <= floor * (1 + 1e-9) ? 1.0 : std::clamp(1 - mean * horizon_days, 0.0, 1.0);
    }
    spend += (cell.pages - standing * cell.committed_pages) * f +
             standing * cell.committed_visits_per_day;
  }
  return spend;
}

TEST(PosteriorAllocation, CountsTheCommitmentsThatStandOverTheHorizon) {
  // A page is reconsidered only at its next visit. Without a horizon every page counts at
  // today's decision; with one, a page committed to c a day still waits after the horizon with
  // probability 1 - c H and counts at its commitment, and mu is solved so that the pages that
  // follow the plan make up what the others lag.
  const HundredPages pages;
  const RatePrior prior = SlowOrFastPrior();
  const PosteriorAllocation first = PosteriorAllocation::Solve(pages.evidence, prior, 10.0).value();
  EXPECT_NEAR(first.target_visits_per_day, 10.0, 1e-12);
  EXPECT_NEAR(first.visits_per_day, 10.0, 1e-6);
  const double f_changed = PosteriorVisitsPerDay(
      Belief::Of(prior.Posterior(PooledEvidence::Of(pages.changed))), 1.0, first.mu);
  const double f_unchanged = PosteriorVisitsPerDay(
      Belief::Of(prior.Posterior(PooledEvidence::Of(pages.unchanged))), 1.0, first.mu);
  EXPECT_NEAR(50 * f_changed + 50 * f_unchanged, 10.0, 1e-6);

  FleetEvidence settled;
  FleetEvidence lagging;
  for (int i = 0; i < 50; ++i) {
    settled.Add(pages.changed, 1.0, f_changed);
    settled.Add(pages.unchanged, 1.0, f_unchanged);
    lagging.Add(pages.changed, 1.0, 0.5 * f_changed);  // decided when mu was higher
    lagging.Add(pages.unchanged, 1.0, f_unchanged);
  }
  constexpr double kHorizon = 2.5;  // a quarter of the uniform interval, 100 pages / 10 a day
  const PosteriorAllocationOptions horizon{.mu_hint = first.mu,
                                           .commitment_horizon_days = kHorizon};
  // Commitments equal to today's decisions: nothing to make up.
  const PosteriorAllocation steady =
      PosteriorAllocation::Solve(settled, prior, 10.0, horizon).value();
  EXPECT_NEAR(steady.mu, first.mu, 1e-6 * first.mu);
  EXPECT_NEAR(steady.target_visits_per_day, 10.0, 1e-6);
  EXPECT_NEAR(steady.committed_visits_per_day, 10.0, 1e-6);
  // Half the pages committed to half their decision: those that stand count as committed, and
  // the plan asks more of the rest.
  const PosteriorAllocation behind =
      PosteriorAllocation::Solve(lagging, prior, 10.0, horizon).value();
  EXPECT_NEAR(behind.committed_visits_per_day, 10.0 - 25 * f_changed, 1e-6);
  EXPECT_LT(behind.mu, first.mu);
  EXPECT_GT(behind.target_visits_per_day, 10.0);
  EXPECT_NEAR(behind.visits_per_day, behind.target_visits_per_day, 1e-6);
  EXPECT_NEAR(SpendWithCommitments(lagging, prior, behind.mu, 0, kHorizon), 10.0, 1e-6);
  // Without a horizon the commitments change nothing: the plan as if all were re-decided now.
  const PosteriorAllocation uncorrected =
      PosteriorAllocation::Solve(lagging, prior, 10.0, {.mu_hint = first.mu}).value();
  EXPECT_NEAR(uncorrected.mu, first.mu, 1e-6 * first.mu);
  EXPECT_NEAR(uncorrected.target_visits_per_day, 10.0, 1e-12);
  // A longer horizon leaves fewer commitments standing, so the correction is smaller.
  const PosteriorAllocation longer =
      PosteriorAllocation::Solve(lagging, prior, 10.0,
                                 {.mu_hint = first.mu, .commitment_horizon_days = 4 * kHorizon})
          .value();
  EXPECT_GT(longer.mu, behind.mu);
  EXPECT_LT(longer.mu, first.mu);
}

TEST(PosteriorAllocation, PagesParkedAtTheFloorCountAsCommitted) {
  // Pages decided not worth a visit wait for the floor, far beyond the horizon: they count
  // wholly at the floor, and the others take the rest of the budget, however much the plan
  // would give the parked pages today.
  const HundredPages pages;
  const RatePrior prior = SlowOrFastPrior();
  constexpr double kFloor = 0.001;
  FleetEvidence parked;
  for (int i = 0; i < 50; ++i) {
    parked.Add(pages.changed, 1.0, kFloor);
    parked.Add(pages.unchanged);  // no commitment reported: follows the plan
  }
  const PosteriorAllocation solved =
      PosteriorAllocation::Solve(parked, prior, 10.0,
                                 {.min_visits_per_day = kFloor, .commitment_horizon_days = 2.5})
          .value();
  const double f_unchanged = PosteriorVisitsPerDay(
      Belief::Of(prior.Posterior(PooledEvidence::Of(pages.unchanged))), 1.0, solved.mu);
  EXPECT_NEAR(50 * kFloor + 50 * f_unchanged, 10.0, 1e-6);
  EXPECT_NEAR(SpendWithCommitments(parked, prior, solved.mu, kFloor, 2.5), 10.0, 1e-6);
  // Without the horizon the plan counts the parked pages at what it would give them now.
  const PosteriorAllocation uncorrected =
      PosteriorAllocation::Solve(parked, prior, 10.0, {.min_visits_per_day = kFloor}).value();
  EXPECT_GT(uncorrected.mu, solved.mu);
  // Commitments that cannot be steered (every page committed to never, no floor) leave the
  // plan as if every page were re-decided now.
  FleetEvidence never;
  for (int i = 0; i < 50; ++i) {
    never.Add(pages.changed, 1.0, 0.0);
    never.Add(pages.unchanged, 1.0, 0.0);
  }
  const PosteriorAllocation stuck =
      PosteriorAllocation::Solve(never, prior, 10.0, {.commitment_horizon_days = 2.5}).value();
  EXPECT_NEAR(stuck.mu, PosteriorAllocation::Solve(never, prior, 10.0)->mu, 1e-9 * stuck.mu);
}

TEST(OptimalPolicy, RecordsItsCommitmentAndSolvesOverAQuarterOfTheUniformInterval) {
  // The policy records its commitment, which is how callers report it, and counts the fleet's
  // commitments over a quarter of the uniform interval (100 pages / 10 a day: 2.5 days).
  const HundredPages pages;
  const RatePrior prior = SlowOrFastPrior();
  FleetEvidence lagging;
  for (int i = 0; i < 50; ++i) {
    lagging.Add(pages.changed, 1.0, 0.01);
    lagging.Add(pages.unchanged, 1.0, 0.1);
  }
  OptimalPolicy lagging_policy;
  lagging_policy.Retune(FleetSummary{.budget_visits_per_day = 10.0,
                                     .page_count = 100,
                                     .rates = &pages.histogram,
                                     .prior = &prior,
                                     .evidence = &lagging});
  // (Its floor: one visit per 4 uniform intervals, 40 days.)
  const double mu =
      PosteriorAllocation::Solve(lagging, prior, 10.0,
                                 {.min_visits_per_day = 1.0 / 40, .commitment_horizon_days = 2.5})
          ->mu;
  EXPECT_NEAR(
      lagging_policy.Decide(PageView{pages.unchanged, 30.0}, PolicyState{}).next_visit_in_days,
      1 / PosteriorVisitsPerDay(Belief::Of(prior.Posterior(PooledEvidence::Of(pages.unchanged))),
                                1.0, mu),
      1e-9);

  OptimalPolicy policy;
  policy.Retune(FleetSummary{.budget_visits_per_day = 10.0,
                             .page_count = 100,
                             .rates = &pages.histogram,
                             .prior = &prior,
                             .evidence = &pages.evidence});
  const Decision decision = policy.Decide(PageView{pages.changed, 30.0}, PolicyState{});
  EXPECT_NEAR(CommittedVisitsPerDay(decision.state), 1 / decision.next_visit_in_days, 1e-12);
  EXPECT_EQ(CommittedVisitsPerDay(PolicyState{}), -1);
  PolicyState never;
  never.interval_days = std::numeric_limits<double>::infinity();
  EXPECT_EQ(CommittedVisitsPerDay(never), 0);
}

TEST(OptimalPolicy, LooksAtAParkedPageAgainWithinFourUniformIntervals) {
  // At 1 visit a day for 100 pages (a uniform interval of 100 days) the pages seen changed at
  // every visit are not worth a visit: without a floor they are parked for good. The rule's
  // floor brings them back after 4 uniform intervals, and the solve pays for it from the budget.
  const HundredPages pages;
  const RatePrior prior = SlowOrFastPrior();
  const FleetSummary fleet{.budget_visits_per_day = 1.0,
                           .page_count = 100,
                           .rates = &pages.histogram,
                           .prior = &prior,
                           .evidence = &pages.evidence};
  OptimalPolicyOptions unbounded;
  unbounded.max_uniform_intervals = 0;
  OptimalPolicy parking(unbounded);
  parking.Retune(fleet);
  ASSERT_TRUE(
      std::isinf(parking.Decide(PageView{pages.changed, 30.0}, PolicyState{}).next_visit_in_days));

  OptimalPolicy policy;
  EXPECT_EQ(OptimalPolicyOptions{}.max_uniform_intervals, 4);
  policy.Retune(fleet);
  EXPECT_NEAR(policy.Decide(PageView{pages.changed, 30.0}, PolicyState{}).next_visit_in_days, 400.0,
              1e-9);
  constexpr double kFloor = 1.0 / 400;
  EXPECT_DOUBLE_EQ(PosteriorRuleFloor(OptimalPolicyOptions{}, 1.0, 100), kFloor);
  EXPECT_EQ(PosteriorRuleFloor(unbounded, 1.0, 100), 0.0);
  const double mu =
      PosteriorAllocation::Solve(pages.evidence, prior, 1.0, {.min_visits_per_day = kFloor})->mu;
  const double f_unchanged = PosteriorVisitsPerDay(
      Belief::Of(prior.Posterior(PooledEvidence::Of(pages.unchanged))), 1.0, mu);
  EXPECT_NEAR(50 * kFloor + 50 * f_unchanged, 1.0, 1e-6);
  EXPECT_NEAR(policy.Decide(PageView{pages.unchanged, 30.0}, PolicyState{}).next_visit_in_days,
              1 / f_unchanged, 1e-9);
  // A configured floor above it applies instead.
  OptimalPolicyOptions high_floor;
  high_floor.min_visits_per_day = 0.01;
  EXPECT_EQ(PosteriorRuleFloor(high_floor, 1.0, 100), 0.01);
  OptimalPolicy floored(high_floor);
  floored.Retune(fleet);
  EXPECT_NEAR(floored.Decide(PageView{pages.changed, 30.0}, PolicyState{}).next_visit_in_days,
              100.0, 1e-9);
}

TEST(OptimalPolicy, ProbesAPageThatMayBeTooFastForTheBudget) {
  // The pages seen changed at each visit may be 0.2 or 1 a day; one more visit 1.6 / (w / mu)
  // days later, where a visit best tells rates near the abandon line apart, is worth its cost
  // over a long horizon.
  const HundredPages pages;
  const RatePrior prior = SlowOrFastPrior();
  const FleetSummary fleet = pages.Fleet(prior);
  const double mu = PosteriorAllocation::Solve(pages.evidence, prior, 10.0)->mu;
  OptimalPolicyOptions options;
  options.probe_horizon_days = 1e6;
  OptimalPolicy probing(options);
  probing.Retune(fleet);
  EXPECT_NEAR(probing.Decide(PageView{pages.changed, 30.0}, PolicyState{}).next_visit_in_days,
              1.6 * mu, 1e-9);
  // Never twice in a row: after the probe the page gets its regular decision.
  VisitHistory probed = pages.changed;
  probed.Append(Visit{static_cast<uint32_t>(1.6 * mu * 86400), true, false, 0});
  EXPECT_GT(probing.Decide(PageView{probed, 30.0 + 1.6 * mu}, PolicyState{}).next_visit_in_days,
            1.6 * mu);
}

TEST(OptimalPolicy, ExplorationAlternatesShortAndLongIntervals) {
  // 10 pages, 1 visit a day, no rates yet: the chosen interval is the uniform 10 days. With
  // explore_visits = 4 and a short share of 0.3 the intervals after visits 1, 2, 3 are 3, 17
  // and 3 days (mean 10 over a pair), and from the 4th visit on the chosen 10 days.
  OptimalPolicyOptions options;
  options.explore_visits = 4;
  options.explore_short_share = 0.3;
  OptimalPolicy exploring(options);
  exploring.Retune(FleetSummary{1.0, 10});
  VisitHistory history;
  EXPECT_DOUBLE_EQ(exploring.Decide(PageView{history, 0.0}, PolicyState{}).next_visit_in_days,
                   10.0);
  const std::vector<double> expected = {3.0, 17.0, 3.0, 10.0, 10.0};
  for (size_t visit = 0; visit < expected.size(); ++visit) {
    history.Append(Visit{86400, visit % 2 == 0, false, 0});
    EXPECT_DOUBLE_EQ(
        exploring.Decide(PageView{history, static_cast<double>(visit)}, PolicyState{})
            .next_visit_in_days,
        expected[visit])
        << "after visit " << visit + 1;
  }
  // Known rates (oracle runs) are never explored.
  VisitHistory one;
  one.Append(Visit{86400, true, false, 0});
  EXPECT_DOUBLE_EQ(
      exploring.Decide(PageView{one, 1.0, 1.0, 0.1}, PolicyState{}).next_visit_in_days, 10.0);
}

TEST(PolicyFactory, BuildsEveryNamedPolicy) {
  for (std::string_view name : RevisitPolicyNames()) {
    absl::StatusOr<std::unique_ptr<RevisitPolicy>> policy = MakeRevisitPolicy(name, {});
    ASSERT_TRUE(policy.ok()) << name;
    EXPECT_EQ((*policy)->name(), name);
  }
  EXPECT_EQ(MakeRevisitPolicy("oracle", {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeRevisitPolicy("", {}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::recrawl
