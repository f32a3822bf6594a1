#include "lib/recrawl/page_state.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/varint.h"
#include "lib/recrawl/internal/wire.h"

namespace crawler::recrawl {
namespace {

absl::Status Corrupt(std::string_view what) {
  return absl::DataLossError(absl::StrCat("page revisit state: ", std::string(what)));
}

}  // namespace

std::string PageRevisitState::Encode() const {
  const std::string encoded_history = history.Encode();
  std::string out;
  out.reserve(1 + 2 + encoded_history.size() + 3 * 8 + 3 * 4);
  out.push_back(static_cast<char>(kFormatVersion));
  encoding::AppendVarint64(encoded_history.size(), out);
  out += encoded_history;
  internal::PutNumber(policy.interval_days, out);
  internal::PutNumber(policy.reference_days, out);
  internal::PutNumber(policy.rate_per_day, out);
  for (float p : policy.category_probability) internal::PutNumber(p, out);
  return out;
}

absl::StatusOr<PageRevisitState> PageRevisitState::Decode(std::string_view bytes) {
  if (bytes.empty()) return Corrupt("empty");
  if (static_cast<uint8_t>(bytes.front()) != kFormatVersion) {
    return absl::UnimplementedError(absl::StrCat("page revisit state: unknown format version ",
                                                 static_cast<int>(bytes.front())));
  }
  internal::WireReader reader(bytes.substr(1));
  uint64_t history_size = 0;
  std::string_view history_bytes;
  if (!reader.Varint(history_size) || !reader.Bytes(history_size, history_bytes)) {
    return Corrupt("truncated visit history");
  }
  absl::StatusOr<VisitHistory> history = VisitHistory::Decode(history_bytes);
  if (!history.ok()) return history.status();
  PageRevisitState state{.history = *std::move(history)};
  if (!reader.Number(state.policy.interval_days) || !reader.Number(state.policy.reference_days) ||
      !reader.Number(state.policy.rate_per_day)) {
    return Corrupt("truncated or invalid policy numbers");
  }
  for (float& p : state.policy.category_probability) {
    if (!reader.Number(p)) return Corrupt("truncated or invalid category probability");
  }
  if (!reader.done()) return Corrupt("trailing bytes");
  return state;
}

}  // namespace crawler::recrawl
