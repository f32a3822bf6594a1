#include "lib/html/text_builder.h"

#include <string>

#include "gtest/gtest.h"

namespace crawler::html {
namespace {

TEST(TextBuilder, CollapsesWhitespace) {
  TextBuilder b(100);
  b.Append("  Hello \t\n  world ");
  b.Append("again");
  EXPECT_EQ(b.text(), "Hello world again");
}

TEST(TextBuilder, NoBreakSpaceCollapsesToo) {
  TextBuilder b(100);
  b.Append("a\xC2\xA0\xC2\xA0 b\xC2\xA9");  // U+00A9 shares the lead byte and stays
  EXPECT_EQ(b.text(), "a b\xC2\xA9");
}

TEST(TextBuilder, WordsAcrossAppendsJoinWithoutSpace) {
  TextBuilder b(100);
  b.Append("foo");
  b.Append("bar ");
  b.Append(" baz");
  EXPECT_EQ(b.text(), "foobar baz");
}

TEST(TextBuilder, BreaksBecomeOneNewlineAndNeverLeadOrTrail) {
  TextBuilder b(100);
  b.Break();
  b.Append("one");
  b.Space();
  b.Break();
  b.Break();
  b.Append(" two ");
  b.Space();
  b.Append("three");
  b.Break();
  EXPECT_EQ(b.text(), "one\ntwo three");
}

TEST(TextBuilder, SpaceDoesNotWeakenAPendingBreak) {
  TextBuilder b(100);
  b.Append("a");
  b.Break();
  b.Space();
  b.Append("b");
  EXPECT_EQ(b.text(), "a\nb");
}

TEST(TextBuilder, TruncatesOnCodePointBoundary) {
  TextBuilder b(6);
  b.Append("ab \xE2\x82\xAC\xE2\x82\xAC");  // "ab €€": 3 + 3 + 3 bytes
  EXPECT_TRUE(b.truncated());
  EXPECT_EQ(b.text(), "ab \xE2\x82\xAC");
  b.Append("more");
  EXPECT_EQ(b.text(), "ab \xE2\x82\xAC");
}

TEST(TextBuilder, ZeroLimitKeepsNothing) {
  TextBuilder b(0);
  b.Append("x");
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.truncated());
}

}  // namespace
}  // namespace crawler::html
