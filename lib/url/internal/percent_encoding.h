// Percent-encoding and -decoding as the WHATWG URL Standard defines them (section 1.3,
// "Percent-encoded bytes"): the nested percent-encode sets and the byte-wise decoder.
//
// Internal to lib/url: the parser and the canonicaliser share these tables. Everything here is a
// pure function over bytes; thread-safe.
#ifndef CRAWLER_LIB_URL_INTERNAL_PERCENT_ENCODING_H_
#define CRAWLER_LIB_URL_INTERNAL_PERCENT_ENCODING_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/encoding/hex.h"

namespace crawler::url::internal {

// The standard's percent-encode sets. Each is a superset of the previous one in this list except
// kSpecialQuery, which is kQuery plus U+0027 (').
enum class EncodeSet : uint8_t {
  kC0Control = 1 << 0,     // C0 controls and every byte > 0x7E
  kFragment = 1 << 1,      // C0 control set + space " < > `
  kQuery = 1 << 2,         // C0 control set + space " # < >
  kSpecialQuery = 1 << 3,  // query set + '
  kPath = 1 << 4,          // query set + ? ` { }
  kUserinfo = 1 << 5,      // path set + / : ; = @ [ \ ] ^ |
};

namespace detail {

constexpr std::array<uint8_t, 256> MakeEncodeTable() {
  std::array<uint8_t, 256> t{};
  auto add = [&t](std::string_view chars, uint8_t sets) {
    for (char c : chars) t[static_cast<unsigned char>(c)] |= sets;
  };
  constexpr uint8_t kAll = 0x3F;
  for (int c = 0; c < 0x20; ++c) t[c] = kAll;
  for (int c = 0x7F; c < 0x100; ++c) t[c] = kAll;
  constexpr auto bits = [](auto... sets) {
    return static_cast<uint8_t>((static_cast<uint8_t>(sets) | ...));
  };
  const uint8_t query_and_up =
      bits(EncodeSet::kQuery, EncodeSet::kSpecialQuery, EncodeSet::kPath, EncodeSet::kUserinfo);
  add(" \"<>", query_and_up | static_cast<uint8_t>(EncodeSet::kFragment));
  add("`",
      static_cast<uint8_t>(EncodeSet::kFragment) | bits(EncodeSet::kPath, EncodeSet::kUserinfo));
  add("#", query_and_up);
  add("'", bits(EncodeSet::kSpecialQuery));
  add("?{}", bits(EncodeSet::kPath, EncodeSet::kUserinfo));
  add("/:;=@[\\]^|", bits(EncodeSet::kUserinfo));
  return t;
}

inline constexpr std::array<uint8_t, 256> kEncodeTable = MakeEncodeTable();

}  // namespace detail

inline bool InEncodeSet(unsigned char c, EncodeSet set) {
  return (detail::kEncodeTable[c] & static_cast<uint8_t>(set)) != 0;
}

// Appends byte `c`, percent-encoded ("%XX", uppercase hex) if it is in `set`.
inline void AppendPercentEncoded(unsigned char c, EncodeSet set, std::string& out) {
  if (InEncodeSet(c, set)) {
    out.push_back('%');
    encoding::AppendHexByte(c, encoding::HexCase::kUpper, out);
  } else {
    out.push_back(static_cast<char>(c));
  }
}

inline void AppendPercentEncoded(std::string_view bytes, EncodeSet set, std::string& out) {
  for (char c : bytes) AppendPercentEncoded(static_cast<unsigned char>(c), set, out);
}

// The standard's "percent-decode": every "%XX" with two hex digits becomes that byte; a '%' not
// followed by two hex digits is kept as it is.
std::string PercentDecode(std::string_view input);

}  // namespace crawler::url::internal

#endif  // CRAWLER_LIB_URL_INTERNAL_PERCENT_ENCODING_H_
