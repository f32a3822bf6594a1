// ExploreThenCommit: rule R1 of BeeBot (A. A. Pechnikov, D. I. Chernobrovkin, "Adaptive crawler
// for retrieving and collecting external hyperlinks", Upravlenie bol'shimi sistemami 36, 2012,
// pp. 301-315).
//
// As published: fetch E pages of every site, then spend what is left of the budget on the site
// with the most links so far (the largest total reward, not the largest mean). E = round(N / K)
// by default, so with the default and no site exhausted, the exploration uses the whole budget.
//
// Our reading where the paper is silent:
//   - exploration runs round-robin (each step the active arm with the fewest pulls below E), so a
//     budget smaller than K * E is spread evenly instead of starving the last sites;
//   - in the commit phase the leader is re-evaluated every step; since only the leader's total
//     grows, it stays the leader until it retires, and then the runner-up takes over.
#ifndef CRAWLER_LIB_BANDIT_EXPLORE_THEN_COMMIT_H_
#define CRAWLER_LIB_BANDIT_EXPLORE_THEN_COMMIT_H_

#include <cstdint>

#include "lib/bandit/policy.h"

namespace crawler::bandit {

struct ExploreThenCommitOptions {
  // E: pages of every site fetched before committing. >= 1. MakePolicy() sets it to
  // round(budget / arms) when left at 0.
  int64_t explore_pulls = 0;

  friend bool operator==(const ExploreThenCommitOptions&,
                         const ExploreThenCommitOptions&) = default;
};

class ExploreThenCommit final : public Policy {
 public:
  // REQUIRES: options.explore_pulls >= 1.
  ExploreThenCommit(int arms, ExploreThenCommitOptions options);
  std::string_view name() const override { return "r1"; }

 protected:
  int ChooseActive() override;

 private:
  const ExploreThenCommitOptions options_;
};

}  // namespace crawler::bandit

#endif  // CRAWLER_LIB_BANDIT_EXPLORE_THEN_COMMIT_H_
