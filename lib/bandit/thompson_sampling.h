// ThompsonSampling: Thompson sampling ("On the likelihood that one unknown probability exceeds
// another in view of the evidence of two samples", Biometrika 25, 1933) for count rewards, with a
// Gamma-Poisson model and optional discounting for rewards that drift.
//
// Model: the reward of a pull of arm i (links on the page) is Poisson(lambda_i) with the
// conjugate prior lambda_i ~ Gamma(a0, b0) (shape, rate; prior mean a0 / b0 links per page).
// After discounted statistics S_i (reward) and N_i (pulls) (discounted_stats.h) the posterior is
// Gamma(a0 + S_i, b0 + N_i). Each step draws lambda_i from every active arm's posterior and pulls
// the arm with the largest draw.
//
// Why it suits link harvesting: a site with no link in its first pages keeps a posterior that is
// merely pessimistic, not zero, so it is sampled again now and then (R2 never returns to it);
// a strong site's posterior tightens and it is exploited without UCB1's fixed exploration cost.
// The discount (gamma < 1) bounds the evidence to about 1 / (1 - gamma) pulls, so a site whose
// link density changes along its breadth-first order (exhausted link pools, late link-list pages)
// is re-evaluated instead of being judged on its distant past.
//
// Rewards far from Poisson (a link-list page with hundreds of links) make the posterior too
// confident; reward_scale divides every reward before it enters the model, which widens the
// posterior of heavy-tailed arms (the model then counts "units" of reward_scale links).
#ifndef CRAWLER_LIB_BANDIT_THOMPSON_SAMPLING_H_
#define CRAWLER_LIB_BANDIT_THOMPSON_SAMPLING_H_

#include <cstdint>

#include "lib/bandit/discounted_stats.h"
#include "lib/bandit/policy.h"
#include "lib/bandit/random.h"

namespace crawler::bandit {

struct ThompsonSamplingOptions {
  // a0 > 0 and b0 > 0: the Gamma prior of an arm's rate (in reward units per pull). The default
  // prior mean 1 with one pull's worth of weight is optimistic for sites with 0.02-0.2 links per
  // page, so every site gets a fair first look.
  double prior_shape = 1.0;
  double prior_rate = 1.0;
  // gamma in (0, 1]: weight of a pull per later pull (1: stationary Thompson sampling), counted
  // over all arms or over the arm's own pulls (discounted_stats.h).
  double discount = 1.0;
  DiscountMode discount_mode = DiscountMode::kGlobal;
  // > 0: rewards are divided by this before entering the model.
  double reward_scale = 1.0;
  // Pages of every site fetched (round-robin) before sampling starts. >= 0.
  int64_t initial_pulls = 1;

  friend bool operator==(const ThompsonSamplingOptions&, const ThompsonSamplingOptions&) = default;
};

class ThompsonSampling final : public Policy {
 public:
  // REQUIRES: the ranges documented on ThompsonSamplingOptions.
  ThompsonSampling(int arms, ThompsonSamplingOptions options, Random random);
  // "thompson" undiscounted, "d-thompson" with a global discount, "rested-thompson" per arm.
  std::string_view name() const override;

 protected:
  int ChooseActive() override;
  void OnObserve(int arm, double reward) override;

 private:
  const ThompsonSamplingOptions options_;
  Random random_;
  DiscountedStats stats_;
};

}  // namespace crawler::bandit

#endif  // CRAWLER_LIB_BANDIT_THOMPSON_SAMPLING_H_
