// A minimal JSON reader for test data files (RFC 8259): enough for the web-platform-tests URL
// data, which the project has no JSON library for. Test-only; not for untrusted input at scale
// (nesting is capped, everything is held in memory).
//
// Strings are returned as UTF-8. A lone UTF-16 surrogate escape ("\uD800") becomes U+FFFD, which
// is what a browser's USVString conversion does before the URL parser sees the string.
#ifndef CRAWLER_TESTS_UNIT_URL_JSON_READER_H_
#define CRAWLER_TESTS_UNIT_URL_JSON_READER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler::url::testing {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  // An object's members in document order, as parallel vectors (std::vector may hold the
  // incomplete JsonValue; std::pair may not).
  std::vector<std::string> member_names;
  std::vector<JsonValue> member_values;

  // The member named `key` of an object, or nullptr.
  const JsonValue* Find(std::string_view key) const;
  bool is_null() const { return type == Type::kNull; }
  bool is_string() const { return type == Type::kString; }
};

absl::StatusOr<JsonValue> ParseJson(std::string_view text);

}  // namespace crawler::url::testing

#endif  // CRAWLER_TESTS_UNIT_URL_JSON_READER_H_
