// The empirical-Bayes prior: discretisation, posterior, and the maximum-marginal-likelihood fit.
#include "lib/recrawl/rate_prior.h"

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/recrawl/test_histories.h"

namespace crawler::recrawl {
namespace {

using testing_histories::kDay;
using testing_histories::Regular;

TEST(RatePrior, GridSpansTheDocumentedRange) {
  EXPECT_DOUBLE_EQ(RatePrior::PointRate(0), RatePrior::kMinRate);
  EXPECT_NEAR(RatePrior::PointRate(RatePrior::kPoints - 1), RatePrior::kMaxRate, 1e-9);
  EXPECT_NEAR(RatePrior::PointRate(RatePrior::kPointsPerDecade), 10 * RatePrior::kMinRate, 1e-15);
}

TEST(RatePrior, DiscretisedGammaKeepsItsMean) {
  // Gamma(shape 2, rate 10 days): mean 0.2 per day. The grid has 10 points per decade.
  const RatePrior prior = RatePrior::FromGamma(GammaPrior{2.0, 10.0});
  EXPECT_NEAR(prior.Mean(), 0.2, 0.2 * 0.03);
  double total = 0;
  for (double w : prior.weights()) total += w;
  EXPECT_NEAR(total, 1.0, 1e-12);
}

TEST(RatePrior, PosteriorRateWithoutEvidenceIsThePriorsLogMean) {
  std::array<double, RatePrior::kPoints> weights{};
  weights[10] = 1;  // 1e-3
  weights[30] = 1;  // 1e-1
  const RatePrior prior(weights);
  EXPECT_NEAR(prior.PosteriorRate(ChangeEvidence{}), 1e-2, 1e-12);
}

TEST(RatePrior, PosteriorFollowsTheEvidence) {
  std::array<double, RatePrior::kPoints> weights{};
  weights[10] = 1;  // 1e-3 per day
  weights[40] = 1;  // 1 per day
  const RatePrior prior(weights);
  // Ten daily visits all changed: the fast point, by a likelihood ratio of ~(0.63 / 0.001)^10.
  EXPECT_NEAR(prior.PosteriorRate(Regular(10, 10, 1.0)), 1.0, 1e-6);
  // Ten daily visits without change: the slow point.
  EXPECT_NEAR(prior.PosteriorRate(Regular(10, 0, 1.0)), 1e-3, 1e-6);
}

TEST(FleetEvidence, RemoveUndoesAdd) {
  FleetEvidence evidence;
  const VisitHistory a = Regular(5, 2, 3.0);
  const VisitHistory b = Regular(8, 8, 1.0);
  evidence.Add(a);
  evidence.Add(b);
  evidence.Add(VisitHistory{});  // ignored
  EXPECT_EQ(evidence.page_count(), 2);
  EXPECT_EQ(evidence.cell_count(), 2u);
  evidence.Remove(a);
  evidence.Remove(b);
  EXPECT_EQ(evidence.page_count(), 0);
  EXPECT_EQ(evidence.cell_count(), 0u);
}

TEST(FleetEvidence, FitRecoversATwoRatePopulation) {
  // Half the pages change 0.02 times a day, half 0.5 times, visited every 5 days for 60 days.
  std::mt19937_64 engine(3);
  FleetEvidence evidence;
  for (int page = 0; page < 4000; ++page) {
    const double rate = page % 2 == 0 ? 0.02 : 0.5;
    std::bernoulli_distribution changed(1 - std::exp(-rate * 5));
    VisitHistory history(VisitHistory::kMaxCapacity);
    for (int visit = 0; visit < 12; ++visit) history.Append(Visit{5 * kDay, changed(engine), false, 0});
    evidence.Add(history);
  }
  const RatePrior fitted =
      evidence.Fit(RatePrior::FromGamma(GammaPrior{1.5, 5.0}), FleetEvidence::FitOptions{});
  // The mass splits about evenly below and above 0.1 per day, and the slow half's log-mean is
  // near its rate. A page that changes at 92 % of its visits could as well change 5 or 5,000
  // times a day: the fast half's mass spreads upwards as far as the grid reaches, so what the
  // visits identify of it is its chance of a change in one 5-day interval, 1 - e^-2.5.
  double below = 0;
  double below_log = 0;
  double above_changed = 0;
  for (int k = 0; k < RatePrior::kPoints; ++k) {
    const double rate = RatePrior::PointRate(k);
    if (rate < 0.1) {
      below += fitted.weight(k);
      below_log += fitted.weight(k) * std::log(rate);
    } else {
      above_changed += fitted.weight(k) * (1 - std::exp(-rate * 5));
    }
  }
  EXPECT_NEAR(below, 0.5, 0.05);
  EXPECT_NEAR(std::exp(below_log / below), 0.02, 0.01);
  EXPECT_NEAR(above_changed / (1 - below), 1 - std::exp(-0.5 * 5), 0.02);
}

TEST(FleetEvidence, MergeAddsPartitions) {
  FleetEvidence one;
  FleetEvidence two;
  one.Add(Regular(4, 1, 2.0));
  two.Add(Regular(4, 1, 2.0));
  two.Add(Regular(6, 6, 2.0));
  one.Merge(two);
  EXPECT_EQ(one.page_count(), 3);
  EXPECT_EQ(one.cell_count(), 2u);
}

TEST(RatePrior, PosteriorSummaryOfATwoPointPrior) {
  // 0.1 or 1 change a day (grid points 30 and 40), even odds; one visit after a day saw a change:
  // likelihoods 1 - e^{-0.1} = 0.0951626 and 1 - e^{-1} = 0.6321206, posterior 0.1308467 and
  // 0.8691533, log-mean 0.1^0.1308467 = 0.7398664.
  std::array<double, RatePrior::kPoints> weights{};
  weights[30] = 1.0;
  weights[40] = 1.0;
  const RatePrior prior(weights);
  ChangeEvidence evidence;
  evidence.untimed_days[evidence.untimed_count++] = 1.0;
  const std::array<double, RatePrior::kPoints> posterior = prior.Posterior(evidence);
  EXPECT_NEAR(posterior[30], 0.1308467, 1e-7);
  EXPECT_NEAR(posterior[40], 0.8691533, 1e-7);
  const RatePrior::Summary summary = prior.PosteriorSummary(evidence, 0.5);
  EXPECT_NEAR(summary.rate_per_day, 0.7398664, 1e-7);
  EXPECT_NEAR(summary.probability_above, 0.8691533, 1e-7);
  EXPECT_NEAR(prior.PosteriorSummary(evidence, 2.0).probability_above, 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(prior.PosteriorRate(evidence), summary.rate_per_day);
}

}  // namespace
}  // namespace crawler::recrawl
