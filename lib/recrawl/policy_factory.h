// MakeRevisitPolicy: builds a RevisitPolicy from its name, for configuration files and the
// simulator. Names: optimal, uniform, proportional, fixed, nutch, stormcrawler, step,
// bayes-published, bayes-corrected ("oracle" is not a policy but a run of "optimal" with known
// rates; see PageView::known_rate_per_day).
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_RECRAWL_POLICY_FACTORY_H_
#define CRAWLER_LIB_RECRAWL_POLICY_FACTORY_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lib/recrawl/bayes_change_classifier.h"
#include "lib/recrawl/fixed_interval_policy.h"
#include "lib/recrawl/nutch_adaptive_schedule.h"
#include "lib/recrawl/optimal_policy.h"
#include "lib/recrawl/proportional_policy.h"
#include "lib/recrawl/revisit_policy.h"
#include "lib/recrawl/sampling_step_rule.h"
#include "lib/recrawl/stormcrawler_adaptive_scheduler.h"

namespace crawler::recrawl {

// Options of every policy; each policy reads its own member. BayesClassifierOptions::update is
// set from the name.
struct PolicyOptions {
  FixedIntervalOptions fixed;
  ProportionalOptions proportional;
  OptimalPolicyOptions optimal;
  NutchAdaptiveOptions nutch;
  StormCrawlerAdaptiveOptions stormcrawler;
  SamplingStepRuleOptions step;
  BayesClassifierOptions bayes;

  friend bool operator==(const PolicyOptions&, const PolicyOptions&) = default;
};

// kInvalidArgument for an unknown name.
absl::StatusOr<std::unique_ptr<RevisitPolicy>> MakeRevisitPolicy(std::string_view name,
                                                                 const PolicyOptions& options);

// Every name MakeRevisitPolicy() accepts, in a stable order.
absl::Span<const std::string_view> RevisitPolicyNames();

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_POLICY_FACTORY_H_
