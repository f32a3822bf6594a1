// UniformPolicy: every page is re-visited at the same frequency, budget / pages per day (the
// "uniform allocation" of Cho & Garcia-Molina, TODS 2003, §5). Served in order of due time with
// equal intervals, it is their fixed-order round robin. Uses no PolicyState field.
//
// Thread-safety: see revisit_policy.h.
#ifndef CRAWLER_LIB_RECRAWL_UNIFORM_POLICY_H_
#define CRAWLER_LIB_RECRAWL_UNIFORM_POLICY_H_

#include "lib/recrawl/revisit_policy.h"

namespace crawler::recrawl {

class UniformPolicy final : public RevisitPolicy {
 public:
  std::string_view name() const override { return "uniform"; }
  void Retune(const FleetSummary& fleet) override;
  // Before the first Retune() every page is due daily.
  Decision Decide(const PageView& page, const PolicyState& previous) const override;

 private:
  double interval_days_ = 1.0;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_UNIFORM_POLICY_H_
