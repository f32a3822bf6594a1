// ParseFlatObject: reads one JSON object (RFC 8259) whose values are all scalars -- strings,
// numbers, true, false, null -- as the lines of a CDXJ index and of a WACZ page list carry them.
// Values come back as text: strings unescaped to UTF-8 (\uXXXX surrogate pairs joined; a lone
// surrogate becomes U+FFFD), numbers and literals as written. Nested objects and arrays are
// rejected rather than skipped: no format read with this nests. Work and memory are linear in
// the input.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_JSON_FLAT_OBJECT_H_
#define CRAWLER_LIB_JSON_FLAT_OBJECT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler::json {

struct FlatValue {
  enum class Kind { kString, kNumber, kBool, kNull };
  Kind kind = Kind::kNull;
  std::string text;  // the unescaped string, or the literal as written
};

struct FlatObject {
  std::vector<std::pair<std::string, FlatValue>> members;  // in input order

  // The first member named `name`, or nullptr.
  const FlatValue* Find(std::string_view name) const;
};

// Parses `text`, which must hold exactly one object (whitespace around it allowed).
// kInvalidArgument naming the offset and what was expected.
absl::StatusOr<FlatObject> ParseFlatObject(std::string_view text);

}  // namespace crawler::json

#endif  // CRAWLER_LIB_JSON_FLAT_OBJECT_H_
