// JSON string literals (RFC 8259 §7): written for the JSON the tools print (crawl summaries,
// `crawler inspect links`), read for the JSON they parse (CDXJ and page-list lines, test data).
// Written: input is UTF-8, which JSON carries as is; quotes, backslashes and control characters
// (and DEL) are escaped. Read: unescaped to UTF-8, \uXXXX surrogate pairs joined, a lone
// surrogate becoming U+FFFD (as a browser's USVString conversion does).
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_JSON_JSON_STRING_H_
#define CRAWLER_LIB_JSON_JSON_STRING_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace crawler::json {

// Appends `s` as a quoted JSON string to `out`.
void AppendJsonString(std::string_view s, std::string& out);

// `s` as a quoted JSON string.
std::string JsonString(std::string_view s);

// Reads the string literal whose opening quote is text[pos], appending its value to `out`.
// True with pos just past the closing quote; false if it is malformed (unterminated, a bad
// escape, a raw control character), with pos somewhere inside it.
bool ReadJsonString(std::string_view text, size_t& pos, std::string& out);

}  // namespace crawler::json

#endif  // CRAWLER_LIB_JSON_JSON_STRING_H_
