// Visit histories the recrawl tests build by hand.
#ifndef CRAWLER_TESTS_UNIT_RECRAWL_TEST_HISTORIES_H_
#define CRAWLER_TESTS_UNIT_RECRAWL_TEST_HISTORIES_H_

#include <cstdint>

#include "lib/recrawl/visit_history.h"

namespace crawler::recrawl::testing_histories {

inline constexpr uint32_t kDay = 86400;

// A history of `visits` visits `interval_days` apart, the first `changed` of which saw a change.
inline VisitHistory Regular(int visits, int changed, double interval_days) {
  VisitHistory history(VisitHistory::kMaxCapacity);
  for (int i = 0; i < visits; ++i) {
    history.Append(Visit{static_cast<uint32_t>(interval_days * kDay), i < changed, false, 0});
  }
  return history;
}

}  // namespace crawler::recrawl::testing_histories

#endif  // CRAWLER_TESTS_UNIT_RECRAWL_TEST_HISTORIES_H_
