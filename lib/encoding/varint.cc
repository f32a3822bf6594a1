#include "lib/encoding/varint.h"

namespace crawler::encoding {

DecodedVarint DecodeVarint64(std::string_view in) {
  uint64_t value = 0;
  for (size_t i = 0; i < kMaxVarint64Bytes; ++i) {
    if (i >= in.size()) return {.status = VarintStatus::kTruncated};
    const auto byte = static_cast<uint8_t>(in[i]);
    // The 10th byte holds bit 63 only.
    if (i == kMaxVarint64Bytes - 1 && byte > 1) return {.status = VarintStatus::kOverflow};
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      if (byte == 0 && i > 0) return {.status = VarintStatus::kOverlong};
      return {.status = VarintStatus::kOk, .value = value, .length = i + 1};
    }
  }
  return {.status = VarintStatus::kOverflow};
}

std::optional<uint64_t> ConsumeVarint64(std::string_view& in) {
  const DecodedVarint decoded = DecodeVarint64(in);
  if (decoded.status != VarintStatus::kOk) return std::nullopt;
  in.remove_prefix(decoded.length);
  return decoded.value;
}

}  // namespace crawler::encoding
