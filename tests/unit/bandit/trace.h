// Test helper: drives a policy over fixed per-arm reward sequences the way a crawler would (arm i's
// j-th pull earns rewards[i][j]; an arm whose sequence is used up is retired) and records the arm
// chosen at each step (-1 once every arm is retired).
#ifndef CRAWLER_TESTS_UNIT_BANDIT_TRACE_H_
#define CRAWLER_TESTS_UNIT_BANDIT_TRACE_H_

#include <vector>

#include "lib/bandit/policy.h"

namespace crawler::bandit::testing {

inline std::vector<int> Trace(Policy& policy, const std::vector<std::vector<double>>& rewards,
                              int steps) {
  std::vector<size_t> next(rewards.size(), 0);
  for (size_t arm = 0; arm < rewards.size(); ++arm) {
    if (rewards[arm].empty()) policy.Retire(static_cast<int>(arm));
  }
  std::vector<int> chosen;
  for (int step = 0; step < steps; ++step) {
    const int arm = policy.Choose();
    chosen.push_back(arm);
    if (arm < 0) continue;
    policy.Observe(arm, rewards[arm][next[arm]++]);
    if (next[arm] == rewards[arm].size()) policy.Retire(arm);
  }
  return chosen;
}

}  // namespace crawler::bandit::testing

#endif  // CRAWLER_TESTS_UNIT_BANDIT_TRACE_H_
