#include "lib/recrawl/bayes_change_classifier.h"

#include <cmath>

namespace crawler::recrawl {

BayesChangeClassifier::BayesChangeClassifier(BayesClassifierOptions options)
    : options_(options) {}

std::string_view BayesChangeClassifier::name() const {
  return options_.update == BayesClassifierOptions::Update::kPublished ? "bayes-published"
                                                                        : "bayes-corrected";
}

std::array<double, 3> BayesChangeClassifier::Update(const std::array<double, 3>& probability,
                                                    double interval_days, bool changed) const {
  std::array<double, 3> posterior{};
  double sum = 0;
  for (int c = 0; c < 3; ++c) {
    const double unchanged = std::exp(-interval_days / options_.category_days[c]);
    posterior[c] = probability[c] * (changed ? 1.0 - unchanged : unchanged);
    sum += posterior[c];
  }
  // An observation impossible under every category (t = 0 with a change) carries no information.
  if (!(sum > 0) || !std::isfinite(sum)) return probability;
  for (double& p : posterior) p /= sum;
  return posterior;
}

int BayesChangeClassifier::MostProbable(const std::array<float, 3>& probability) {
  int best = 0;
  for (int c = 1; c < 3; ++c) {
    if (probability[c] > probability[best]) best = c;
  }
  return best;
}

Decision BayesChangeClassifier::Decide(const PageView& page, const PolicyState& previous) const {
  Decision decision{previous, 0};
  std::array<float, 3>& stored = decision.state.category_probability;
  if (stored[0] + stored[1] + stored[2] <= 0) {
    for (int c = 0; c < 3; ++c) stored[c] = static_cast<float>(options_.prior[c]);
  }
  if (!page.history.empty()) {
    const Visit& latest = page.history.latest();
    if (latest.changed || options_.update == BayesClassifierOptions::Update::kCorrected) {
      const std::array<double, 3> posterior =
          Update({stored[0], stored[1], stored[2]}, latest.interval_days(), latest.changed);
      for (int c = 0; c < 3; ++c) stored[c] = static_cast<float>(posterior[c]);
    }
  }
  decision.state.interval_days = options_.category_days[MostProbable(stored)];
  decision.next_visit_in_days = decision.state.interval_days;
  return decision;
}

}  // namespace crawler::recrawl
