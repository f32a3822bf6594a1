#include "lib/bandit/discounted_ucb.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace crawler::bandit {

DiscountedUcb::DiscountedUcb(int arms, DiscountedUcbOptions options)
    : Policy(arms), options_(options), stats_(arms, options.discount) {
  CheckOrDie(options_.xi > 0, "DiscountedUcb: xi > 0");
  CheckOrDie(options_.initial_pulls >= 1, "DiscountedUcb: initial_pulls >= 1");
}

double DiscountedUcb::Index(int arm) const {
  const double weight = stats_.weight(arm);
  if (weight <= 0) return std::numeric_limits<double>::infinity();
  const double total = stats_.total_weight();
  const double exploration = 2.0 * std::sqrt(options_.xi * std::log(std::max(total, 1.0)) / weight);
  if (max_reward() <= 0) return exploration;
  return stats_.reward(arm) / weight / max_reward() + exploration;
}

int DiscountedUcb::ChooseActive() {
  if (const int arm = RoundRobinBelow(options_.initial_pulls); arm >= 0) return arm;
  return ArgMaxActive([&](int arm) { return Index(arm); });
}

void DiscountedUcb::OnObserve(int arm, double reward) { stats_.Add(arm, reward); }

}  // namespace crawler::bandit
