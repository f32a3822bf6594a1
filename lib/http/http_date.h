// HTTP-date (RFC 9110 §5.6.7): the IMF-fixdate form senders must use and the two obsolete forms
// (RFC 850, asctime) recipients must accept. Used for Retry-After (lib/politeness) and
// Last-Modified (the re-visit policy's change-rate evidence, services/frontier).
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_HTTP_HTTP_DATE_H_
#define CRAWLER_LIB_HTTP_HTTP_DATE_H_

#include <optional>
#include <string_view>

#include "absl/time/time.h"

namespace crawler::http {

// Parses `value` (surrounding whitespace ignored) as an HTTP-date in UTC; nullopt when it is
// none of the three forms. RFC 850's two-digit years are read as 1969-2068 (absl's rule).
std::optional<absl::Time> ParseHttpDate(std::string_view value);

}  // namespace crawler::http

#endif  // CRAWLER_LIB_HTTP_HTTP_DATE_H_
