#include "lib/json/json_string.h"

#include "gtest/gtest.h"

namespace crawler::json {
namespace {

// RFC 8259 §7: quotation mark, reverse solidus and control characters must be escaped.
TEST(Rfc8259_7_Strings, EscapesWhatMustBeEscaped) {
  struct Case {
    std::string in;
    const char* want;
  };
  const Case cases[] = {
      {"plain", "\"plain\""},
      {"a\"b\\c", "\"a\\\"b\\\\c\""},
      {"tab\tnl\ncr\r", "\"tab\\tnl\\ncr\\r\""},
      {std::string("\x01\x1f\x7f", 3), "\"\\u0001\\u001f\\u007f\""},
      {std::string("nul\0x", 5), "\"nul\\u0000x\""},
      {"h\xC3\xA9llo \xE2\x98\x83", "\"h\xC3\xA9llo \xE2\x98\x83\""},  // UTF-8 as is
      {"", "\"\""},
  };
  for (const Case& c : cases) EXPECT_EQ(JsonString(c.in), c.want) << c.in;
}

}  // namespace
}  // namespace crawler::json
