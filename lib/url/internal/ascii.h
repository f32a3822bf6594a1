// ASCII helpers over std::string_view for lib/url. Debian's abseil is built with its own
// absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW=0), so absl's string functions do not take
// std::string_view; these cover what the URL code needs, and AsAbsl() bridges to absl::StrCat.
//
// Internal to lib/url; pure functions, thread-safe.
#ifndef CRAWLER_LIB_URL_INTERNAL_ASCII_H_
#define CRAWLER_LIB_URL_INTERNAL_ASCII_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace crawler::url::internal {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

inline char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c;
}

inline bool IsAsciiAlpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAsciiDigit(int c) { return c >= '0' && c <= '9'; }
inline bool IsAsciiAlphanumeric(int c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

inline bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

}  // namespace crawler::url::internal

#endif  // CRAWLER_LIB_URL_INTERNAL_ASCII_H_
