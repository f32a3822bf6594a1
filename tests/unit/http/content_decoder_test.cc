#include "lib/http/content_decoder.h"

#include <brotli/encode.h>
#include <zlib.h>

#include <random>
#include <string>

#include "gtest/gtest.h"

namespace crawler::http {
namespace {

std::string Deflate(const std::string& in, int window_bits) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, in.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string Brotli(const std::string& in) {
  size_t size = BrotliEncoderMaxCompressedSize(in.size());
  std::string out(size, '\0');
  EXPECT_TRUE(BrotliEncoderCompress(5, 22, BROTLI_MODE_TEXT, in.size(),
                                    reinterpret_cast<const uint8_t*>(in.data()), &size,
                                    reinterpret_cast<uint8_t*>(out.data())));
  out.resize(size);
  return out;
}

std::string Text() {
  std::string s;
  for (int i = 0; i < 2000; ++i) s += "<p>Paragraph " + std::to_string(i) + " of the page.</p>\n";
  return s;
}

// RFC 9110 §8.4.1: gzip, deflate (zlib format, and raw as some servers send), br (RFC 7932).
TEST(Rfc9110_8_4_1_ContentCodings, EachCodingRoundTrips) {
  const std::string text = Text();
  struct Case {
    const char* coding;
    std::string encoded;
  };
  const Case cases[] = {
      {"gzip", Deflate(text, 15 + 16)},
      {"x-gzip", Deflate(text, 15 + 16)},
      {"deflate", Deflate(text, 15)},
      {"deflate", Deflate(text, -15)},
      {"br", Brotli(text)},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::string> out = DecodeContent(c.encoded, {c.coding}, 1 << 20);
    ASSERT_TRUE(out.ok()) << c.coding << ": " << out.status();
    EXPECT_EQ(*out, text) << c.coding;
  }
}

TEST(Rfc9110_8_4_1_ContentCodings, SeveralCodingsAreUndoneInReverse) {
  const std::string text = Text();
  const std::string twice = Brotli(Deflate(text, 15 + 16));  // gzip applied first, then br
  absl::StatusOr<std::string> out = DecodeContent(twice, {"gzip", "br"}, 1 << 20);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, text);
}

// RFC 1952 §2.2: a gzip file may hold several members.
TEST(Rfc1952_2_2_Members, ConcatenatedMembersDecodeToTheConcatenation) {
  absl::StatusOr<std::string> out =
      DecodeContent(Deflate("abc", 31) + Deflate("def", 31), {"gzip"}, 100);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "abcdef");
}

TEST(DecodeContent, BombStopsAtTheCap) {
  const std::string zeros(64 << 20, '\0');  // 64 MiB of zeros compress to ~64 KiB
  for (const std::string& encoded : {Deflate(zeros, 31), Brotli(zeros)}) {
    const char* coding = encoded[0] == '\x1f' ? "gzip" : "br";
    absl::StatusOr<std::string> out = DecodeContent(encoded, {coding}, 1 << 20);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted) << coding;
  }
}

TEST(DecodeContent, CorruptTruncatedAndUnknown) {
  const std::string gz = Deflate(Text(), 31);
  EXPECT_EQ(DecodeContent(gz.substr(0, gz.size() / 2), {"gzip"}, 1 << 20).status().code(),
            absl::StatusCode::kDataLoss);
  std::string corrupt = gz;
  for (size_t i = 20; i < 60; ++i) corrupt[i] ^= 0x5A;
  EXPECT_EQ(DecodeContent(corrupt, {"gzip"}, 1 << 20).status().code(),
            absl::StatusCode::kDataLoss);
  const std::string br = Brotli(Text());
  EXPECT_EQ(DecodeContent(br.substr(0, br.size() / 2), {"br"}, 1 << 20).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeContent("x", {"compress"}, 10).status().code(),
            absl::StatusCode::kUnimplemented);
  // No coding: passed through, but the cap still holds.
  EXPECT_EQ(*DecodeContent("plain", {}, 10), "plain");
  EXPECT_EQ(DecodeContent("too long", {}, 3).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(DecodeContent, RandomBytesNeverCrash) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 500; ++i) {
    std::string junk(rng() % 300, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (i % 2 == 0 && junk.size() > 2) {
      junk[0] = '\x1f';
      junk[1] = '\x8b';
    }
    for (const char* coding : {"gzip", "deflate", "br"}) {
      (void)DecodeContent(junk, {coding}, 4096);
    }
  }
}

}  // namespace
}  // namespace crawler::http
