// The simulator end to end: it reproduces the worked examples of Cho & Garcia-Molina (TODS 2003,
// §5) with its budgeted scheduler, its estimator-driven optimal policy gets close to the oracle,
// and runs are deterministic.
#include "tools/crawlsim/simulator.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/crawlsim/report.h"
#include "tools/crawlsim/value_distribution.h"

namespace crawler::crawlsim {
namespace {

// `copies` independent copies of each rate, `budget_per_set` visits per day per set of rates.
SimulationConfig Replicated(const std::vector<double>& rates, int copies, double budget_per_set) {
  SimulationConfig config;
  for (int c = 0; c < copies; ++c) {
    for (double rate : rates) config.rates_per_day.push_back(rate);
  }
  config.budget_visits_per_day = budget_per_set * copies;
  config.days = 300;
  config.warmup_days = 30;
  config.use_true_rates = true;  // the paper's numbers assume known rates
  config.seed = 17;
  return config;
}

double Freshness(const SimulationConfig& config, const std::string& policy) {
  absl::StatusOr<PolicyRun> run = RunPolicy(config, policy);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? run->freshness : -1;
}

// Simulation (scheduling jitter, Monte Carlo) against the paper's three decimals.
constexpr double kSimulationTolerance = 0.006;

TEST(Tods2003_5, SimulatedTwoPagesOneVisitPerDay) {
  const SimulationConfig config = Replicated({1.0, 9.0}, 400, 1.0);
  EXPECT_NEAR(Freshness(config, "uniform"), 0.244, kSimulationTolerance);
  EXPECT_NEAR(Freshness(config, "proportional"), 0.100, kSimulationTolerance);
  EXPECT_NEAR(Freshness(config, "oracle"), 0.316, kSimulationTolerance);
}

TEST(Tods2003_5, SimulatedTwoPagesTwoVisitsPerDay) {
  const SimulationConfig config = Replicated({1.0, 9.0}, 400, 2.0);
  EXPECT_NEAR(Freshness(config, "uniform"), 0.372, kSimulationTolerance);
  EXPECT_NEAR(Freshness(config, "proportional"), 0.199, kSimulationTolerance);
  EXPECT_NEAR(Freshness(config, "oracle"), 0.395, kSimulationTolerance);
}

TEST(Tods2003_5, SimulatedFivePagesFiveVisitsPerDay) {
  const SimulationConfig config = Replicated({1, 2, 3, 4, 5}, 200, 5.0);
  EXPECT_NEAR(Freshness(config, "uniform"), 0.365, kSimulationTolerance);
  EXPECT_NEAR(Freshness(config, "proportional"), 0.317, kSimulationTolerance);
  EXPECT_NEAR(Freshness(config, "oracle"), 0.374, kSimulationTolerance);
}

SimulationConfig GammaFleet() {
  absl::StatusOr<ValueDistribution> rates = ValueDistribution::Parse("gamma:0.5,0.4");
  EXPECT_TRUE(rates.ok());
  SimulationConfig config;
  config.rates_per_day = rates->Draw(4000, 99);
  config.budget_visits_per_day = 4000 * 0.2;  // one visit per page per mean change interval
  config.days = 160;
  config.warmup_days = 80;
  config.seed = 5;
  return config;
}

TEST(EstimatedOptimal, ApproachesTheOracleAndBeatsUniform) {
  const SimulationConfig config = GammaFleet();
  const double oracle = Freshness(config, "oracle");
  const double optimal = Freshness(config, "optimal");
  const double uniform = Freshness(config, "uniform");
  EXPECT_GE(optimal / oracle, 0.95);
  EXPECT_GT(optimal, uniform);
  absl::StatusOr<ClosedForms> closed = ComputeClosedForms(config);
  ASSERT_TRUE(closed.ok());
  EXPECT_NEAR(oracle, closed->optimum_freshness, 0.01);
  EXPECT_NEAR(uniform, closed->uniform_freshness, 0.01);
}

// Gain capture (F_optimal - F_uniform) / (F_oracle - F_uniform) at budget 0.1 visits per page per
// day over 120 days, as bench/estimators measures it at 20,000 pages, reduced to 10,000 pages
// and one seed (a few seconds). The floors are below the full runs' values (docs/recrawl.md §9):
// at this size the narrow distribution's capture varies from -0.2 to +0.25 with the seed (its
// whole gain is 1.8 % of freshness), so there the test only bounds how far it may trail uniform.
// The Last-Modified cases (a usable date on every page, ~12 s each) pin the posterior decision
// (optimal_policy.h) on evidence with dated changes, where the log-mean plug-in it replaced
// captured 0.31 on both distributions at this size.
struct CaptureCase {
  const char* rates;
  double min_capture;
  double last_modified_share = 0;
};

class GainCapture : public testing::TestWithParam<CaptureCase> {};

TEST_P(GainCapture, EstimatedOptimumKeepsItsShareOfTheGain) {
  absl::StatusOr<ValueDistribution> rates = ValueDistribution::Parse(GetParam().rates);
  ASSERT_TRUE(rates.ok());
  SimulationConfig config;
  constexpr int kPages = 10000;
  config.rates_per_day = rates->Draw(kPages, 1);
  config.budget_visits_per_day = 0.1 * kPages;
  config.days = 120;
  config.warmup_days = 60;
  config.seed = 1;
  config.last_modified_share = GetParam().last_modified_share;
  config.policy_options.optimal.min_visits_per_day = config.budget_visits_per_day / (30.0 * kPages);
  const double oracle = Freshness(config, "oracle");
  const double optimal = Freshness(config, "optimal");
  const double uniform = Freshness(config, "uniform");
  ASSERT_GT(oracle, uniform);
  EXPECT_GE((optimal - uniform) / (oracle - uniform), GetParam().min_capture)
      << "oracle " << oracle << " optimal " << optimal << " uniform " << uniform;
}

INSTANTIATE_TEST_SUITE_P(HeadlineHeavyTailNarrow, GainCapture,
                         testing::Values(CaptureCase{"gamma:0.5,0.4", 0.35},
                                         CaptureCase{"lognormal:-3,2", 0.35},
                                         CaptureCase{"gamma:2,0.1", -0.25},
                                         CaptureCase{"gamma:0.5,0.4", 0.45, 1.0},
                                         CaptureCase{"lognormal:-3,2", 0.45, 1.0}));

// A web where almost every page changes many times between visits (Gamma(2), 3 changes a day,
// 0.01 visits per page per day: the optimum parks most of them, and their visits cannot tell
// them apart without Last-Modified) over 12 uniform intervals, as bench/estimators runs it at
// 2,000 pages. The pages the policy parks wait for the floor, longer than the run; counting the
// commitments it has made as they stand (posterior_allocation.h), it still asks for its budget
// (it asked for 30-70% of it when it counted parked pages at what it would give them now) and
// stays at least as fresh as uniform.
class SpendsTheBudget : public testing::TestWithParam<double> {};

TEST_P(SpendsTheBudget, WhereTheOptimumParksMostPages) {
  absl::StatusOr<ValueDistribution> rates = ValueDistribution::Parse("gamma:2,1.5");
  ASSERT_TRUE(rates.ok());
  constexpr int kPages = 2000;
  SimulationConfig config;
  config.rates_per_day = rates->Draw(kPages, 1);
  config.budget_visits_per_day = 0.01 * kPages;
  config.days = 1200;
  config.warmup_days = 600;
  config.retune_every_days = 10;
  config.seed = 1;
  config.last_modified_share = GetParam();
  config.policy_options.optimal.min_visits_per_day = 1 / (30.0 * 100);
  absl::StatusOr<PolicyRun> optimal = RunPolicy(config, "optimal");
  ASSERT_TRUE(optimal.ok());
  EXPECT_NEAR(optimal->requested_visits_per_day / config.budget_visits_per_day, 1.0, 0.04);
  EXPECT_GE(optimal->freshness, Freshness(config, "uniform"));
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutLastModified, SpendsTheBudget, testing::Values(0.0, 1.0));

TEST(EstimatedOptimal, ImportanceWeightsShiftVisitsToImportantPages) {
  SimulationConfig config = GammaFleet();
  absl::StatusOr<ValueDistribution> weights = ValueDistribution::Parse("lognormal:0,1");
  ASSERT_TRUE(weights.ok());
  config.weights = weights->Draw(4000, 123);
  // Weighted freshness: the optimum for the weights beats both allocations that ignore them.
  const double oracle = Freshness(config, "oracle");
  const double optimal = Freshness(config, "optimal");
  const double uniform = Freshness(config, "uniform");
  absl::StatusOr<ClosedForms> closed = ComputeClosedForms(config);
  ASSERT_TRUE(closed.ok());
  EXPECT_NEAR(oracle, closed->optimum_freshness, 0.01);
  EXPECT_GT(oracle, uniform + 0.05);
  EXPECT_GE(optimal / oracle, 0.95);
}

TEST(Simulator, EveryPolicySpendsTheBudgetAndRunsAreDeterministic) {
  SimulationConfig config = GammaFleet();
  config.days = 40;
  config.warmup_days = 10;
  config.last_modified_share = 0.5;
  for (const std::string& policy : SimulatedPolicyNames()) {
    absl::StatusOr<PolicyRun> first = RunPolicy(config, policy);
    absl::StatusOr<PolicyRun> second = RunPolicy(config, policy);
    ASSERT_TRUE(first.ok() && second.ok()) << policy;
    EXPECT_EQ(first->freshness, second->freshness) << policy;
    EXPECT_EQ(first->age_days, second->age_days) << policy;
    EXPECT_NEAR(first->visits_per_day, config.budget_visits_per_day, 1.0) << policy;
    EXPECT_GT(first->freshness, 0.3) << policy;
    EXPECT_LE(first->freshness, 1.0) << policy;
    EXPECT_EQ(first->freshness_by_bucket.size(), 40u) << policy;
  }
}

TEST(Simulator, RejectsBadConfigurations) {
  SimulationConfig config = GammaFleet();
  EXPECT_EQ(RunPolicy(config, "sometimes").status().code(), absl::StatusCode::kInvalidArgument);
  config.budget_visits_per_day = 0;
  EXPECT_EQ(RunPolicy(config, "uniform").status().code(), absl::StatusCode::kInvalidArgument);
  config = GammaFleet();
  config.warmup_days = config.days;
  EXPECT_EQ(RunPolicy(config, "uniform").status().code(), absl::StatusCode::kInvalidArgument);
  config = GammaFleet();
  config.weights = {1.0};
  EXPECT_EQ(RunPolicy(config, "uniform").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ValueDistribution, ParsesSpecsAndDrawsTheRightMoments) {
  absl::StatusOr<ValueDistribution> gamma = ValueDistribution::Parse("gamma:2,0.5");
  ASSERT_TRUE(gamma.ok());
  const std::vector<double> g = gamma->Draw(200000, 1);
  double mean = 0;
  double square = 0;
  for (double x : g) {
    mean += x;
    square += x * x;
  }
  mean /= g.size();
  EXPECT_NEAR(mean, 1.0, 0.01);                           // shape * scale
  EXPECT_NEAR(square / g.size() - mean * mean, 0.5, 0.01);  // shape * scale^2
  absl::StatusOr<ValueDistribution> small = ValueDistribution::Parse("gamma:0.3,1");
  ASSERT_TRUE(small.ok());
  double small_mean = 0;
  for (double x : small->Draw(200000, 2)) small_mean += x;
  EXPECT_NEAR(small_mean / 200000, 0.3, 0.01);
  absl::StatusOr<ValueDistribution> lognormal = ValueDistribution::Parse("lognormal:0,0.5");
  ASSERT_TRUE(lognormal.ok());
  double log_mean = 0;
  for (double x : lognormal->Draw(200000, 3)) log_mean += std::log(x);
  EXPECT_NEAR(log_mean / 200000, 0.0, 0.01);
  absl::StatusOr<ValueDistribution> list = ValueDistribution::Parse("list:1,9");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->Draw(5, 0), (std::vector<double>{1, 9, 1, 9, 1}));
  EXPECT_EQ(gamma->Draw(10, 7), gamma->Draw(10, 7));
  for (const char* bad : {"gamma:1", "gamma:-1,1", "gamma:1,x", "lognormal:0,-1", "list:1,-2",
                          "list:", "const:nan"}) {
    EXPECT_EQ(ValueDistribution::Parse(bad).status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
  }
  EXPECT_EQ(ValueDistribution::Parse("/nonexistent/rates.txt").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace crawler::crawlsim
