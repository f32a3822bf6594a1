// Change-rate estimators, named after the sections of Cho & Garcia-Molina, "Estimating Frequency
// of Change", ACM TOIT 2003, that they implement.
#include "lib/recrawl/change_rate_estimator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/recrawl/test_histories.h"

namespace crawler::recrawl {
namespace {

using testing_histories::kDay;
using testing_histories::Regular;

// What a crawler sees of a Poisson page with the given rate at the given visit intervals.
VisitHistory Observe(double rate, const std::vector<double>& intervals, std::mt19937_64& engine,
                     bool last_modified = false) {
  std::exponential_distribution<double> gap(rate);
  VisitHistory history(VisitHistory::kMaxCapacity);
  for (double t : intervals) {
    // Changes in (0, t]: the first after the previous visit and the last before this one.
    const double first = gap(engine);
    Visit visit{static_cast<uint32_t>(std::lround(t * kDay)), first <= t, false, 0};
    if (last_modified && visit.changed) {
      double last = first;
      for (double next = first + gap(engine); next <= t; next += gap(engine)) last = next;
      visit.has_last_modified = true;
      visit.since_last_modified_seconds = static_cast<uint32_t>(std::lround((t - last) * kDay));
    }
    history.Append(visit);
  }
  return history;
}

double Median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

TEST(Toit2003_4_1, NaiveIsDetectedChangesOverObservedTime) {
  EXPECT_DOUBLE_EQ(NaiveRate(Regular(10, 4, 2.0)), 4.0 / 20.0);
  EXPECT_EQ(NaiveRate(VisitHistory()), 0.0);
}

TEST(Toit2003_4_2, ImprovedRegularIntervalEstimator) {
  // -f ln((Xbar + 0.5) / (n + 0.5)) with n = 10 visits, Xbar = 6 unchanged, f = 0.5 per day.
  EXPECT_NEAR(RegularIntervalRate(10, 6, 0.5), -0.5 * std::log(6.5 / 10.5), 1e-12);
  EXPECT_NEAR(RegularIntervalRate(Regular(10, 4, 2.0)), -0.5 * std::log(6.5 / 10.5), 1e-12);
}

TEST(Toit2003_4_2, FiniteWhenEveryVisitChanged) {
  EXPECT_NEAR(RegularIntervalRate(10, 0, 1.0), std::log(21.0), 1e-12);
  EXPECT_EQ(RegularIntervalRate(0, 0, 1.0), 0.0);
}

TEST(Toit2003_4_3, MaximumLikelihoodSolvesTheScoreEquation) {
  VisitHistory history(16);
  const double intervals[] = {0.5, 3.0, 1.0, 7.0, 0.25, 2.0, 2.0, 10.0};
  const bool changed[] = {false, true, false, true, false, true, false, true};
  for (int i = 0; i < 8; ++i) {
    history.Append(Visit{static_cast<uint32_t>(intervals[i] * kDay), changed[i], false, 0});
  }
  const double lambda = MaximumLikelihoodRate(history);
  double lhs = 0;
  double rhs = 0;
  for (int i = 0; i < 8; ++i) {
    if (changed[i]) {
      lhs += intervals[i] / std::expm1(lambda * intervals[i]);
    } else {
      rhs += intervals[i];
    }
  }
  EXPECT_NEAR(lhs, rhs, 1e-9);
  EXPECT_GT(lambda, 0);
}

TEST(Toit2003_4_3, EqualIntervalsGiveTheClosedFormMle) {
  // With equal intervals t the MLE is -ln(Xbar / n) / t.
  EXPECT_NEAR(MaximumLikelihoodRate(Regular(20, 5, 2.0)), -std::log(15.0 / 20.0) / 2.0, 1e-9);
}

TEST(Toit2003_4_3, NoChangeGivesZeroAndOnlyChangesGiveInfinity) {
  EXPECT_EQ(MaximumLikelihoodRate(Regular(10, 0, 1.0)), 0.0);
  EXPECT_EQ(MaximumLikelihoodRate(Regular(10, 10, 1.0)), std::numeric_limits<double>::infinity());
  EXPECT_EQ(MaximumLikelihoodRate(VisitHistory()), 0.0);
}

TEST(Toit2003_4_3, ConsistentOnIrregularlyVisitedPoissonPages) {
  std::mt19937_64 engine(42);
  std::exponential_distribution<double> visit_gap(1.0);  // irregular visits, mean 1 day
  for (double rate : {0.1, 0.5, 2.0}) {
    std::vector<double> estimates;
    for (int page = 0; page < 400; ++page) {
      std::vector<double> intervals;
      for (int i = 0; i < 64; ++i) intervals.push_back(std::max(visit_gap(engine), 0.01));
      estimates.push_back(MaximumLikelihoodRate(Observe(rate, intervals, engine)));
    }
    EXPECT_NEAR(Median(estimates), rate, 0.06 * rate) << "rate " << rate;
  }
}

TEST(Toit2003_5, LastModifiedGivesChangesOverChangeFreeTime) {
  // Every visit changed, each 1 day after the previous, Last-Modified 0.25 day before the visit:
  // X / (sum s_i) = 4 / 1.0, where the interval-only MLE is unbounded.
  VisitHistory history;
  for (int i = 0; i < 4; ++i) history.Append(Visit{kDay, true, true, kDay / 4});
  EXPECT_NEAR(LastModifiedRate(history), 4.0, 1e-9);
  EXPECT_EQ(MaximumLikelihoodRate(history), std::numeric_limits<double>::infinity());
  // Unchanged visits add their whole interval.
  history.Append(Visit{2 * kDay, false, true, 5 * kDay});
  EXPECT_NEAR(LastModifiedRate(history), 4.0 / 3.0, 1e-9);
}

TEST(Toit2003_5, UnusableLastModifiedFallsBackToTheIntervalTerm) {
  VisitHistory with_bad_dates;
  VisitHistory without_dates;
  for (int i = 0; i < 6; ++i) {
    const bool changed = i % 2 == 0;
    // Changed visits with Last-Modified = now (dynamic pages) or before the previous visit.
    with_bad_dates.Append(Visit{kDay, changed, true, i % 4 == 0 ? 0u : 3 * kDay});
    without_dates.Append(Visit{kDay, changed, false, 0});
  }
  EXPECT_DOUBLE_EQ(LastModifiedRate(with_bad_dates), MaximumLikelihoodRate(without_dates));
}

TEST(Toit2003_5, LastModifiedEstimatorIsConsistent) {
  std::mt19937_64 engine(7);
  std::vector<double> estimates;
  for (int page = 0; page < 400; ++page) {
    estimates.push_back(
        LastModifiedRate(Observe(3.0, std::vector<double>(64, 1.0), engine, true)));
  }
  // At 3 changes per daily visit the interval-only estimator is nearly blind; dates are not.
  EXPECT_NEAR(Median(estimates), 3.0, 0.2);
}

TEST(Toit2003_5_1, BiasCorrectedLastModifiedFormula) {
  // ((X - 1) - X / (n ln(1 - X / n))) / T, by hand:
  // n = 10, X = 5, T = 20: ln 0.5 = -0.693147, 5 / (10 * -0.693147) = -0.721348,
  // (4 + 0.721348) / 20 = 0.2360674.
  EXPECT_NEAR(BiasCorrectedLastModifiedRate(10, 5, 20.0), 0.2360674, 1e-6);
  // X = n: the logarithm is -infinity, its term 0: (X - 1) / T.
  EXPECT_NEAR(BiasCorrectedLastModifiedRate(4, 4, 8.0), 0.375, 1e-12);
  // n = 3, X = 1, T = 6: 1 / (3 ln(2/3)) = -0.822101; (0 + 0.822101) / 6 = 0.1370168.
  EXPECT_NEAR(BiasCorrectedLastModifiedRate(3, 1, 6.0), 0.1370168, 1e-6);
  EXPECT_EQ(BiasCorrectedLastModifiedRate(5, 0, 6.0), 0.0);
  EXPECT_EQ(BiasCorrectedLastModifiedRate(5, 2, 0.0), 0.0);
}

TEST(Toit2003_5_1, BiasCorrectedLastModifiedFromAHistory) {
  // The same history as LastModifiedGivesChangesOverChangeFreeTime: n = 5, X = 4, T = 1 + 2 = 3.
  VisitHistory history;
  for (int i = 0; i < 4; ++i) history.Append(Visit{kDay, true, true, kDay / 4});
  history.Append(Visit{2 * kDay, false, true, 5 * kDay});
  EXPECT_NEAR(BiasCorrectedLastModifiedRate(history),
              (3.0 - 4.0 / (5.0 * std::log(1.0 - 4.0 / 5.0))) / 3.0, 1e-9);
}

TEST(Toit2003_5_1, BiasCorrectionRemovesMostOfTheSmallSampleBias) {
  // Few visits, Last-Modified on every page: the plain MLE X / T runs high on average, the
  // corrected estimator much less.
  std::mt19937_64 engine(11);
  const double rate = 0.5;
  double plain = 0;
  double corrected = 0;
  constexpr int kPages = 4000;
  for (int page = 0; page < kPages; ++page) {
    const VisitHistory history = Observe(rate, std::vector<double>(4, 2.0), engine, true);
    plain += std::min(LastModifiedRate(history), 100.0);
    corrected += BiasCorrectedLastModifiedRate(history);
  }
  plain /= kPages;
  corrected /= kPages;
  EXPECT_GT(plain, 1.1 * rate);
  EXPECT_LT(std::abs(corrected - rate), std::abs(plain - rate) / 2);
}

TEST(ChangeEvidence, LikelihoodMatchesItsTerms) {
  VisitHistory history;
  history.Append(Visit{2 * kDay, true, false, 0});      // untimed change in 2 days
  history.Append(Visit{3 * kDay, false, false, 0});     // 3 quiet days
  history.Append(Visit{kDay, true, true, kDay / 2});    // timed change, 0.5 quiet day
  const ChangeEvidence evidence = EvidenceOf(history);
  EXPECT_EQ(evidence.timed_changes, 1);
  EXPECT_DOUBLE_EQ(evidence.quiet_days, 3.5);
  ASSERT_EQ(evidence.untimed_count, 1);
  EXPECT_DOUBLE_EQ(evidence.untimed_days[0], 2.0);
  const double lambda = 0.7;
  EXPECT_NEAR(evidence.LogLikelihood(lambda),
              std::log(lambda) - lambda * 3.5 + std::log(1 - std::exp(-2 * lambda)), 1e-12);
  // Without Last-Modified the timed change becomes an untimed one.
  const ChangeEvidence blind = EvidenceOf(history, /*use_last_modified=*/false);
  EXPECT_EQ(blind.timed_changes, 0);
  EXPECT_EQ(blind.untimed_count, 2);
}

TEST(BayesianRate, FewVisitsStayNearThePriorMode) {
  const GammaPrior prior = GammaPrior::WithMode(0.2, 3.0);
  EXPECT_NEAR(BayesianRate(VisitHistory(), prior), 0.2, 1e-9);
  const double after_one_change = BayesianRate(Regular(1, 1, 1.0), prior);
  EXPECT_GT(after_one_change, 0.2);
  EXPECT_LT(after_one_change, 1.0);
}

TEST(BayesianRate, AlwaysFinitePositiveAndConvergesToTheMle) {
  const GammaPrior prior = GammaPrior::WithMode(1.0);
  const double all_changed = BayesianRate(Regular(64, 64, 1.0), prior);
  EXPECT_TRUE(std::isfinite(all_changed));
  EXPECT_GT(all_changed, 3.0);
  const double none_changed = BayesianRate(Regular(64, 0, 1.0), prior);
  EXPECT_GT(none_changed, 0.0);
  EXPECT_LT(none_changed, 0.02);
  const VisitHistory many = Regular(64, 20, 1.0);
  EXPECT_NEAR(BayesianRate(many, prior), MaximumLikelihoodRate(many), 0.02);
}

TEST(BayesianRate, WarmStartDoesNotChangeTheAnswer) {
  const VisitHistory history = Regular(30, 7, 0.5);
  const GammaPrior prior = GammaPrior::WithMode(0.3);
  const double cold = BayesianRate(history, prior);
  for (double guess : {1e-6, 0.01, 0.3, 5.0, 1e6}) {
    EXPECT_NEAR(BayesianRate(history, prior, guess), cold, 1e-9 * cold) << guess;
  }
}

// "Every estimator uses unchanged visits as evidence": more unchanged visits, lower estimate.
TEST(AllEstimators, UnchangedVisitsLowerTheEstimate) {
  const std::vector<std::pair<const char*, std::function<double(const VisitHistory&)>>>
      estimators = {
          {"naive", NaiveRate},
          {"regular", [](const VisitHistory& h) { return RegularIntervalRate(h); }},
          {"mle", MaximumLikelihoodRate},
          {"last-modified", LastModifiedRate},
          {"bayes", [](const VisitHistory& h) { return BayesianRate(h, GammaPrior{}); }},
      };
  for (const auto& [name, estimate] : estimators) {
    VisitHistory history(VisitHistory::kMaxCapacity);
    for (int i = 0; i < 4; ++i) history.Append(Visit{kDay, true, true, kDay / 2});
    history.Append(Visit{kDay, false, false, 0});
    double previous = estimate(history);
    for (int i = 0; i < 10; ++i) {
      history.Append(Visit{kDay, false, false, 0});
      const double next = estimate(history);
      EXPECT_LT(next, previous) << name << " after " << i + 2 << " unchanged visits";
      previous = next;
    }
  }
}

}  // namespace
}  // namespace crawler::recrawl
