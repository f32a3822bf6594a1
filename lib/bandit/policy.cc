#include "lib/bandit/policy.h"

#include <cstdio>
#include <cstdlib>

namespace crawler::bandit {

void CheckOrDie(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "crawler::bandit: requirement broken: %s\n", what);
  std::abort();
}

Policy::Policy(int arms) : arms_(arms > 0 ? arms : 0), active_(arms > 0 ? arms : 0) {
  CheckOrDie(arms >= 1, "a policy needs at least one arm");
}

int Policy::Choose() {
  if (active_ == 0) return -1;
  const int arm = ChooseActive();
  CheckOrDie(arm >= 0 && arm < arm_count() && !arms_[arm].retired,
             "ChooseActive() returned an inactive arm");
  return arm;
}

void Policy::Observe(int arm, double reward) {
  CheckOrDie(arm >= 0 && arm < arm_count(), "Observe(): arm out of range");
  CheckOrDie(!arms_[arm].retired, "Observe(): arm retired");
  CheckOrDie(reward >= 0, "Observe(): negative reward");
  ArmState& state = arms_[arm];
  ++state.pulls;
  state.total_reward += reward;
  ++total_pulls_;
  if (reward > max_reward_) max_reward_ = reward;
  OnObserve(arm, reward);
}

void Policy::Retire(int arm) {
  CheckOrDie(arm >= 0 && arm < arm_count(), "Retire(): arm out of range");
  if (arms_[arm].retired) return;
  arms_[arm].retired = true;
  --active_;
  OnRetire(arm);
}

int Policy::RoundRobinBelow(int64_t quota) const {
  int best = -1;
  for (int arm = 0; arm < arm_count(); ++arm) {
    if (arms_[arm].retired || arms_[arm].pulls >= quota) continue;
    if (best < 0 || arms_[arm].pulls < arms_[best].pulls) best = arm;
  }
  return best;
}

}  // namespace crawler::bandit
