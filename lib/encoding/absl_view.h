// AsAbsl(): a std::string_view as an absl::string_view. Debian's Abseil is built with its own
// string_view type (ABSL_OPTION_USE_STD_STRING_VIEW=0), so absl's string functions (StrCat,
// SimpleAtoi, StripAsciiWhitespace ...) do not take std::string_view directly.
//
// Thread-safety: pure function.
#ifndef CRAWLER_LIB_ENCODING_ABSL_VIEW_H_
#define CRAWLER_LIB_ENCODING_ABSL_VIEW_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace crawler::encoding {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

}  // namespace crawler::encoding

#endif  // CRAWLER_LIB_ENCODING_ABSL_VIEW_H_
