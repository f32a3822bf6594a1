// The freshness-optimal allocation (Cho & Garcia-Molina, TODS 2003, §5): OptimalFrequency's
// per-page inverse, AllocationSolver's multiplier, and the paper's worked examples.
#include "lib/recrawl/allocation_solver.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "lib/recrawl/freshness.h"
#include "lib/recrawl/optimal_frequency.h"
#include "lib/recrawl/rate_histogram.h"

namespace crawler::recrawl {
namespace {

// The papers' numbers are given to three decimals.
constexpr double kPaperTolerance = 0.002;

double Fixed(double rate, double f) { return ExpectedFreshness(VisitOrder::kFixed, rate, f); }

double MeanFreshness(const std::vector<double>& rates, const std::vector<double>& f) {
  double total = 0;
  for (size_t i = 0; i < rates.size(); ++i) total += Fixed(rates[i], f[i]);
  return total / static_cast<double>(rates.size());
}

struct Allocations {
  std::vector<double> uniform;
  std::vector<double> proportional;
  std::vector<double> optimal;
};

Allocations Allocate(const std::vector<double>& rates, double budget) {
  Allocations out;
  double total_rate = 0;
  for (double r : rates) total_rate += r;
  std::vector<WeightedRate> pages;
  for (double r : rates) {
    out.uniform.push_back(budget / static_cast<double>(rates.size()));
    out.proportional.push_back(budget * r / total_rate);
    pages.push_back({r, 1.0});
  }
  const AllocationSolver solver;
  absl::StatusOr<Allocation> allocation = solver.Solve(pages, budget);
  EXPECT_TRUE(allocation.ok()) << allocation.status();
  for (double r : rates) out.optimal.push_back(solver.VisitsPerDay(r, 1.0, *allocation));
  return out;
}

TEST(Tods2003_5, TwoPagesOneVisitPerDay) {
  const std::vector<double> rates = {1.0, 9.0};
  const Allocations a = Allocate(rates, 1.0);
  EXPECT_NEAR(MeanFreshness(rates, a.uniform), 0.244, kPaperTolerance);
  EXPECT_NEAR(MeanFreshness(rates, a.proportional), 0.100, kPaperTolerance);
  EXPECT_NEAR(MeanFreshness(rates, a.optimal), 0.316, kPaperTolerance);
  // All visits go to the slow page.
  EXPECT_NEAR(a.optimal[0], 1.0, 1e-9);
  EXPECT_EQ(a.optimal[1], 0.0);
}

TEST(Tods2003_5, TwoPagesTwoVisitsPerDay) {
  const std::vector<double> rates = {1.0, 9.0};
  const Allocations a = Allocate(rates, 2.0);
  EXPECT_NEAR(MeanFreshness(rates, a.uniform), 0.372, kPaperTolerance);
  EXPECT_NEAR(MeanFreshness(rates, a.proportional), 0.199, kPaperTolerance);
  EXPECT_NEAR(MeanFreshness(rates, a.optimal), 0.395, kPaperTolerance);
  EXPECT_NEAR(a.optimal[0], 1.76, 0.01);
  EXPECT_NEAR(a.optimal[1], 0.24, 0.01);
}

TEST(Tods2003_5, FivePagesFiveVisitsPerDay) {
  const std::vector<double> rates = {1, 2, 3, 4, 5};
  const Allocations a = Allocate(rates, 5.0);
  EXPECT_NEAR(MeanFreshness(rates, a.uniform), 0.365, kPaperTolerance);
  EXPECT_NEAR(MeanFreshness(rates, a.proportional), 0.317, kPaperTolerance);
  EXPECT_NEAR(MeanFreshness(rates, a.optimal), 0.374, kPaperTolerance);
  const double paper[] = {1.15, 1.36, 1.35, 1.14, 0.0};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(a.optimal[i], paper[i], 0.006) << "page " << i;
}

TEST(Tods2003_5, OptimumSatisfiesTheLagrangeConditionAndSpendsTheBudget) {
  std::mt19937_64 engine(3);
  std::gamma_distribution<double> gamma(0.7, 1.0);
  std::uniform_real_distribution<double> weight(0.5, 3.0);
  std::vector<WeightedRate> pages(500);
  for (WeightedRate& page : pages) page = {gamma(engine), weight(engine)};
  const AllocationSolver solver;
  absl::StatusOr<Allocation> allocation = solver.Solve(pages, 300.0);
  ASSERT_TRUE(allocation.ok());
  double total = 0;
  int skipped = 0;
  for (const WeightedRate& page : pages) {
    const double f = solver.VisitsPerDay(page.rate_per_day, page.weight, *allocation);
    total += f;
    if (f > 0) {
      EXPECT_NEAR(page.weight * FixedOrderFreshnessDerivative(page.rate_per_day, f) /
                      allocation->mu,
                  1.0, 1e-9);
    } else {
      // Not worth a first visit: w / lambda <= mu.
      EXPECT_LE(page.weight / page.rate_per_day, allocation->mu * (1 + 1e-12));
      ++skipped;
    }
  }
  EXPECT_NEAR(total, 300.0, 1e-8 * 300.0);
  EXPECT_NEAR(allocation->visits_per_day, 300.0, 1e-8 * 300.0);
  EXPECT_GT(skipped, 0);
}

TEST(Tods2003_5, NoOtherAllocationOfTheBudgetDoesBetter) {
  const std::vector<double> rates = {0.2, 0.5, 1.0, 3.0, 8.0};
  const Allocations a = Allocate(rates, 3.0);
  const double best = MeanFreshness(rates, a.optimal);
  std::mt19937_64 engine(11);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> f(rates.size());
    double sum = 0;
    for (double& x : f) sum += x = std::exponential_distribution<double>(1.0)(engine);
    for (double& x : f) x *= 3.0 / sum;
    EXPECT_LE(MeanFreshness(rates, f), best + 1e-12);
  }
}

TEST(OptimalFrequency, InvertsTheMarginalFreshness) {
  const OptimalFrequency frequency;
  for (double c : {1e-20, 1e-12, 1e-6, 1e-3, 0.01, 0.2, 0.5, 0.7, 0.9, 0.999, 1 - 1e-9, 1 - 1e-15}) {
    const double r = frequency.SolveRatio(c);
    if (c < 0.5) {
      // g(r) = 1 - e^-r (1 + r), via the fixed-order derivative at lambda = 1, f = 1 / r.
      EXPECT_NEAR(FixedOrderFreshnessDerivative(1.0, 1.0 / r) / c, 1.0, 1e-12) << c;
    } else {
      // Near 1 compare the complements, which keep their digits.
      EXPECT_NEAR(std::exp(-r) * (1 + r) / (1 - c), 1.0, 1e-9) << c;
    }
  }
}

TEST(OptimalFrequency, MonotoneAndZeroWhenTheFirstVisitIsNotWorthMu) {
  const OptimalFrequency frequency;
  double previous = 0;
  for (double c = 1e-4; c < 1; c += 1e-3) {
    const double r = frequency.SolveRatio(c);
    EXPECT_GT(r, previous);
    previous = r;
  }
  EXPECT_EQ(frequency.VisitsPerDay(4.0, 1.0, 0.25), 0.0);  // mu = w / lambda exactly
  EXPECT_GT(frequency.VisitsPerDay(4.0, 1.0, 0.2499), 0.0);
  EXPECT_EQ(frequency.VisitsPerDay(0.0, 1.0, 0.1), 0.0);
  EXPECT_EQ(frequency.VisitsPerDay(1.0, 0.0, 0.1), 0.0);
  EXPECT_TRUE(std::isinf(frequency.VisitsPerDay(1.0, 1.0, 0.0)));
  // More weight, more visits.
  EXPECT_GT(frequency.VisitsPerDay(1.0, 2.0, 0.1), frequency.VisitsPerDay(1.0, 1.0, 0.1));
}

TEST(AllocationSolver, HistogramSolveMatchesTheExactSolve) {
  std::mt19937_64 engine(5);
  std::gamma_distribution<double> gamma(0.5, 0.4);
  std::vector<WeightedRate> pages(20000);
  RateHistogram histogram;
  for (WeightedRate& page : pages) {
    page = {gamma(engine), 1.0};
    histogram.Add(page.rate_per_day, page.weight);
  }
  const double budget = 4000.0;
  const AllocationSolver solver;
  absl::StatusOr<Allocation> exact = solver.Solve(pages, budget);
  absl::StatusOr<Allocation> binned = solver.Solve(histogram, budget);
  ASSERT_TRUE(exact.ok() && binned.ok());
  EXPECT_NEAR(binned->mu / exact->mu, 1.0, 0.01);
  double f_exact = 0;
  double f_binned = 0;
  double spent = 0;
  for (const WeightedRate& page : pages) {
    const double r = page.rate_per_day;
    f_exact += Fixed(r, solver.VisitsPerDay(r, 1.0, *exact));
    f_binned += Fixed(r, solver.VisitsPerDay(r, 1.0, *binned));
    spent += solver.VisitsPerDay(r, 1.0, *binned);
  }
  EXPECT_NEAR(f_binned / f_exact, 1.0, 1e-4);
  EXPECT_NEAR(spent / budget, 1.0, 0.01);
}

TEST(AllocationSolver, HistogramRemoveUndoesAdd) {
  RateHistogram histogram;
  histogram.Add(0.5);
  histogram.Add(2.0, 3.0);
  histogram.Add(0.0);
  histogram.Remove(2.0, 3.0);
  EXPECT_EQ(histogram.page_count(), 2);
  EXPECT_EQ(histogram.static_pages(), 1);
  EXPECT_DOUBLE_EQ(histogram.total_rate(), 0.5);
  double pages = 0;
  for (const RateHistogram::Bin& bin : histogram.bins()) pages += bin.pages;
  EXPECT_EQ(pages, 1);
}

TEST(AllocationSolver, FloorIsPaidFromTheBudget) {
  const std::vector<WeightedRate> pages = {{1.0, 1.0}, {9.0, 1.0}};
  const AllocationSolver solver(AllocationOptions{0.1});
  absl::StatusOr<Allocation> allocation = solver.Solve(pages, 1.0);
  ASSERT_TRUE(allocation.ok());
  EXPECT_NEAR(solver.VisitsPerDay(1.0, 1.0, *allocation), 0.9, 1e-9);
  EXPECT_DOUBLE_EQ(solver.VisitsPerDay(9.0, 1.0, *allocation), 0.1);
  // A floor that alone exceeds the budget leaves no optimum.
  absl::StatusOr<Allocation> starved = AllocationSolver(AllocationOptions{1.0}).Solve(pages, 1.0);
  ASSERT_TRUE(starved.ok());
  EXPECT_TRUE(std::isinf(starved->mu));
}

TEST(AllocationSolver, RejectsBadInput) {
  const AllocationSolver solver;
  const std::vector<WeightedRate> pages = {{1.0, 1.0}};
  EXPECT_EQ(solver.Solve(pages, 0.0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(solver.Solve(pages, -1.0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(solver.Solve(pages, NAN).status().code(), absl::StatusCode::kInvalidArgument);
  const std::vector<WeightedRate> negative = {{-1.0, 1.0}};
  EXPECT_EQ(solver.Solve(negative, 1.0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AllocationSolver(AllocationOptions{-1}).Solve(pages, 1.0).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Nothing that changes: nothing to optimise.
  absl::StatusOr<Allocation> none = solver.Solve(std::vector<WeightedRate>{{0.0, 1.0}}, 1.0);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(std::isinf(none->mu));
}

}  // namespace
}  // namespace crawler::recrawl
