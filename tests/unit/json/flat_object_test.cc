// ParseFlatObject (flat_object.h): RFC 8259 objects of scalar members, as CDXJ and WACZ page
// lines carry them.
#include "lib/json/flat_object.h"

#include "gtest/gtest.h"

namespace crawler::json {
namespace {

TEST(FlatObjectTest, ReadsScalarsInOrder) {
  absl::StatusOr<FlatObject> o = ParseFlatObject(
      R"( {"url": "http://a/", "offset":12, "ok" : true, "none": null, "neg": -1.5e3} )");
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->members.size(), 5u);
  EXPECT_EQ(o->members[0].first, "url");
  EXPECT_EQ(o->Find("url")->text, "http://a/");
  EXPECT_EQ(o->Find("url")->kind, FlatValue::Kind::kString);
  EXPECT_EQ(o->Find("offset")->text, "12");
  EXPECT_EQ(o->Find("offset")->kind, FlatValue::Kind::kNumber);
  EXPECT_EQ(o->Find("ok")->kind, FlatValue::Kind::kBool);
  EXPECT_EQ(o->Find("none")->kind, FlatValue::Kind::kNull);
  EXPECT_EQ(o->Find("neg")->text, "-1.5e3");
  EXPECT_EQ(o->Find("missing"), nullptr);
  EXPECT_TRUE(ParseFlatObject("{}").ok());
}

// RFC 8259 §7: escapes, \u with surrogate pairs; a lone surrogate becomes U+FFFD.
TEST(FlatObjectTest, Rfc8259_7_StringEscapes) {
  absl::StatusOr<FlatObject> o =
      ParseFlatObject(R"({"s": "a\"b\\c\/d\n\t\u00e9\ud83d\ude00\ud800x"})");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->Find("s")->text, "a\"b\\c/d\n\t\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
}

TEST(FlatObjectTest, RefusesNestingAndMalformedInput) {
  for (const char* bad : {R"({"a": {"b": 1}})", R"({"a": [1]})", R"({"a": 1,})", R"({"a" 1})",
                          R"({"a": "unterminated)", R"({"a": "x"} trailing)", R"({'a': 1})",
                          R"({"a": "bad \q escape"})", "", "[]"}) {
    EXPECT_FALSE(ParseFlatObject(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace crawler::json
