#include "services/scheduler/focus_budget_tuner.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/collections/shares.h"

namespace crawler::scheduler {

std::vector<uint64_t> SplitFocusBudget(uint64_t total, const std::vector<PartitionFocus>& partitions,
                                       const FocusPrior& prior) {
  std::vector<uint64_t> budgets(partitions.size());
  uint64_t spent = 0;
  for (size_t k = 0; k < partitions.size(); ++k) {
    budgets[k] = partitions[k].spent;
    spent += partitions[k].spent;
  }
  const uint64_t left = total > spent ? total - spent : 0;
  std::vector<double> weight(partitions.size(), 0);
  double weights = 0;
  for (size_t k = 0; k < partitions.size(); ++k) {
    if (!partitions[k].has_work) continue;
    weight[k] = (prior.shape + static_cast<double>(partitions[k].reward)) /
                (prior.rate + static_cast<double>(partitions[k].pulls));
    weights += weight[k];
  }
  if (left == 0 || weights <= 0) return budgets;
  // Whole pages by largest remainder: the shares add up to `left` exactly.
  std::vector<double> remainder(partitions.size(), -1);
  uint64_t given = 0;
  for (size_t k = 0; k < partitions.size(); ++k) {
    if (weight[k] <= 0) continue;
    const double exact = static_cast<double>(left) * weight[k] / weights;
    const auto whole = static_cast<uint64_t>(std::floor(exact));
    budgets[k] += whole;
    given += whole;
    remainder[k] = exact - static_cast<double>(whole);
  }
  std::vector<size_t> order(partitions.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t i = 0; given < left && i < order.size(); ++i) {
    if (remainder[order[i]] < 0) break;
    ++budgets[order[i]];
    ++given;
  }
  return budgets;
}

FocusBudgetTuner::FocusBudgetTuner(FocusBudgetTunerOptions options, uint64_t total,
                                   std::vector<frontier::FrontierClient*> partitions,
                                   std::function<absl::Status(uint32_t, uint64_t)> push,
                                   std::function<void(const absl::Status&)> on_error)
    : options_(options),
      total_(total),
      partitions_(std::move(partitions)),
      push_(std::move(push)),
      on_error_(std::move(on_error)) {
  const auto n = static_cast<uint32_t>(partitions_.size());
  for (uint32_t k = 0; k < n; ++k) budgets_.push_back(collections::ShareOf(total_, k, n));
}

absl::Status FocusBudgetTuner::TuneNow(absl::Time now) {
  last_tuning_ = now;
  std::vector<PartitionFocus> figures;
  for (size_t k = 0; k < partitions_.size(); ++k) {
    absl::StatusOr<frontier::FrontierStats> s = partitions_[k]->Stats();
    if (!s.ok()) {
      return absl::Status(s.status().code(),
                          absl::StrCat("partition ", k, ": ", s.status().message()));
    }
    figures.push_back({.spent = s->pages_completed + s->in_flight_urls,
                       .pulls = s->focus_pulls,
                       .reward = s->focus_reward,
                       .has_work = s->queued_urls + s->waiting_urls + s->in_flight_urls > 0});
  }
  const std::vector<uint64_t> split = SplitFocusBudget(total_, figures);
  const std::vector<uint64_t> before = budgets();
  for (size_t k = 0; k < split.size(); ++k) {
    if (split[k] == before[k]) continue;
    if (absl::Status s = push_(static_cast<uint32_t>(k), split[k]); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("partition ", k, ": ", s.message()));
    }
    absl::MutexLock lock(&mu_);
    budgets_[k] = split[k];
  }
  absl::MutexLock lock(&mu_);
  ++tunings_;
  return absl::OkStatus();
}

void FocusBudgetTuner::Tick(absl::Time now) {
  if (now - last_tuning_ < options_.interval) return;
  if (absl::Status s = TuneNow(now); !s.ok() && on_error_) on_error_(s);
}

std::vector<uint64_t> FocusBudgetTuner::budgets() const {
  absl::MutexLock lock(&mu_);
  return budgets_;
}

uint64_t FocusBudgetTuner::tunings() const {
  absl::MutexLock lock(&mu_);
  return tunings_;
}

}  // namespace crawler::scheduler
