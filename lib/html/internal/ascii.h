// ASCII helpers shared by lib/html, over std::string_view (Debian's Abseil has its own
// absl::string_view type, so absl/strings/ascii.h and match.h do not take std::string_view).
// Definitions follow the Infra Standard (https://infra.spec.whatwg.org/): "ASCII whitespace" is
// TAB, LF, FF, CR and SPACE; case-insensitive means ASCII case-insensitive.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_HTML_INTERNAL_ASCII_H_
#define CRAWLER_LIB_HTML_INTERNAL_ASCII_H_

#include <string_view>

namespace crawler::html::internal {

constexpr bool IsAsciiWhitespace(char c) {
  return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ';
}
constexpr bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsAsciiAlnum(char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }
constexpr char ToAsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

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

constexpr std::string_view TrimAsciiWhitespace(std::string_view s) {
  while (!s.empty() && IsAsciiWhitespace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiWhitespace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_ASCII_H_
