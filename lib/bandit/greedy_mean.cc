#include "lib/bandit/greedy_mean.h"

namespace crawler::bandit {

GreedyMean::GreedyMean(int arms, GreedyMeanOptions options) : Policy(arms), options_(options) {
  CheckOrDie(options_.batch_pulls >= 1, "GreedyMean: batch_pulls >= 1");
}

int GreedyMean::ChooseActive() {
  if (const int arm = RoundRobinBelow(options_.batch_pulls); arm >= 0) return arm;
  if (batch_arm_ >= 0 && batch_left_ > 0 && !arms()[batch_arm_].retired) return batch_arm_;
  batch_arm_ = ArgMaxActive([&](int arm) { return arms()[arm].mean(); });
  batch_left_ = options_.batch_pulls;
  return batch_arm_;
}

void GreedyMean::OnObserve(int arm, double /*reward*/) {
  if (arm == batch_arm_ && batch_left_ > 0) --batch_left_;
}

}  // namespace crawler::bandit
