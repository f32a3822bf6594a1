#include "lib/bandit/policy_factory.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::bandit {
namespace {

absl::Status ValidateThompson(const ThompsonSamplingOptions& o) {
  if (!(o.prior_shape > 0) || !(o.prior_rate > 0) || !(o.discount > 0) || !(o.discount <= 1) ||
      !(o.reward_scale > 0) || o.initial_pulls < 0) {
    return absl::InvalidArgumentError(
        "thompson: prior_shape, prior_rate, reward_scale > 0, 0 < discount <= 1, "
        "initial_pulls >= 0");
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> PolicyNames() {
  return {"r1", "r2", "r3", "thompson", "d-thompson", "rested-thompson", "d-ucb"};
}

absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(std::string_view name, int arms, int64_t budget,
                                                   const PolicyOptions& options, uint64_t seed) {
  if (arms < 1) return absl::InvalidArgumentError("a policy needs at least one arm");
  if (budget < 1) return absl::InvalidArgumentError("budget must be >= 1");
  if (name == "r1") {
    ExploreThenCommitOptions o = options.r1;
    if (o.explore_pulls == 0) {
      o.explore_pulls = std::max<int64_t>(
          1, std::llround(static_cast<double>(budget) / static_cast<double>(arms)));
    }
    if (o.explore_pulls < 1) return absl::InvalidArgumentError("r1: explore_pulls >= 0");
    return std::make_unique<ExploreThenCommit>(arms, o);
  }
  if (name == "r2") {
    if (options.r2.batch_pulls < 1) return absl::InvalidArgumentError("r2: batch_pulls >= 1");
    return std::make_unique<GreedyMean>(arms, options.r2);
  }
  if (name == "r3") {
    if (options.r3.initial_pulls < 1) return absl::InvalidArgumentError("r3: initial_pulls >= 1");
    return std::make_unique<Ucb1>(arms, options.r3);
  }
  if (name == "thompson" || name == "d-thompson" || name == "rested-thompson") {
    ThompsonSamplingOptions o = name == "thompson"     ? options.thompson
                                : name == "d-thompson" ? options.discounted_thompson
                                                       : options.rested_thompson;
    if (name == "thompson") o.discount = 1.0;
    if (name == "d-thompson") o.discount_mode = DiscountMode::kGlobal;
    if (name == "rested-thompson") o.discount_mode = DiscountMode::kPerArm;
    if (absl::Status s = ValidateThompson(o); !s.ok()) return s;
    return std::make_unique<ThompsonSampling>(arms, o, Random(seed));
  }
  if (name == "d-ucb") {
    const DiscountedUcbOptions& o = options.discounted_ucb;
    if (!(o.discount > 0) || !(o.discount <= 1) || !(o.xi > 0) || o.initial_pulls < 1) {
      return absl::InvalidArgumentError("d-ucb: 0 < discount <= 1, xi > 0, initial_pulls >= 1");
    }
    return std::make_unique<DiscountedUcb>(arms, o);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown bandit policy \"", std::string(name), "\""));
}

}  // namespace crawler::bandit
