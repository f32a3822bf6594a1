// ASCII character classes and case-insensitive comparison over std::string_view, as the
// WHATWG Infra Standard defines them (https://infra.spec.whatwg.org/): "ASCII whitespace" is
// TAB, LF, FF, CR and SPACE; "ASCII case-insensitive" folds A-Z only, never a non-ASCII byte.
// absl/strings/ascii.h and match.h do the same for absl::string_view, which in Debian's Abseil
// is not std::string_view (see absl_view.h).
//
// The predicates take an int so that a char, an unsigned char and a reader's end-of-input
// value (-1) can all be asked.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_ENCODING_ASCII_H_
#define CRAWLER_LIB_ENCODING_ASCII_H_

#include <string>
#include <string_view>

namespace crawler::encoding {

constexpr bool IsAsciiWhitespace(int c) {
  return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ';
}
constexpr bool IsAsciiAlpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool IsAsciiDigit(int c) { return c >= '0' && c <= '9'; }
constexpr bool IsAsciiAlnum(int c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }

constexpr char ToAsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c;
}

// `s` with A-Z lowered.
std::string ToAsciiLower(std::string_view s);

constexpr bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ToAsciiLower(a[i]) != ToAsciiLower(b[i])) return false;
  }
  return true;
}

constexpr bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

// `s` without leading and trailing ASCII whitespace.
constexpr std::string_view TrimAsciiWhitespace(std::string_view s) {
  while (!s.empty() && IsAsciiWhitespace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiWhitespace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace crawler::encoding

#endif  // CRAWLER_LIB_ENCODING_ASCII_H_
