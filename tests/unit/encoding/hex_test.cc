#include "lib/encoding/hex.h"

#include <array>
#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace crawler::encoding {
namespace {

TEST(HexValue, DigitsOfEitherCase) {
  constexpr struct {
    char c;
    int value;
  } kCases[] = {{'0', 0},  {'9', 9},  {'a', 10}, {'f', 15},  {'A', 10},
                {'F', 15}, {'g', -1}, {'G', -1}, {'/', -1},  {':', -1},
                {'@', -1}, {'`', -1}, {' ', -1}, {'\0', -1}, {'\xff', -1}};
  for (const auto& c : kCases) EXPECT_EQ(HexValue(c.c), c.value) << c.c;
}

TEST(AppendHexByte, UpperAndLowerCase) {
  std::string out;
  AppendHexByte(0x00, HexCase::kUpper, out);
  AppendHexByte(0xAB, HexCase::kUpper, out);
  AppendHexByte(0xAB, HexCase::kLower, out);
  AppendHexByte(0xFF, HexCase::kLower, out);
  EXPECT_EQ(out, "00ABabff");
}

TEST(HexEncode, TwoLowerCaseDigitsPerByte) {
  const std::array<uint8_t, 4> bytes = {0x01, 0x23, 0xcd, 0xef};
  EXPECT_EQ(HexEncode(bytes), "0123cdef");
  EXPECT_EQ(HexEncode({}), "");
}

TEST(HexDecode, AcceptsEitherCase) {
  std::array<uint8_t, 4> bytes{};
  ASSERT_TRUE(HexDecode("0123CDef", bytes));
  EXPECT_EQ(bytes, (std::array<uint8_t, 4>{0x01, 0x23, 0xcd, 0xef}));
}

TEST(HexDecode, RejectsWrongLengthAndNonDigits) {
  std::array<uint8_t, 2> bytes{};
  EXPECT_FALSE(HexDecode("abc", bytes));
  EXPECT_FALSE(HexDecode("abcdef", bytes));
  EXPECT_FALSE(HexDecode("", bytes));
  EXPECT_FALSE(HexDecode("abcg", bytes));
  EXPECT_FALSE(HexDecode("ab c", bytes));
  EXPECT_TRUE(HexDecode("", std::span<uint8_t>()));
}

TEST(HexDecode, RoundTripsEveryByte) {
  std::array<uint8_t, 256> bytes;
  for (int i = 0; i < 256; ++i) bytes[i] = static_cast<uint8_t>(i);
  const std::string hex = HexEncode(bytes);
  std::array<uint8_t, 256> decoded{};
  ASSERT_TRUE(HexDecode(hex, decoded));
  EXPECT_EQ(decoded, bytes);
}

}  // namespace
}  // namespace crawler::encoding
