#include "lib/encoding/varint.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace crawler::encoding {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

struct VarintCase {
  uint64_t value;
  std::string_view bytes;
};

// The boundaries where the encoding gains a byte, and the ends of the range.
constexpr VarintCase kCases[] = {
    {0, std::string_view("\x00", 1)},
    {1, "\x01"},
    {127, "\x7f"},
    {128, "\x80\x01"},
    {300, "\xac\x02"},
    {16383, "\xff\x7f"},
    {16384, "\x80\x80\x01"},
    {uint64_t{1} << 32, "\x80\x80\x80\x80\x10"},
    {(uint64_t{1} << 63) - 1, "\xff\xff\xff\xff\xff\xff\xff\xff\x7f"},
    {uint64_t{1} << 63, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"},
    {kMax, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"},
};

TEST(Varint, EncodesBoundaryValues) {
  for (const VarintCase& c : kCases) {
    std::string out;
    AppendVarint64(c.value, out);
    EXPECT_EQ(out, c.bytes) << c.value;
  }
}

TEST(Varint, DecodesBoundaryValuesAndReportsLength) {
  for (const VarintCase& c : kCases) {
    const std::string with_tail = std::string(c.bytes) + "tail";
    const DecodedVarint decoded = DecodeVarint64(with_tail);
    ASSERT_EQ(decoded.status, VarintStatus::kOk) << c.value;
    EXPECT_EQ(decoded.value, c.value);
    EXPECT_EQ(decoded.length, c.bytes.size());
  }
}

TEST(Varint, LongestEncodingIsTenBytes) {
  std::string out;
  AppendVarint64(kMax, out);
  EXPECT_EQ(out.size(), kMaxVarint64Bytes);
}

TEST(Varint, AppendsToExistingBytes) {
  std::string out = "x";
  AppendVarint64(128, out);
  AppendVarint64(1, out);
  EXPECT_EQ(out, "x\x80\x01\x01");
}

TEST(Varint, RejectsTruncatedInput) {
  for (const VarintCase& c : kCases) {
    for (size_t cut = 0; cut < c.bytes.size(); ++cut) {
      EXPECT_EQ(DecodeVarint64(c.bytes.substr(0, cut)).status, VarintStatus::kTruncated)
          << c.value << " cut at " << cut;
    }
  }
}

TEST(Varint, RejectsMoreThan64Bits) {
  // Bit 64 set in the 10th byte.
  EXPECT_EQ(DecodeVarint64("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02").status,
            VarintStatus::kOverflow);
  // An 11th byte.
  EXPECT_EQ(DecodeVarint64("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x81\x00").status,
            VarintStatus::kOverflow);
}

TEST(Varint, RejectsOverlongForms) {
  EXPECT_EQ(DecodeVarint64(std::string_view("\x80\x00", 2)).status, VarintStatus::kOverlong);
  EXPECT_EQ(DecodeVarint64(std::string_view("\xff\x00", 2)).status, VarintStatus::kOverlong);
  EXPECT_EQ(DecodeVarint64(std::string_view("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 10)).status,
            VarintStatus::kOverlong);
}

TEST(Varint, ConsumeRemovesTheVarintOnlyOnSuccess) {
  std::string_view in("\xac\x02rest");
  EXPECT_EQ(ConsumeVarint64(in), std::optional<uint64_t>(300));
  EXPECT_EQ(in, "rest");

  std::string_view truncated("\x80\x80");
  EXPECT_EQ(ConsumeVarint64(truncated), std::nullopt);
  EXPECT_EQ(truncated.size(), 2u);

  std::string_view empty;
  EXPECT_EQ(ConsumeVarint64(empty), std::nullopt);
}

TEST(ZigZag, InterleavesSignsAndRoundTrips) {
  constexpr struct {
    int64_t value;
    uint64_t encoded;
  } kZigZag[] = {
      {0, 0},
      {-1, 1},
      {1, 2},
      {-2, 3},
      {2147483647, 4294967294},
      {-2147483648, 4294967295},
      {std::numeric_limits<int64_t>::max(), kMax - 1},
      {std::numeric_limits<int64_t>::min(), kMax},
  };
  for (const auto& c : kZigZag) {
    EXPECT_EQ(ZigZagEncode(c.value), c.encoded) << c.value;
    EXPECT_EQ(ZigZagDecode(c.encoded), c.value) << c.encoded;
  }
}

}  // namespace
}  // namespace crawler::encoding
