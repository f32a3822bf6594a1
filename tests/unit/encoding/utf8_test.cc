#include "lib/encoding/utf8.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace crawler::encoding {
namespace {

struct Utf8Case {
  char32_t code_point;
  std::string_view bytes;
};

// The first and last code point of every sequence length, and the neighbours of the surrogates.
constexpr Utf8Case kBoundaries[] = {
    {0x00, std::string_view("\x00", 1)},
    {0x7F, "\x7F"},
    {0x80, "\xC2\x80"},
    {0x7FF, "\xDF\xBF"},
    {0x800, "\xE0\xA0\x80"},
    {0xD7FF, "\xED\x9F\xBF"},
    {0xE000, "\xEE\x80\x80"},
    {0xFFFD, "\xEF\xBF\xBD"},
    {0xFFFF, "\xEF\xBF\xBF"},
    {0x10000, "\xF0\x90\x80\x80"},
    {0x10FFFF, "\xF4\x8F\xBF\xBF"},
};

TEST(Utf8, EncodesBoundaryCodePoints) {
  for (const Utf8Case& c : kBoundaries) {
    std::string out;
    AppendUtf8(c.code_point, out);
    EXPECT_EQ(out, c.bytes) << std::hex << static_cast<uint32_t>(c.code_point);
    char buffer[kMaxUtf8Bytes];
    EXPECT_EQ(std::string_view(buffer, EncodeUtf8(c.code_point, buffer)), c.bytes);
  }
}

TEST(Utf8, DecodesBoundaryCodePoints) {
  for (const Utf8Case& c : kBoundaries) {
    const std::string with_tail = std::string(c.bytes) + "x";
    const Utf8Sequence decoded = DecodeUtf8Sequence(with_tail);
    EXPECT_TRUE(decoded.valid) << std::hex << static_cast<uint32_t>(c.code_point);
    EXPECT_EQ(decoded.code_point, c.code_point);
    EXPECT_EQ(decoded.length, c.bytes.size());
  }
}

TEST(Utf8, EncodesSurrogatesAndOutOfRangeAsReplacement) {
  for (const char32_t cp : {char32_t{0xD800}, char32_t{0xDBFF}, char32_t{0xDC00}, char32_t{0xDFFF},
                            char32_t{0x110000}, char32_t{0xFFFFFFFF}}) {
    std::string out;
    AppendUtf8(cp, out);
    EXPECT_EQ(out, "\xEF\xBF\xBD") << std::hex << static_cast<uint32_t>(cp);
  }
}

TEST(Utf8, ScalarValues) {
  EXPECT_TRUE(IsScalarValue(0xD7FF));
  EXPECT_FALSE(IsScalarValue(0xD800));
  EXPECT_FALSE(IsScalarValue(0xDFFF));
  EXPECT_TRUE(IsScalarValue(0xE000));
  EXPECT_TRUE(IsScalarValue(0x10FFFF));
  EXPECT_FALSE(IsScalarValue(0x110000));
}

// Ill-formed input and the maximal subpart the Encoding Standard replaces with one U+FFFD
// (the examples of Unicode 15, Table 3-8, among others).
TEST(Utf8, RejectsIllFormedSequencesWithTheirMaximalSubpart) {
  constexpr struct {
    std::string_view bytes;
    size_t subpart;
  } kCases[] = {
      {"\x80", 1},  // lone continuation byte
      {"\xBF", 1},
      {"\xC0\xAF", 1},  // overlong lead bytes are never valid
      {"\xC1\xBF", 1},
      {"\xE0\x80\xAF", 1},      // overlong 3-byte form
      {"\xED\xA0\x80", 1},      // surrogate U+D800
      {"\xED\xBF\xBF", 1},      // surrogate U+DFFF
      {"\xF0\x80\x80\xAF", 1},  // overlong 4-byte form
      {"\xF4\x90\x80\x80", 1},  // U+110000
      {"\xF5\x80\x80\x80", 1},  // lead byte past U+10FFFF
      {"\xFF", 1},
      {"\xC2", 1},      // truncated
      {"\xC2\x41", 1},  // continuation missing
      {"\xE2\x82", 2},  // truncated 3-byte sequence
      {"\xE2\x82\x41", 2},
      {"\xF0\x9F\x98", 3},  // truncated 4-byte sequence
      {"\xF0\x9F\x41\x41", 2},
  };
  for (const auto& c : kCases) {
    const Utf8Sequence decoded = DecodeUtf8Sequence(c.bytes);
    EXPECT_FALSE(decoded.valid) << ::testing::PrintToString(c.bytes);
    EXPECT_EQ(decoded.length, c.subpart) << ::testing::PrintToString(c.bytes);
  }
}

TEST(Utf8, RoundTripsEveryScalarValue) {
  for (char32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
    if (IsSurrogate(cp)) continue;
    char buffer[kMaxUtf8Bytes];
    const size_t length = EncodeUtf8(cp, buffer);
    const Utf8Sequence decoded = DecodeUtf8Sequence(std::string_view(buffer, length));
    ASSERT_TRUE(decoded.valid) << std::hex << static_cast<uint32_t>(cp);
    ASSERT_EQ(decoded.code_point, cp);
    ASSERT_EQ(decoded.length, length);
  }
}

}  // namespace
}  // namespace crawler::encoding
