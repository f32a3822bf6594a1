// Byte-level helpers of lib/recrawl's encodings (page_state.h, rate_histogram.h): LEB128 varints
// and non-negative finite IEEE-754 numbers stored little-endian by copying their bytes.
//
// Thread-safety: WireReader is a value over a view; the functions are pure.
#ifndef CRAWLER_LIB_RECRAWL_INTERNAL_WIRE_H_
#define CRAWLER_LIB_RECRAWL_INTERNAL_WIRE_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace crawler::recrawl::internal {

static_assert(std::endian::native == std::endian::little,
              "lib/recrawl encodes numbers little-endian by copying their bytes");

inline void PutVarint(uint64_t value, std::string& out) {
  for (; value >= 0x80; value >>= 7) out.push_back(static_cast<char>((value & 0x7f) | 0x80));
  out.push_back(static_cast<char>(value));
}

template <typename T>
void PutNumber(T value, std::string& out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// Reads what the Put functions wrote; every method returns false (and the caller reports
// corruption) on truncated input or, for numbers, a negative or non-finite value.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : rest_(bytes) {}

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

}  // namespace crawler::recrawl::internal

#endif  // CRAWLER_LIB_RECRAWL_INTERNAL_WIRE_H_
