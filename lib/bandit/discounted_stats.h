// DiscountedStats: per-arm reward statistics in which a pull made s steps ago weighs gamma^s
// (Garivier & Moulines, "On upper-confidence bound policies for switching bandit problems",
// ALT 2011; Raj & Kalyani, "Taming non-stationary bandits: a Bayesian approach", 2017):
//
//     N_i = sum_s gamma^(n-s) [arm s = i],   S_i = sum_s gamma^(n-s) [arm s = i] r_s.
//
// Two clocks for "ago" (DiscountMode):
//   - kGlobal: every pull of any arm discounts all arms (Garivier & Moulines' switching bandit,
//     whose arms change with wall time). An arm left alone drifts back to the prior and is tried
//     again even if nothing about it changed.
//   - kPerArm: only a pull of arm i discounts arm i, so s counts the arm's own later pulls. This
//     fits rested arms, whose reward changes only when they are pulled: a site's link density
//     changes along its own breadth-first order, not while the crawler is fetching elsewhere.
//     An arm's evidence is its last ~1 / (1 - gamma) pages, and it keeps it while idle.
// gamma = 1 gives the plain counts under either clock.
//
// Thread-safety: none.
#ifndef CRAWLER_LIB_BANDIT_DISCOUNTED_STATS_H_
#define CRAWLER_LIB_BANDIT_DISCOUNTED_STATS_H_

#include <vector>

namespace crawler::bandit {

enum class DiscountMode { kGlobal, kPerArm };

class DiscountedStats {
 public:
  // REQUIRES: 0 < discount <= 1.
  DiscountedStats(int arms, double discount, DiscountMode mode = DiscountMode::kGlobal);

  // Discounts by one step (every arm, or `arm` alone under kPerArm), then adds the pull.
  void Add(int arm, double reward);

  double weight(int arm) const { return weight_[arm]; }
  double reward(int arm) const { return reward_[arm]; }
  // n(gamma) = sum of the weights of all arms, retired ones included.
  double total_weight() const { return total_weight_; }

 private:
  const double discount_;
  const DiscountMode mode_;
  std::vector<double> weight_;
  std::vector<double> reward_;
  double total_weight_ = 0;
};

}  // namespace crawler::bandit

#endif  // CRAWLER_LIB_BANDIT_DISCOUNTED_STATS_H_
