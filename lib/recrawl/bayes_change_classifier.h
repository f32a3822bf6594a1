// BayesChangeClassifier: the Bayesian change-category classifier of a 2006 thesis on adaptive
// refresh in the FAST crawler (docs/architecture.md §7). Each page belongs to one of three
// categories, "changes every 1, 3 or 7 days", prior 1/3 each; the page is re-visited at the
// interval of its most probable category. Two update rules:
//
//   kPublished  as published: the posterior is updated only when a visit detects a change. Since
//               a change is likelier under a faster category, every update moves probability
//               towards "daily", and nothing ever moves it back: every page drifts to daily.
//   kCorrected  the same update on every visit, so an unchanged visit (likelier under a slower
//               category) counts as evidence too.
//
// The thesis itself was not available to us. We use the Poisson likelihood of what a visit after
// t days sees under category d: changed with probability 1 - e^(-t/d), unchanged with e^(-t/d);
// docs/recrawl.md says so. Ties between categories go to the shorter interval. Uses
// PolicyState::category_probability.
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_BAYES_CHANGE_CLASSIFIER_H_
#define CRAWLER_LIB_RECRAWL_BAYES_CHANGE_CLASSIFIER_H_

#include <array>

#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

struct BayesClassifierOptions {
  enum class Update { kPublished, kCorrected };
  Update update = Update::kCorrected;
  // Mean change interval of each category, days, ascending.
  std::array<double, 3> category_days = {1.0, 3.0, 7.0};
  std::array<double, 3> prior = {1.0 / 3, 1.0 / 3, 1.0 / 3};

  friend bool operator==(const BayesClassifierOptions&, const BayesClassifierOptions&) = default;
};

class BayesChangeClassifier final : public RevisitPolicy {
 public:
  explicit BayesChangeClassifier(BayesClassifierOptions options = {});
  std::string_view name() const override;
  Decision Decide(const PageView& page, const PolicyState& previous) const override;

  // The posterior after one observation, from `probability` (normalised). Exposed for tests.
  std::array<double, 3> Update(const std::array<double, 3>& probability, double interval_days,
                               bool changed) const;
  // Index of the most probable category (ties to the shorter interval).
  static int MostProbable(const std::array<float, 3>& probability);

 private:
  BayesClassifierOptions options_;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_BAYES_CHANGE_CLASSIFIER_H_
