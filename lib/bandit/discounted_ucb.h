// DiscountedUcb: discounted UCB (Garivier & Moulines, "On upper-confidence bound policies for
// switching bandit problems", ALT 2011), with rewards scaled by the largest reward seen as in
// BeeBot's R3 (ucb1.h). With discounted statistics N_i, S_i (discounted_stats.h) and
// n(gamma) = sum_i N_i, each step pulls
//
//     argmax_i  (S_i / N_i) / X_max + 2 sqrt(xi ln(n(gamma)) / N_i)
//
// (B = 1 after scaling; the paper's analysis takes xi > 1/2). While X_max = 0 the exploration
// term alone decides, as in R3. An arm with N_i = 0 — never pulled — comes first.
//
// Why: UCB1 (R3) keeps exploring at a rate that grows like ln n; with a discount the evidence of
// a site is at most 1 / (1 - gamma) pulls old, so a site whose link density rises deep in its
// breadth-first order is rediscovered, and one whose links are exhausted is dropped.
#ifndef CRAWLER_LIB_BANDIT_DISCOUNTED_UCB_H_
#define CRAWLER_LIB_BANDIT_DISCOUNTED_UCB_H_

#include <cstdint>

#include "lib/bandit/discounted_stats.h"
#include "lib/bandit/policy.h"

namespace crawler::bandit {

struct DiscountedUcbOptions {
  // gamma in (0, 1]; 1 - gamma of the order of 1 / budget keeps a few hundred pulls of memory.
  double discount = 0.995;
  // xi > 0: the width of the confidence term (Garivier & Moulines use 0.6).
  double xi = 0.6;
  // Pages of every site fetched (round-robin) before the index is used. >= 1.
  int64_t initial_pulls = 1;

  friend bool operator==(const DiscountedUcbOptions&, const DiscountedUcbOptions&) = default;
};

class DiscountedUcb final : public Policy {
 public:
  // REQUIRES: the ranges documented on DiscountedUcbOptions.
  DiscountedUcb(int arms, DiscountedUcbOptions options);
  std::string_view name() const override { return "d-ucb"; }

  double Index(int arm) const;

 protected:
  int ChooseActive() override;
  void OnObserve(int arm, double reward) override;

 private:
  const DiscountedUcbOptions options_;
  DiscountedStats stats_;
};

}  // namespace crawler::bandit

#endif  // CRAWLER_LIB_BANDIT_DISCOUNTED_UCB_H_
