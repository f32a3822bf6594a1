#include "lib/bandit/explore_then_commit.h"

namespace crawler::bandit {

ExploreThenCommit::ExploreThenCommit(int arms, ExploreThenCommitOptions options)
    : Policy(arms), options_(options) {
  CheckOrDie(options_.explore_pulls >= 1, "ExploreThenCommit: explore_pulls >= 1");
}

int ExploreThenCommit::ChooseActive() {
  if (const int arm = RoundRobinBelow(options_.explore_pulls); arm >= 0) return arm;
  return ArgMaxActive([&](int arm) { return arms()[arm].total_reward; });
}

}  // namespace crawler::bandit
