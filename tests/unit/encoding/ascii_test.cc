#include "lib/encoding/ascii.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace crawler::encoding {
namespace {

TEST(Ascii, WhitespaceIsTheInfraStandardsFive) {
  for (int c = -1; c < 256; ++c) {
    const bool expected = c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ';
    EXPECT_EQ(IsAsciiWhitespace(c), expected) << c;
  }
  EXPECT_FALSE(IsAsciiWhitespace('\v'));  // not ASCII whitespace in the Infra Standard
}

TEST(Ascii, CharacterClasses) {
  constexpr struct {
    int c;
    bool alpha;
    bool digit;
  } kCases[] = {
      {'a', true, false},  {'z', true, false},   {'A', true, false},     {'Z', true, false},
      {'0', false, true},  {'9', false, true},   {'@', false, false},    {'[', false, false},
      {'`', false, false}, {'{', false, false},  {'/', false, false},    {':', false, false},
      {-1, false, false},  {0xC3, false, false}, {'\xC3', false, false},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(IsAsciiAlpha(c.c), c.alpha) << c.c;
    EXPECT_EQ(IsAsciiDigit(c.c), c.digit) << c.c;
    EXPECT_EQ(IsAsciiAlnum(c.c), c.alpha || c.digit) << c.c;
  }
}

TEST(Ascii, LowersOnlyAsciiLetters) {
  EXPECT_EQ(ToAsciiLower('A'), 'a');
  EXPECT_EQ(ToAsciiLower('Z'), 'z');
  EXPECT_EQ(ToAsciiLower('a'), 'a');
  EXPECT_EQ(ToAsciiLower('@'), '@');
  EXPECT_EQ(ToAsciiLower('['), '[');
  EXPECT_EQ(ToAsciiLower('\xC3'), '\xC3');
  EXPECT_EQ(ToAsciiLower("MiXeD-Case \xC3\x89"), "mixed-case \xC3\x89");
  EXPECT_EQ(ToAsciiLower(std::string_view()), "");
}

TEST(Ascii, EqualsIgnoreCase) {
  constexpr struct {
    std::string_view a;
    std::string_view b;
    bool equal;
  } kCases[] = {
      {"", "", true},
      {"Content-Type", "content-type", true},
      {"SHA1", "sha1", true},
      {"sha1", "sha-1", false},
      {"abc", "abcd", false},
      {"@", "`", false},                // 0x40 and 0x60 differ by 32 but are not letters
      {"\xC3\x89", "\xC3\xA9", false},  // É and é: only ASCII folds
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(EqualsIgnoreCase(c.a, c.b), c.equal) << c.a << " vs " << c.b;
    EXPECT_EQ(EqualsIgnoreCase(c.b, c.a), c.equal) << c.b << " vs " << c.a;
  }
}

TEST(Ascii, StartsWithIgnoreCase) {
  EXPECT_TRUE(StartsWithIgnoreCase("<META charset", "<meta"));
  EXPECT_TRUE(StartsWithIgnoreCase("abc", ""));
  EXPECT_FALSE(StartsWithIgnoreCase("<me", "<meta"));
  EXPECT_FALSE(StartsWithIgnoreCase("<mexa", "<meta"));
}

TEST(Ascii, TrimAsciiWhitespace) {
  EXPECT_EQ(TrimAsciiWhitespace(" \t\n\f\rx y\r\n "), "x y");
  EXPECT_EQ(TrimAsciiWhitespace("   "), "");
  EXPECT_EQ(TrimAsciiWhitespace(""), "");
  EXPECT_EQ(TrimAsciiWhitespace("\vx\v"), "\vx\v");
}

static_assert(EqualsIgnoreCase("ABC", "abc"));
static_assert(TrimAsciiWhitespace("  a ") == "a");

}  // namespace
}  // namespace crawler::encoding
