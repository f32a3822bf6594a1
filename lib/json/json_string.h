// JSON string literals (RFC 8259 §7) for the JSON the tools print: crawl summaries and
// `crawler inspect links`. Input is UTF-8, which JSON carries as is; quotes, backslashes and
// control characters (and DEL) are escaped.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_JSON_JSON_STRING_H_
#define CRAWLER_LIB_JSON_JSON_STRING_H_

#include <string>
#include <string_view>

namespace crawler::json {

// Appends `s` as a quoted JSON string to `out`.
void AppendJsonString(std::string_view s, std::string& out);

// `s` as a quoted JSON string.
std::string JsonString(std::string_view s);

}  // namespace crawler::json

#endif  // CRAWLER_LIB_JSON_JSON_STRING_H_
