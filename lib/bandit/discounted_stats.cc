#include "lib/bandit/discounted_stats.h"

#include "lib/bandit/policy.h"

namespace crawler::bandit {

DiscountedStats::DiscountedStats(int arms, double discount, DiscountMode mode)
    : discount_(discount), mode_(mode), weight_(arms, 0.0), reward_(arms, 0.0) {
  CheckOrDie(discount > 0 && discount <= 1, "DiscountedStats: 0 < discount <= 1");
}

void DiscountedStats::Add(int arm, double reward) {
  if (mode_ == DiscountMode::kPerArm) {
    total_weight_ -= weight_[arm] * (1.0 - discount_);
    weight_[arm] *= discount_;
    reward_[arm] *= discount_;
  } else if (discount_ < 1) {
    for (size_t i = 0; i < weight_.size(); ++i) {
      weight_[i] *= discount_;
      reward_[i] *= discount_;
    }
    total_weight_ *= discount_;
  }
  total_weight_ += 1.0;
  weight_[arm] += 1.0;
  reward_[arm] += reward;
}

}  // namespace crawler::bandit
