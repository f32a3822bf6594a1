// Byte-level helpers of lib/recrawl's encodings (page_state.h, rate_histogram.h): non-negative
// finite IEEE-754 numbers stored little-endian by copying their bytes, and a reader for them and
// for the LEB128 varints of lib/encoding/varint.h.
//
// Thread-safety: WireReader is a value over a view; the functions are pure.
#ifndef CRAWLER_LIB_RECRAWL_INTERNAL_WIRE_H_
#define CRAWLER_LIB_RECRAWL_INTERNAL_WIRE_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "lib/encoding/varint.h"

namespace crawler::recrawl::internal {

static_assert(std::endian::native == std::endian::little,
              "lib/recrawl encodes numbers little-endian by copying their bytes");

template <typename T>
void PutNumber(T value, std::string& out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// Reads what PutNumber and encoding::AppendVarint64 wrote; every method returns false (and the
// caller reports corruption) on truncated or malformed input or, for numbers, a negative or
// non-finite value.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : rest_(bytes) {}

  bool Varint(uint64_t& value) {
    const std::optional<uint64_t> varint = encoding::ConsumeVarint64(rest_);
    if (!varint) return false;
    value = *varint;
    return true;
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
