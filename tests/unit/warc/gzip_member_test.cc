// GzipCompressor / GzipMember: one complete RFC 1952 member per call (checked with zlib as an
// independent decoder), the same bytes whether the compressor is fresh or reused (WARC 1.1
// Annex D record-at-time compression).
#include "lib/warc/gzip_member.h"

#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace crawler::warc {
namespace {

// Inflates `gz`, which must be exactly one gzip member; false if it is not.
bool InflateOneMember(const std::string& gz, std::string& out) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return false;
  out.clear();
  char buffer[4096];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof buffer;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - zs.avail_out);
  }
  const bool ok = rc == Z_STREAM_END && zs.avail_in == 0;
  inflateEnd(&zs);
  return ok;
}

std::vector<std::string> Inputs() {
  std::mt19937_64 random(7);
  std::vector<std::string> inputs = {"", "x", std::string(100000, 'a')};
  for (int i = 0; i < 20; ++i) {
    std::string s;
    const size_t n = random() % 20000;
    // Text-like: a small alphabet, so there is something to compress.
    for (size_t j = 0; j < n; ++j) s.push_back("abc <>/=\"\r\ndefgh"[random() % 16]);
    inputs.push_back(s);
  }
  std::string binary;
  for (int j = 0; j < 5000; ++j) binary.push_back(static_cast<char>(random()));
  inputs.push_back(binary);
  return inputs;
}

TEST(Rfc1952, EachCallIsOneCompleteMember) {
  for (int level : {1, 6, 9}) {
    GzipCompressor compressor(level);
    for (const std::string& input : Inputs()) {
      const std::string gz = compressor.Compress(input);
      ASSERT_GE(gz.size(), 18u);  // 10-byte header, 8-byte trailer
      EXPECT_EQ(static_cast<uint8_t>(gz[0]), 0x1f);
      EXPECT_EQ(static_cast<uint8_t>(gz[1]), 0x8b);
      std::string round_trip;
      ASSERT_TRUE(InflateOneMember(gz, round_trip)) << "level " << level;
      EXPECT_EQ(round_trip, input);
    }
  }
}

// A reused compressor keeps no state from the previous member: it writes the same bytes as a
// fresh one, in any order of inputs.
TEST(GzipCompressor, ReusedCompressorEqualsFreshCompressor) {
  GzipCompressor reused(1);
  const std::vector<std::string> inputs = Inputs();
  for (int round = 0; round < 2; ++round) {
    for (const std::string& input : inputs) EXPECT_EQ(reused.Compress(input), GzipMember(input, 1));
  }
}

// AppendMember adds one complete member after what the buffer holds: the members of a batch,
// concatenated, read back one by one (RFC 1952 §2.2: a file is a series of members).
TEST(Rfc1952, AppendMemberConcatenatesMembers) {
  GzipCompressor compressor(1);
  const std::vector<std::string> inputs = Inputs();
  std::string all = "prefix";
  std::vector<size_t> ends;
  for (const std::string& input : inputs) {
    ASSERT_TRUE(compressor.AppendMember(input, all));
    ends.push_back(all.size());
  }
  ASSERT_EQ(all.substr(0, 6), "prefix");
  size_t start = 6;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string member = all.substr(start, ends[i] - start);
    EXPECT_EQ(member, GzipMember(inputs[i], 1));
    std::string round_trip;
    ASSERT_TRUE(InflateOneMember(member, round_trip));
    EXPECT_EQ(round_trip, inputs[i]);
    start = ends[i];
  }
}

// Level 1 compresses small members with fixed codes and larger ones with dynamic codes; both
// sides of the size boundary, and incompressible input of several 64 KiB stored blocks, are
// complete members that inflate to the input.
TEST(Rfc1952, Level1MembersOnBothSidesOfTheSmallMemberSize) {
  std::mt19937_64 random(9);
  std::vector<std::string> inputs;
  for (size_t n :
       {size_t{0}, size_t{1}, GzipCompressor::kSmallMemberBytes - 1,
        GzipCompressor::kSmallMemberBytes, GzipCompressor::kSmallMemberBytes + 1, size_t{300000}}) {
    std::string text;
    for (size_t j = 0; j < n; ++j) text.push_back("GET /a HTTP/1.1\r\n"[random() % 17]);
    inputs.push_back(text);
  }
  for (size_t n : {size_t{100}, size_t{3000}, size_t{200000}}) {
    std::string binary;
    for (size_t j = 0; j < n; ++j) binary.push_back(static_cast<char>(random()));
    inputs.push_back(binary);
  }
  GzipCompressor compressor(1);
  for (const std::string& input : inputs) {
    const std::string gz = compressor.Compress(input);
    std::string round_trip;
    ASSERT_TRUE(InflateOneMember(gz, round_trip)) << input.size();
    EXPECT_EQ(round_trip, input);
  }
}

TEST(GzipCompressor, LevelIsClamped) {
  EXPECT_EQ(GzipCompressor(0).level(), 1);
  EXPECT_EQ(GzipCompressor(42).level(), 9);
  EXPECT_EQ(GzipCompressor(3).level(), 3);
}

}  // namespace
}  // namespace crawler::warc
