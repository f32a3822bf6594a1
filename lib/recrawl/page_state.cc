#include "lib/recrawl/page_state.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::recrawl {
namespace {

static_assert(std::endian::native == std::endian::little,
              "PageRevisitState encodes numbers little-endian by copying their bytes");

template <typename T>
void PutNumber(T value, std::string& out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

absl::Status Corrupt(std::string_view what) {
  return absl::DataLossError(absl::StrCat("page revisit state: ", std::string(what)));
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}

  bool Varint(uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64 && !rest_.empty(); shift += 7) {
      const auto byte = static_cast<uint8_t>(rest_.front());
      rest_.remove_prefix(1);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool Bytes(size_t n, std::string_view& out) {
    if (rest_.size() < n) return false;
    out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }
  template <typename T>
  bool Number(T& value) {
    std::string_view bytes;
    if (!Bytes(sizeof(T), bytes)) return false;
    std::memcpy(&value, bytes.data(), sizeof(T));
    return std::isfinite(value) && value >= 0;
  }
  bool done() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

}  // namespace

std::string PageRevisitState::Encode() const {
  const std::string encoded_history = history.Encode();
  std::string out;
  out.reserve(1 + 2 + encoded_history.size() + 3 * 8 + 3 * 4);
  out.push_back(static_cast<char>(kFormatVersion));
  for (uint64_t n = encoded_history.size();; n >>= 7) {
    if (n < 0x80) {
      out.push_back(static_cast<char>(n));
      break;
    }
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
  }
  out += encoded_history;
  PutNumber(policy.interval_days, out);
  PutNumber(policy.reference_days, out);
  PutNumber(policy.rate_per_day, out);
  for (float p : policy.category_probability) PutNumber(p, out);
  return out;
}

absl::StatusOr<PageRevisitState> PageRevisitState::Decode(std::string_view bytes) {
  if (bytes.empty()) return Corrupt("empty");
  if (static_cast<uint8_t>(bytes.front()) != kFormatVersion) {
    return absl::UnimplementedError(absl::StrCat("page revisit state: unknown format version ",
                                                 static_cast<int>(bytes.front())));
  }
  Reader reader(bytes.substr(1));
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
