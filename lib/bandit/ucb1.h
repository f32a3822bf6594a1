// Ucb1: rule R3 of BeeBot (Pechnikov & Chernobrovkin 2012, see explore_then_commit.h), UCB1 of
// Auer, Cesa-Bianchi & Fischer ("Finite-time analysis of the multiarmed bandit problem", Machine
// Learning 47, 2002) with rewards scaled into [0, 1] by the largest reward seen.
//
// As published: fetch m pages of every site, then each step pull
//
//     argmax_i  mean(i) / X_max + sqrt(2 ln(n) / t(i))
//
// where X_max is the largest single reward observed so far, n the pages fetched in all (retired
// sites included) and t(i) the pages of site i. While X_max = 0 (no link seen yet) the first term
// is dropped and the exploration term alone decides, i.e. the least-pulled site is chosen.
#ifndef CRAWLER_LIB_BANDIT_UCB1_H_
#define CRAWLER_LIB_BANDIT_UCB1_H_

#include <cstdint>

#include "lib/bandit/policy.h"

namespace crawler::bandit {

struct Ucb1Options {
  // m: pages of every site fetched before the index is used. >= 1 (the index needs t(i) > 0).
  int64_t initial_pulls = 1;

  friend bool operator==(const Ucb1Options&, const Ucb1Options&) = default;
};

class Ucb1 final : public Policy {
 public:
  // REQUIRES: options.initial_pulls >= 1.
  Ucb1(int arms, Ucb1Options options);
  std::string_view name() const override { return "r3"; }

  // The index of an arm with t(i) >= 1 under the current statistics (for tests and reports).
  double Index(int arm) const;

 protected:
  int ChooseActive() override;

 private:
  const Ucb1Options options_;
};

}  // namespace crawler::bandit

#endif  // CRAWLER_LIB_BANDIT_UCB1_H_
