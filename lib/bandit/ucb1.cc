#include "lib/bandit/ucb1.h"

#include <cmath>

namespace crawler::bandit {

Ucb1::Ucb1(int arms, Ucb1Options options) : Policy(arms), options_(options) {
  CheckOrDie(options_.initial_pulls >= 1, "Ucb1: initial_pulls >= 1");
}

double Ucb1::Index(int arm) const {
  const ArmState& state = arms()[arm];
  const double t = static_cast<double>(state.pulls);
  const double n = static_cast<double>(total_pulls());
  const double exploration = std::sqrt(2.0 * std::log(n) / t);
  if (max_reward() <= 0) return exploration;
  return state.mean() / max_reward() + exploration;
}

int Ucb1::ChooseActive() {
  if (const int arm = RoundRobinBelow(options_.initial_pulls); arm >= 0) return arm;
  return ArgMaxActive([&](int arm) { return Index(arm); });
}

}  // namespace crawler::bandit
