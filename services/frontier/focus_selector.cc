#include "services/frontier/focus_selector.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler::frontier {

FocusSelector::FocusSelector(const FocusOptions& options, uint64_t budget)
    : options_(options), budget_(static_cast<int64_t>(budget)) {}

void FocusSelector::Sync(const std::vector<bool>& playable) {
  bool rebuild = false;
  for (uint32_t host = 0; host < playable.size(); ++host) {
    auto it = arm_of_host_.find(host);
    if (it == arm_of_host_.end()) {
      if (!playable[host]) continue;
      arm_of_host_.emplace(host, static_cast<int>(arm_host_.size()));
      arm_host_.push_back(host);
      retired_.push_back(false);
      rebuild = true;
    } else if (retired_[it->second] && playable[host]) {
      retired_[it->second] = false;
      rebuild = true;
    }
  }
  if (rebuild || policy_ == nullptr) Rebuild();
  if (policy_ == nullptr) return;
  for (size_t arm = 0; arm < arm_host_.size(); ++arm) {
    const uint32_t host = arm_host_[arm];
    if (!retired_[arm] && (host >= playable.size() || !playable[host])) {
      retired_[arm] = true;
      policy_->Retire(static_cast<int>(arm));
    }
  }
}

void FocusSelector::Rebuild() {
  policy_.reset();
  if (arm_host_.empty()) return;
  const uint64_t seed = options_.seed ^ (0x9E3779B97F4A7C15ull * (rebuilds_ + 1));
  absl::StatusOr<std::unique_ptr<bandit::Policy>> made =
      bandit::MakePolicy(options_.policy, static_cast<int>(arm_host_.size()), budget_,
                         options_.policy_options, seed);
  bandit::CheckOrDie(made.ok(), "FocusSelector: options were validated");
  policy_ = *std::move(made);
  ++rebuilds_;
  // Observe before Retire: a retired arm's pulls still count in n (docs/focused.md).
  for (const Pull& pull : history_) policy_->Observe(pull.arm, pull.reward);
  for (size_t arm = 0; arm < retired_.size(); ++arm) {
    if (retired_[arm]) policy_->Retire(static_cast<int>(arm));
  }
}

int FocusSelector::ChooseHost() {
  if (policy_ == nullptr) return -1;
  const int arm = policy_->Choose();
  return arm < 0 ? -1 : static_cast<int>(arm_host_[arm]);
}

void FocusSelector::Observe(uint32_t host, double reward) {
  auto it = arm_of_host_.find(host);
  if (it == arm_of_host_.end() || policy_ == nullptr) return;
  history_.push_back(Pull{it->second, reward});
  total_reward_ += reward;
  // A retired arm has nothing in flight (Sync retires only those), but a replayed history must
  // never trip the policy's check.
  if (!retired_[it->second]) policy_->Observe(it->second, reward);
}

}  // namespace crawler::frontier
