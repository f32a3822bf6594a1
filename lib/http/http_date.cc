#include "lib/http/http_date.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"

namespace crawler::http {

std::optional<absl::Time> ParseHttpDate(std::string_view value) {
  // Debian's abseil is built with its own string_view type (ABSL_OPTION_USE_STD_STRING_VIEW 0).
  const absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()));
  if (trimmed.empty()) return std::nullopt;
  static constexpr const char* kFormats[] = {
      "%a, %d %b %Y %H:%M:%S GMT",  // Sun, 06 Nov 1994 08:49:37 GMT
      "%A, %d-%b-%y %H:%M:%S GMT",  // Sunday, 06-Nov-94 08:49:37 GMT
      "%a %b %e %H:%M:%S %Y",       // Sun Nov  6 08:49:37 1994
  };
  const std::string text(trimmed);
  for (const char* format : kFormats) {
    absl::Time when;
    std::string error;
    if (absl::ParseTime(format, text, absl::UTCTimeZone(), &when, &error)) return when;
  }
  return std::nullopt;
}

}  // namespace crawler::http
