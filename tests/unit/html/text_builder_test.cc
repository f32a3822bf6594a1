#include "lib/html/text_builder.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace crawler::html {
namespace {

TEST(TextBuilder, CollapsesWhitespace) {
  TextBuilder b(100);
  b.Append("  Hello \t\n  world ");
  b.Append("again");
  EXPECT_EQ(b.text(), "Hello world again");
}

// Append looks for the end of a run of words eight bytes at a time: every kind of space, at
// every position of a longer text and next to every other kind, collapses as byte by byte.
TEST(TextBuilder, EverySpaceAtEveryPositionCollapses) {
  const std::vector<std::string> pieces = {
      " ", "  ", "\t", "\n", "\f", "\r", "\xC2\xA0", "\xC2\xA9", " \xC2\xA0", "\xC2\xA0 ", "x"};
  for (const std::string& a : pieces) {
    for (const std::string& b : pieces) {
      for (size_t before = 0; before < 12; ++before) {
        for (size_t after : {0, 1, 5, 9}) {
          const std::string input =
              std::string(before, 'w') + a + std::string(3, 'v') + b + std::string(after, 'z');
          // The reference: split at every collapsible space, join with single spaces.
          std::string expected;
          std::string word;
          bool pending = false;
          for (size_t k = 0; k <= input.size(); ++k) {
            const bool nbsp = k + 1 < input.size() && input[k] == '\xC2' && input[k + 1] == '\xA0';
            const bool space =
                k < input.size() &&
                (nbsp || std::string(" \t\n\f\r").find(input[k]) != std::string::npos);
            if (k == input.size() || space) {
              if (!word.empty()) {
                if (pending && !expected.empty()) expected += ' ';
                expected += word;
                word.clear();
                pending = false;
              }
              if (space) pending = true;
              if (nbsp) ++k;
            } else {
              word += input[k];
            }
          }
          TextBuilder builder(1000);
          builder.Append(input);
          EXPECT_EQ(builder.text(), expected) << input;
        }
      }
    }
  }
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
