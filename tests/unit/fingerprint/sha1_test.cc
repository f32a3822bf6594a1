// SHA-1 (FIPS 180-4) and its WARC string form.
#include "lib/fingerprint/sha1.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler::fingerprint {
namespace {

// The examples of the NIST Cryptographic Standards and Guidelines "SHA1.pdf" (one-block,
// two-block and long message) and the empty message.
TEST(Fips180_4_6_1, NistExampleVectors) {
  struct Case {
    std::string message;
    const char* want;
  };
  const Case cases[] = {
      {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
      {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
       "opqrsmnopqrstnopqrstu",
       "a49b2446a02c645bf419f995b67091253a04a259"},
      {std::string(1'000'000, 'a'), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Sha1(c.message).ToHex(), c.want) << "message of " << c.message.size() << " bytes";
  }
}

// Padding (FIPS 180-4 §5.1.1) needs a second block when fewer than 9 bytes are free in the last
// one: the lengths around 55/56 and 64 bytes are where an implementation goes wrong. Expected
// values from Python's hashlib.
TEST(Fips180_4_5_1_1, PaddingBoundaries) {
  struct Case {
    size_t length;
    const char* want;
  };
  const Case cases[] = {
      {55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"},
      {56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"},
      {63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5"},
      {64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"},
      {65, "11655326c708d70319be2610e8a57d9a5b959d3b"},
      {119, "ee971065aaa017e0632a8ca6c77bb3bf8b1dfc56"},
      {120, "f34c1488385346a55709ba056ddd08280dd4c6d6"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Sha1(std::string(c.length, 'a')).ToHex(), c.want) << c.length << " bytes";
  }
}

TEST(Fips180_4_6_1, AllByteValues) {
  std::string data;
  for (int repeat = 0; repeat < 4; ++repeat) {
    for (int b = 0; b < 256; ++b) data.push_back(static_cast<char>(b));
  }
  EXPECT_EQ(Sha1(data).ToHex(), "5b00669c480d5cffbdfa8bdba99561160f2d1b77");
}

TEST(Sha1Hasher, AnySplitGivesTheOneShotDigest) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  const Sha1Digest want = Sha1(data);
  Sha1Hasher hasher;
  for (size_t split = 0; split <= data.size(); ++split) {
    hasher.Update(std::string_view(data).substr(0, split));
    hasher.Update(std::string_view(data).substr(split));
    ASSERT_EQ(hasher.Finish(), want) << "split at " << split;  // Finish also resets
  }
  for (size_t i = 0; i < data.size(); ++i) hasher.Update(data.substr(i, 1));
  EXPECT_EQ(hasher.Finish(), want);
}

// WARC/1.1 §5.8-5.9: labelled digests; "sha1:" + base32 is what Heritrix, wget and warcio write.
TEST(Warc1_1_5_9, WarcStringIsSha1ColonBase32) {
  EXPECT_EQ(Sha1("").ToWarcString(), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
  EXPECT_EQ(Sha1("abc").ToWarcString(), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
  EXPECT_EQ(Sha1("abc").ToBase32(), "VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
}

TEST(Warc1_1_5_8, ParsesLabelledDigests) {
  const Sha1Digest abc = Sha1("abc");
  for (const char* text : {
           "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5",
           "SHA1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5",
           "sha1:vgmt4nsha2awvor6evyxqugcnsonbwe5",
           "sha-1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5",
           "sha1:a9993e364706816aba3e25717850c26c9cd0d89d",
           "sha1:A9993E364706816ABA3E25717850C26C9CD0D89D",
       }) {
    absl::StatusOr<Sha1Digest> parsed = Sha1Digest::FromWarcString(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(*parsed, abc) << text;
  }
}

TEST(Warc1_1_5_8, RejectsMalformedDigests) {
  struct Case {
    const char* text;
    absl::StatusCode code;
  };
  const Case cases[] = {
      {"", absl::StatusCode::kInvalidArgument},
      {"VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", absl::StatusCode::kInvalidArgument},  // no label
      {"sha1:", absl::StatusCode::kInvalidArgument},
      {"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE", absl::StatusCode::kInvalidArgument},    // 31
      {"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE55", absl::StatusCode::kInvalidArgument},  // 33
      {"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE1", absl::StatusCode::kInvalidArgument},   // '1'
      {"sha1:a9993e364706816aba3e25717850c26c9cd0d89g", absl::StatusCode::kInvalidArgument},
      {"sha256:47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU", absl::StatusCode::kUnimplemented},
      {"md5:1B2M2Y8AsgTpgAmY7PhCfg==", absl::StatusCode::kUnimplemented},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Sha1Digest::FromWarcString(c.text).status().code(), c.code) << c.text;
  }
}

TEST(Sha1Digest, RoundTripsAndOrders) {
  const Sha1Digest a = Sha1("a");
  const Sha1Digest b = Sha1("b");
  EXPECT_EQ(*Sha1Digest::FromWarcString(a.ToWarcString()), a);
  EXPECT_NE(a, b);
  EXPECT_TRUE(a < b || b < a);
  EXPECT_EQ(Sha1Digest().ToHex(), std::string(40, '0'));
}

}  // namespace
}  // namespace crawler::fingerprint
