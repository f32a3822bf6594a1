#include "lib/recrawl/allocation_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::recrawl {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

AllocationSolver::AllocationSolver(AllocationOptions options) : options_(options) {}

double AllocationSolver::VisitsPerDay(double rate_per_day, double weight,
                                      const Allocation& allocation) const {
  double f = frequency_.VisitsPerDay(rate_per_day, weight, allocation.mu);
  if (allocation.upper_share > 0) {
    f = (1 - allocation.upper_share) * f +
        allocation.upper_share * frequency_.VisitsPerDay(rate_per_day, weight, allocation.mu_upper);
  }
  return std::max(f, options_.min_visits_per_day);
}

double AllocationSolver::TotalVisitsPerDay(absl::Span<const Group> groups, double static_pages,
                                           const Allocation& allocation) const {
  const double floor = options_.min_visits_per_day;
  double total = static_pages * floor;
  auto optimum = [&](const Group& group, double mu) {
    const double c = mu * group.key;
    return c < 1.0 ? group.rate_sum / frequency_.SolveRatio(c) : 0.0;
  };
  for (const Group& group : groups) {
    double f = optimum(group, allocation.mu);
    if (allocation.upper_share > 0) {
      f = (1 - allocation.upper_share) * f +
          allocation.upper_share * optimum(group, allocation.mu_upper);
    }
    total += std::max(f, group.pages * floor);
  }
  return total;
}

absl::StatusOr<Allocation> AllocationSolver::SolveGroups(absl::Span<const Group> groups,
                                                         double static_pages,
                                                         double budget) const {
  if (!(budget > 0) || !std::isfinite(budget)) {
    return absl::InvalidArgumentError(
        absl::StrCat("allocation: budget must be a positive number of visits per day, got ",
                     budget));
  }
  if (!(options_.min_visits_per_day >= 0) || !std::isfinite(options_.min_visits_per_day)) {
    return absl::InvalidArgumentError("allocation: min_visits_per_day must be >= 0");
  }
  auto make = [](double mu, double total) { return Allocation{mu, mu, 0.0, total}; };
  auto total_at = [&](double mu) {
    return TotalVisitsPerDay(groups, static_pages, make(mu, 0.0));
  };
  double min_key = kInfinity;
  for (const Group& group : groups) min_key = std::min(min_key, group.key);
  if (groups.empty()) return make(kInfinity, total_at(0));
  // At mu >= 1 / min_key no page's first visit is worth mu: only floors remain.
  double mu_hi = 1.0 / min_key;
  const double floors_only = total_at(mu_hi);
  if (floors_only >= budget) return make(kInfinity, floors_only);

  // Walk down until the allocation exceeds the budget. f grows like mu^(-1/2) for small mu, so
  // this takes O(log(budget)) steps.
  double mu_lo = mu_hi;
  while (total_at(mu_lo) < budget) {
    mu_hi = mu_lo;
    mu_lo /= 16;
    if (mu_lo < 1e-300) return make(mu_lo, total_at(mu_lo));
  }
  // Bisection on ln mu down to adjacent doubles: total(mu_lo) >= budget > total(mu_hi).
  for (int i = 0; i < 200; ++i) {
    const double mid = std::sqrt(mu_lo * mu_hi);
    if (!(mid > mu_lo && mid < mu_hi)) break;
    if (total_at(mid) >= budget) {
      mu_lo = mid;
    } else {
      mu_hi = mid;
    }
  }
  Allocation allocation = make(mu_lo, total_at(mu_lo));
  if (allocation.visits_per_day <= budget * (1 + 1e-12)) return allocation;
  // mu_lo and mu_hi are adjacent doubles and the totals still straddle the budget: mix them.
  const double total_hi = total_at(mu_hi);
  allocation.mu_upper = mu_hi;
  allocation.upper_share = std::clamp(
      (allocation.visits_per_day - budget) / (allocation.visits_per_day - total_hi), 0.0, 1.0);
  allocation.visits_per_day = TotalVisitsPerDay(groups, static_pages, allocation);
  return allocation;
}

absl::StatusOr<Allocation> AllocationSolver::Solve(const RateHistogram& rates,
                                                   double budget_visits_per_day) const {
  std::vector<Group> groups;
  for (const RateHistogram::Bin& bin : rates.bins()) {
    if (bin.pages <= 0) continue;
    groups.push_back(Group{bin.key_sum / bin.pages, bin.rate_sum, bin.pages});
  }
  return SolveGroups(groups, rates.static_pages(), budget_visits_per_day);
}

absl::StatusOr<Allocation> AllocationSolver::Solve(absl::Span<const WeightedRate> pages,
                                                   double budget_visits_per_day) const {
  std::vector<Group> groups;
  groups.reserve(pages.size());
  double static_pages = 0;
  for (const WeightedRate& page : pages) {
    if (!(page.rate_per_day >= 0) || !(page.weight >= 0)) {
      return absl::InvalidArgumentError("allocation: rates and weights must be >= 0");
    }
    if (page.rate_per_day > 0 && page.weight > 0) {
      groups.push_back(Group{page.rate_per_day / page.weight, page.rate_per_day, 1.0});
    } else {
      static_pages += 1;
    }
  }
  return SolveGroups(groups, static_pages, budget_visits_per_day);
}

}  // namespace crawler::recrawl
