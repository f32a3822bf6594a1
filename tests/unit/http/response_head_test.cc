#include "lib/http/response_head.h"

#include "gtest/gtest.h"

namespace crawler::http {
namespace {

// RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ].
TEST(Rfc9112_4_StatusLine, ParsesVersionCodeAndReason) {
  struct Case {
    const char* raw;
    int status;
    const char* reason;
  };
  const Case cases[] = {
      {"HTTP/1.1 200 OK\r\n\r\n", 200, "OK"},
      {"HTTP/1.0 404 Not Found\r\n\r\n", 404, "Not Found"},
      {"HTTP/1.1 204 \r\n\r\n", 204, ""},
      {"HTTP/1.1 301\r\n\r\n", 301, ""},  // missing reason and its space: seen in the wild
      {"HTTP/2 503 \r\n\r\n", 503, ""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ResponseHead> head = ResponseHead::Parse(c.raw);
    ASSERT_TRUE(head.ok()) << c.raw;
    EXPECT_EQ(head->status(), c.status) << c.raw;
    EXPECT_EQ(head->reason(), c.reason) << c.raw;
    EXPECT_EQ(ResponseHead::PeekStatus(c.raw), c.status) << c.raw;
  }
  for (const char* bad : {"", "garbage\r\n\r\n", "HTTP/1.1 2000 OK\r\n", "HTTP/1.1 abc OK\r\n",
                          "HTTP/1.1 099 Low\r\n"}) {
    EXPECT_FALSE(ResponseHead::Parse(bad).ok()) << bad;
    EXPECT_EQ(ResponseHead::PeekStatus(bad), std::nullopt) << bad;
  }
}

// PeekStatus (the fetcher's network thread) must agree with Parse on every block: the status
// it releases a politeness claim with is the one the page is then recorded with.
TEST(ResponseHead, PeekStatusAgreesWithParse) {
  for (const char* raw : {
           "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Busy\r\nRetry-After: 5\r\n\r\n",
           "HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 404 Not Found\n\n",
           "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 2x0 Bad\r\n\r\n",  // final block malformed
           "HTTP/1.1 200 OK\r\nX: HTTP/1.1 500 not a status line\r\n\r\n",
           "HTTP/1.1 200 OK",  // no line end at all
           "\r\n\r\nHTTP/1.0 302 Found\r\nLocation: /x\r\n\r\n",
           "HTTP/1.1  200 OK\r\n\r\n",  // two spaces: empty code
           "HTTP/1.1 +20 OK\r\n\r\n",
       }) {
    absl::StatusOr<ResponseHead> head = ResponseHead::Parse(raw);
    const std::optional<int> peeked = ResponseHead::PeekStatus(raw);
    if (head.ok()) {
      EXPECT_EQ(peeked, head->status()) << raw;
    } else {
      EXPECT_EQ(peeked, std::nullopt) << raw;
    }
  }
  EXPECT_EQ(ResponseHead::PeekStatus(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Busy\r\nRetry-After: 5\r\n\r\n"),
            503);
}

// RFC 9110 §15.2: interim 1xx responses precede the final one; the final one counts.
TEST(Rfc9110_15_2_Informational, LastBlockIsTheResponse) {
  absl::StatusOr<ResponseHead> head = ResponseHead::Parse(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->status(), 200);
  EXPECT_EQ(head->raw(), "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n");
}

// RFC 9110 §5.1 (case-insensitive names), §5.3 (combining), RFC 9112 §5.2 (obs-fold).
TEST(Rfc9110_5_Fields, LookupCombineFoldAndBareLf) {
  absl::StatusOr<ResponseHead> head = ResponseHead::Parse(
      "HTTP/1.1 200 OK\n"
      "content-type: text/html; charset=\"ISO-8859-1\"\n"
      "Cache-Control: no-cache\n"
      "X-Folded: a\n"
      "  b\n"
      "cache-control: private\n"
      "not a field\n"
      "\n");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->Get("Content-Type"), "text/html; charset=\"ISO-8859-1\"");
  EXPECT_EQ(head->GetCombined("Cache-Control"), "no-cache, private");
  EXPECT_EQ(head->Get("x-folded"), "a b");
  EXPECT_FALSE(head->Get("Missing").has_value());
  EXPECT_EQ(head->content_type().essence, "text/html");
  EXPECT_EQ(head->content_type().charset, "iso-8859-1");
}

// RFC 9110 §8.3.1 media types.
TEST(Rfc9110_8_3_1_MediaType, EssenceAndCharset) {
  struct Case {
    const char* in;
    const char* essence;
    const char* charset;
  };
  const Case cases[] = {
      {"text/html", "text/html", ""},
      {"Text/HTML;Charset=UTF-8", "text/html", "utf-8"},
      {" application/xhtml+xml ; q=1 ; charset = windows-1250", "application/xhtml+xml",
       "windows-1250"},
      {"text/html; charset=\"utf-8\"", "text/html", "utf-8"},
      {"html", "", ""},
      {"", "", ""},
      {"/html", "", ""},
  };
  for (const Case& c : cases) {
    const MediaType m = ParseMediaType(c.in);
    EXPECT_EQ(m.essence, c.essence) << c.in;
    EXPECT_EQ(m.charset, c.charset) << c.in;
  }
}

// RFC 9110 §8.4: codings listed in the order applied; identity dropped.
TEST(Rfc9110_8_4_ContentEncoding, OrderedLowercasedList) {
  absl::StatusOr<ResponseHead> head = ResponseHead::Parse(
      "HTTP/1.1 200 OK\r\nContent-Encoding: GZIP, identity\r\nContent-Encoding: br\r\n\r\n");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->content_encodings(), (std::vector<std::string>{"gzip", "br"}));
}

TEST(ResponseHead, FieldCountIsBounded) {
  std::string raw = "HTTP/1.1 200 OK\r\n";
  for (int i = 0; i < 10000; ++i) raw += "X-A: b\r\n";
  raw += "\r\n";
  absl::StatusOr<ResponseHead> head = ResponseHead::Parse(raw);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->fields().size(), ResponseHead::kMaxFields);
}

}  // namespace
}  // namespace crawler::http
