// PageRevisitState: everything the re-visit machinery keeps for one URL between visits: its
// VisitHistory (the estimators' evidence) and the policy's PolicyState (interval, rate estimate,
// category probabilities). The frontier stores it, as Encode() returns it, in the URL record
// (UrlRecord::visit_history), so it must stay small: ~30 bytes plus the history (~100-200 bytes
// at the default 32 visits).
//
// Layout, version 1 (never change it; add a version instead):
//   byte 0   format version, 1
//   varint   length of the VisitHistory encoding, then those bytes (visit_history.h)
//   8 bytes  PolicyState::interval_days   IEEE-754 binary64, little-endian
//   8 bytes  PolicyState::reference_days  likewise
//   8 bytes  PolicyState::rate_per_day    likewise
//   3 x 4    PolicyState::category_probability, IEEE-754 binary32, little-endian
// Decode() rejects an unknown version (kUnimplemented) and truncated, trailing or out-of-range
// bytes (non-finite or negative numbers; kDataLoss).
//
// Thread-safety: a value type.
#ifndef CRAWLER_LIB_RECRAWL_PAGE_STATE_H_
#define CRAWLER_LIB_RECRAWL_PAGE_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "lib/recrawl/revisit_policy.h"
#include "lib/recrawl/visit_history.h"

namespace crawler::recrawl {

struct PageRevisitState {
  static constexpr uint8_t kFormatVersion = 1;

  VisitHistory history;
  PolicyState policy;

  std::string Encode() const;
  static absl::StatusOr<PageRevisitState> Decode(std::string_view bytes);
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_PAGE_STATE_H_
