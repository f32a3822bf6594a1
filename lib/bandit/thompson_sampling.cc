#include "lib/bandit/thompson_sampling.h"

#include <utility>

namespace crawler::bandit {

ThompsonSampling::ThompsonSampling(int arms, ThompsonSamplingOptions options, Random random)
    : Policy(arms),
      options_(options),
      random_(std::move(random)),
      stats_(arms, options.discount, options.discount_mode) {
  CheckOrDie(options_.prior_shape > 0 && options_.prior_rate > 0,
             "ThompsonSampling: prior_shape > 0 and prior_rate > 0");
  CheckOrDie(options_.reward_scale > 0, "ThompsonSampling: reward_scale > 0");
  CheckOrDie(options_.initial_pulls >= 0, "ThompsonSampling: initial_pulls >= 0");
}

std::string_view ThompsonSampling::name() const {
  if (options_.discount >= 1) return "thompson";
  return options_.discount_mode == DiscountMode::kGlobal ? "d-thompson" : "rested-thompson";
}

int ThompsonSampling::ChooseActive() {
  if (const int arm = RoundRobinBelow(options_.initial_pulls); arm >= 0) return arm;
  // Arms are sampled in index order, so one seed gives one trace.
  return ArgMaxActive([&](int arm) {
    const double shape = options_.prior_shape + stats_.reward(arm);
    const double rate = options_.prior_rate + stats_.weight(arm);
    return random_.StandardGamma(shape) / rate;
  });
}

void ThompsonSampling::OnObserve(int arm, double reward) {
  stats_.Add(arm, reward / options_.reward_scale);
}

}  // namespace crawler::bandit
