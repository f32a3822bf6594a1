// Hexadecimal digits: the value of one digit, and bytes to and from two digits per byte.
// Decoding accepts either case; encoding writes lower case unless asked (URLs percent-encode
// with upper case, RFC 3986 §2.1; digests and ids are written in lower case).
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_ENCODING_HEX_H_
#define CRAWLER_LIB_ENCODING_HEX_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace crawler::encoding {

inline constexpr char kLowerHexDigits[] = "0123456789abcdef";
inline constexpr char kUpperHexDigits[] = "0123456789ABCDEF";

// Value of the ASCII hex digit `c` (0-9, a-f, A-F), or -1 if it is not one.
constexpr int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

enum class HexCase : uint8_t { kLower, kUpper };

// Appends `byte` as two hex digits, most significant first.
inline void AppendHexByte(uint8_t byte, HexCase letter_case, std::string& out) {
  const char* digits = letter_case == HexCase::kUpper ? kUpperHexDigits : kLowerHexDigits;
  const char pair[2] = {digits[byte >> 4], digits[byte & 0xF]};
  out.append(pair, 2);
}

// `bytes` as lower-case hex, two digits per byte.
std::string HexEncode(std::span<const uint8_t> bytes);

// Decodes `hex` (exactly 2 * out.size() digits, either case) into `out`. Returns false, with
// `out` unspecified, if the size does not match or a character is not a hex digit.
bool HexDecode(std::string_view hex, std::span<uint8_t> out);

}  // namespace crawler::encoding

#endif  // CRAWLER_LIB_ENCODING_HEX_H_
