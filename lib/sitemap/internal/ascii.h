// String helpers over std::string_view for lib/sitemap's implementation. Debian's abseil is built
// with its own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW=0), so absl's string functions
// do not take std::string_view; AsAbsl() bridges to them.
#ifndef CRAWLER_LIB_SITEMAP_INTERNAL_ASCII_H_
#define CRAWLER_LIB_SITEMAP_INTERNAL_ASCII_H_

#include <cstddef>
#include <string_view>

#include "absl/strings/string_view.h"

namespace crawler::sitemap::internal {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

inline char AsciiToLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiToLower(a[i]) != AsciiToLower(b[i])) return false;
  }
  return true;
}

}  // namespace crawler::sitemap::internal

#endif  // CRAWLER_LIB_SITEMAP_INTERNAL_ASCII_H_
