#include "lib/recrawl/policy_factory.h"

#include <array>
#include <string>

#include "absl/status/status.h"
#include "lib/recrawl/uniform_policy.h"

namespace crawler::recrawl {
namespace {

constexpr std::array<std::string_view, 9> kNames = {
    "optimal", "uniform", "proportional", "fixed", "nutch",
    "stormcrawler", "step", "bayes-published", "bayes-corrected"};

}  // namespace

absl::Span<const std::string_view> RevisitPolicyNames() { return kNames; }

absl::StatusOr<std::unique_ptr<RevisitPolicy>> MakeRevisitPolicy(std::string_view name,
                                                                 const PolicyOptions& options) {
  if (name == "optimal") return std::make_unique<OptimalPolicy>(options.optimal);
  if (name == "uniform") return std::make_unique<UniformPolicy>();
  if (name == "proportional") return std::make_unique<ProportionalPolicy>(options.proportional);
  if (name == "fixed") return std::make_unique<FixedIntervalPolicy>(options.fixed);
  if (name == "nutch") return std::make_unique<NutchAdaptiveSchedule>(options.nutch);
  if (name == "stormcrawler") {
    return std::make_unique<StormCrawlerAdaptiveScheduler>(options.stormcrawler);
  }
  if (name == "step") return std::make_unique<SamplingStepRule>(options.step);
  if (name == "bayes-published" || name == "bayes-corrected") {
    BayesClassifierOptions bayes = options.bayes;
    bayes.update = name == "bayes-published" ? BayesClassifierOptions::Update::kPublished
                                             : BayesClassifierOptions::Update::kCorrected;
    return std::make_unique<BayesChangeClassifier>(bayes);
  }
  // absl::string_view is not std::string_view in Debian's abseil build: spell the join out.
  std::string message = "unknown revisit policy \"" + std::string(name) + "\"; known:";
  for (std::string_view known : kNames) message += " " + std::string(known);
  return absl::InvalidArgumentError(message);
}

}  // namespace crawler::recrawl
