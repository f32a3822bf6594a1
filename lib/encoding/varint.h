// LEB128 varints (7 bits per byte, least significant group first, high bit = "more follows") and
// zigzag signed integers: the number encoding of every on-disk value the project writes
// (lib/recrawl's visit histories, page states and rate histograms; services/frontier's records).
// These functions ARE those formats: a change to what they write changes files on disk.
//
// The decoder accepts exactly what AppendVarint64 writes, so every value has one encoding: at
// most 10 bytes, no bits beyond the 64th, no overlong form (a final group of zero after the first
// byte, e.g. 0x80 0x00 for 0).
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_ENCODING_VARINT_H_
#define CRAWLER_LIB_ENCODING_VARINT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace crawler::encoding {

// The longest encoding of a 64-bit value.
inline constexpr size_t kMaxVarint64Bytes = 10;

// Appends the LEB128 encoding of `value` (1 to 10 bytes) to `out`.
inline void AppendVarint64(uint64_t value, std::string& out) {
  for (; value >= 0x80; value >>= 7) out.push_back(static_cast<char>((value & 0x7f) | 0x80));
  out.push_back(static_cast<char>(value));
}

enum class VarintStatus : uint8_t {
  kOk,
  kTruncated,  // the input ended inside the varint
  kOverflow,   // more than 64 bits, or more than 10 bytes
  kOverlong,   // a final group of zero after the first byte: not the canonical encoding
};

struct DecodedVarint {
  VarintStatus status = VarintStatus::kTruncated;
  uint64_t value = 0;  // valid when status == kOk
  size_t length = 0;   // bytes the varint took, when status == kOk
};

// Decodes the varint at the front of `in`. Reads at most kMaxVarint64Bytes bytes of it.
DecodedVarint DecodeVarint64(std::string_view in);

// Decodes the varint at the front of `in` and removes it from `in`. Returns nullopt (and leaves
// `in` as it was) unless DecodeVarint64 reports kOk: for readers that report any failure as one
// "corrupt record" error.
std::optional<uint64_t> ConsumeVarint64(std::string_view& in);

// Zigzag maps signed to unsigned so that small magnitudes stay short: 0, -1, 1, -2 ... become
// 0, 1, 2, 3 ...
constexpr uint64_t ZigZagEncode(int64_t value) {
  return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}
constexpr int64_t ZigZagDecode(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

}  // namespace crawler::encoding

#endif  // CRAWLER_LIB_ENCODING_VARINT_H_
