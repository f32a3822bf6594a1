// W3C Datetime (https://www.w3.org/TR/NOTE-datetime), the format of a sitemap's <lastmod>,
// and the RFC 3339 form the crawler prints it in.
//
// The six profiles of the note are accepted:
//   YYYY                          1997
//   YYYY-MM                       1997-07
//   YYYY-MM-DD                    1997-07-16
//   YYYY-MM-DDThh:mmTZD           1997-07-16T19:20+01:00
//   YYYY-MM-DDThh:mm:ssTZD        1997-07-16T19:20:30+01:00
//   YYYY-MM-DDThh:mm:ss.sTZD      1997-07-16T19:20:30.45+01:00   (one or more digits)
// where TZD is "Z", "+hh:mm" or "-hh:mm". Dates without a time stand for the first instant of
// the period in UTC (the note leaves the zone of a date open; UTC makes results reproducible).
//
// Deviations, each seen in real sitemaps and each unambiguous:
//   - a missing TZD after a time means UTC;
//   - TZD may be "+hhmm" (no colon), and "Z"/"T" may be lower case;
//   - a single space may stand for the "T".
// Seconds of 60 (leap seconds) are accepted and roll over into the next minute. Fraction digits
// beyond nanoseconds are ignored. Nothing else is accepted: no surrounding whitespace, no
// trailing text.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_SITEMAP_W3C_DATETIME_H_
#define CRAWLER_LIB_SITEMAP_W3C_DATETIME_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler::sitemap {

// kInvalidArgument, with the offending text quoted, if `text` is not a W3C Datetime.
absl::StatusOr<absl::Time> ParseW3cDatetime(std::string_view text);

// RFC 3339 in UTC with a "Z": "2024-01-31T00:00:00Z", and fractional seconds only when they are
// not zero ("2024-01-31T10:00:00.25Z").
std::string FormatRfc3339Utc(absl::Time time);

}  // namespace crawler::sitemap

#endif  // CRAWLER_LIB_SITEMAP_W3C_DATETIME_H_
