// UTF-8 (RFC 3629; the decoder follows the WHATWG Encoding Standard's UTF-8 decoder, §8.1.1):
// encoding one code point and decoding one sequence. Well-formed means no overlong forms, no
// surrogates (U+D800..U+DFFF) and nothing past U+10FFFF.
//
// Inline: the text normaliser and the charset decoder call these once per non-ASCII character.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_ENCODING_UTF8_H_
#define CRAWLER_LIB_ENCODING_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace crawler::encoding {

inline constexpr char32_t kMaxCodePoint = 0x10FFFF;
inline constexpr char32_t kReplacementCharacter = 0xFFFD;
// The longest UTF-8 sequence.
inline constexpr size_t kMaxUtf8Bytes = 4;

constexpr bool IsSurrogate(char32_t cp) { return cp >= 0xD800 && cp <= 0xDFFF; }
// A code point UTF-8 can carry: at most U+10FFFF and not a surrogate.
constexpr bool IsScalarValue(char32_t cp) { return cp <= kMaxCodePoint && !IsSurrogate(cp); }

// Writes the UTF-8 form of `cp` to out[0..3] and returns its length (1 to 4). A value that is
// not a scalar value is written as U+FFFD, so the output is always well-formed.
constexpr size_t EncodeUtf8(char32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (!IsScalarValue(cp)) cp = kReplacementCharacter;
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

// Appends the UTF-8 form of `cp` to `out` (U+FFFD if `cp` is not a scalar value).
inline void AppendUtf8(char32_t cp, std::string& out) {
  char bytes[kMaxUtf8Bytes];
  out.append(bytes, EncodeUtf8(cp, bytes));
}

struct Utf8Sequence {
  char32_t code_point = kReplacementCharacter;  // the decoded scalar value when `valid`
  // Bytes consumed: when valid, the sequence's 1 to 4 bytes. When not, its "maximal subpart"
  // (1 to 3): the longest prefix that could have begun a well-formed sequence, which the
  // Encoding Standard replaces with one U+FFFD.
  size_t length = 1;
  bool valid = false;
};

// Decodes the UTF-8 sequence at the front of `s`. REQUIRES: !s.empty().
constexpr Utf8Sequence DecodeUtf8Sequence(std::string_view s) {
  const auto b0 = static_cast<uint8_t>(s[0]);
  if (b0 < 0x80) return {.code_point = b0, .length = 1, .valid = true};
  size_t needed = 0;
  char32_t cp = 0;
  // The bounds of the next byte exclude overlong forms, surrogates and values past U+10FFFF
  // (Encoding Standard, "UTF-8 lower boundary" and "upper boundary").
  uint8_t lower = 0x80;
  uint8_t upper = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    needed = 1;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    needed = 2;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lower = 0xA0;
    if (b0 == 0xED) upper = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    needed = 3;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lower = 0x90;
    if (b0 == 0xF4) upper = 0x8F;
  } else {
    return {.length = 1};
  }
  for (size_t i = 1; i <= needed; ++i) {
    if (i >= s.size()) return {.length = i};
    const auto b = static_cast<uint8_t>(s[i]);
    if (b < lower || b > upper) return {.length = i};
    lower = 0x80;
    upper = 0xBF;
    cp = (cp << 6) | (b & 0x3F);
  }
  return {.code_point = cp, .length = needed + 1, .valid = true};
}

// The length of the longest prefix of `s` of at most `max` bytes that does not end inside a
// multi-byte sequence: where to cut a text for a bounded message without leaving half a
// character. All of `s` when it fits.
constexpr size_t Utf8PrefixLength(std::string_view s, size_t max) {
  if (s.size() <= max) return s.size();
  size_t n = max;
  while (n > 0 && (static_cast<uint8_t>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

// `text`, or, when it is longer than `shown` bytes, its start (never half a character), "..."
// and its length: how an error or a report names an untrusted string that may be megabytes
// (a pasted regex, a seed of 70 KB) and still shows what follows it.
inline std::string Abbreviated(std::string_view text, size_t shown) {
  if (text.size() <= shown) return std::string(text);
  std::string out(text.substr(0, Utf8PrefixLength(text, shown)));
  out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace crawler::encoding

#endif  // CRAWLER_LIB_ENCODING_UTF8_H_
