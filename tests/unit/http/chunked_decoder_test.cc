#include "lib/http/chunked_decoder.h"

#include "gtest/gtest.h"

namespace crawler::http {
namespace {

// RFC 9112 §7.1: chunked = *chunk last-chunk trailer-section CRLF.
TEST(Rfc9112_7_1_ChunkedTransferCoding, Decodes) {
  struct Case {
    const char* name;
    std::string in;
    std::string want;
    bool complete;
  };
  const Case cases[] = {
      {"two chunks", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", true},
      {"hex sizes and extension", "A;name=v\r\n0123456789\r\n0\r\n\r\n", "0123456789", true},
      {"upper-case hex", "B\r\n0123456789a\r\n0\r\n\r\n", "0123456789a", true},
      {"trailers ignored", "3\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n", "abc", true},
      {"bare LF", "3\nabc\n0\n\n", "abc", true},
      {"truncated in data", "5\r\nhel", "hel", false},
      {"truncated before last chunk", "3\r\nabc\r\n", "abc", false},
      {"empty", "", "", false},
  };
  for (const Case& c : cases) {
    absl::StatusOr<DechunkedBody> out = DecodeChunked(c.in);
    ASSERT_TRUE(out.ok()) << c.name << out.status();
    EXPECT_EQ(out->data, c.want) << c.name;
    EXPECT_EQ(out->complete, c.complete) << c.name;
  }
  for (const char* bad : {"zz\r\nabc\r\n", "\r\nabc", "1234567890123456\r\n"}) {
    EXPECT_EQ(DecodeChunked(bad).status().code(), absl::StatusCode::kDataLoss) << bad;
  }
}

// RFC 9112 §6.1: chunked is the final transfer coding when present.
TEST(Rfc9112_6_1_TransferEncoding, ChunkedIsTheLastCoding) {
  EXPECT_TRUE(IsChunked("chunked"));
  EXPECT_TRUE(IsChunked(" Chunked "));
  EXPECT_TRUE(IsChunked("gzip, chunked"));
  EXPECT_FALSE(IsChunked("chunked, gzip"));
  EXPECT_FALSE(IsChunked(""));
}

}  // namespace
}  // namespace crawler::http
