// Table-driven tests of ParseHttpRequest against RFC 9112 (HTTP/1.1 message syntax).
#include "tools/websim/http_request_parser.h"

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace crawler::websim {
namespace {

using State = ParseResult::State;

struct Case {
  const char* name;
  std::string input;
  State state;
  int error_status = 0;
  std::string host = "";
  std::string target = "";
  bool keep_alive = true;
  friend void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
};

class WebsimRfc9112Parse : public testing::TestWithParam<Case> {};

TEST_P(WebsimRfc9112Parse, Table) {
  const Case& c = GetParam();
  ParseResult r = ParseHttpRequest(c.input, HttpParserLimits{});
  ASSERT_EQ(r.state, c.state) << c.name;
  if (c.state == State::kError) {
    EXPECT_EQ(r.error_status, c.error_status) << c.name;
  }
  if (c.state == State::kComplete) {
    EXPECT_EQ(r.request.host, c.host) << c.name;
    EXPECT_EQ(r.request.target, c.target) << c.name;
    EXPECT_EQ(r.request.keep_alive, c.keep_alive) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Requests, WebsimRfc9112Parse,
    testing::Values(
        Case{"simple", "GET /p1.html HTTP/1.1\r\nHost: h1.websim.test\r\n\r\n", State::kComplete,
             0, "h1.websim.test", "/p1.html", true},
        Case{"host_port_case_trailing_dot",
             "GET / HTTP/1.1\r\nHost: H1.WebSim.Test.:8080\r\n\r\n", State::kComplete, 0,
             "h1.websim.test", "/", true},
        Case{"bare_lf_2_2", "GET /a?b=c HTTP/1.1\nHost: x\n\n", State::kComplete, 0, "x",
             "/a?b=c", true},
        Case{"leading_empty_lines_2_2", "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
             State::kComplete, 0, "x", "/", true},
        Case{"connection_close_9_6",
             "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Close\r\n\r\n",
             State::kComplete, 0, "x", "/", false},
        Case{"http10_default_close_9_3", "GET / HTTP/1.0\r\nHost: x\r\n\r\n", State::kComplete,
             0, "x", "/", false},
        Case{"http10_keep_alive_9_3", "GET / HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n",
             State::kComplete, 0, "x", "/", true},
        Case{"absolute_form_3_2_2",
             "GET http://H2.websim.test:80/d1/view?id=3 HTTP/1.1\r\nHost: other\r\n\r\n",
             State::kComplete, 0, "h2.websim.test", "/d1/view?id=3", true},
        Case{"absolute_form_no_path", "GET http://h2.websim.test HTTP/1.1\r\nHost: h\r\n\r\n",
             State::kComplete, 0, "h2.websim.test", "/", true},
        Case{"ows_around_value", "GET / HTTP/1.1\r\nHost: \t x \t\r\n\r\n", State::kComplete, 0,
             "x", "/", true},
        Case{"incomplete_head", "GET / HTTP/1.1\r\nHost: x\r\n", State::kIncomplete},
        Case{"incomplete_body", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab",
             State::kIncomplete},
        Case{"missing_host_3_2", "GET / HTTP/1.1\r\n\r\n", State::kError, 400},
        Case{"empty_host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", State::kError, 400},
        Case{"two_hosts_3_2", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", State::kError, 400},
        Case{"obs_fold_5_2", "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", State::kError, 400},
        Case{"space_before_colon_5_1", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", State::kError, 400},
        Case{"bad_request_line", "GET /\r\nHost: a\r\n\r\n", State::kError, 400},
        Case{"two_spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", State::kError, 400},
        Case{"asterisk_form", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", State::kError, 400},
        Case{"http2_version", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", State::kError, 505},
        Case{"garbage_version", "GET / HTTQ/1.1\r\nHost: a\r\n\r\n", State::kError, 400},
        Case{"transfer_encoding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
             State::kError, 501},
        Case{"bad_content_length", "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n",
             State::kError, 400},
        Case{"conflicting_content_length_6_3",
             "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
             State::kError, 400},
        Case{"body_too_large", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999\r\n\r\n",
             State::kError, 413},
        Case{"bad_host_chars", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", State::kError, 400},
        Case{"binary_before_newline", std::string("\x16\x03\x01\x00\x05", 5), State::kError,
             400},
        Case{"partial_request_line", "GET /p1.ht", State::kIncomplete},
        Case{"control_in_target", "GET /a\x01 HTTP/1.1\r\nHost: a\r\n\r\n", State::kError, 400}),
    [](const testing::TestParamInfo<Case>& param_info) { return std::string(param_info.param.name); });

TEST(WebsimRfc9112_9_3, PipelinedRequestsAreConsumedOneAtATime) {
  const std::string two =
      "GET /1 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nxyzGET /2 HTTP/1.1\r\nHost: b\r\n\r\n";
  ParseResult first = ParseHttpRequest(two, HttpParserLimits{});
  ASSERT_EQ(first.state, State::kComplete);
  EXPECT_EQ(first.request.target, "/1");
  ParseResult second = ParseHttpRequest(absl::string_view(two).substr(first.consumed),
                                        HttpParserLimits{});
  ASSERT_EQ(second.state, State::kComplete);
  EXPECT_EQ(second.request.target, "/2");
  EXPECT_EQ(second.request.host, "b");
  EXPECT_EQ(first.consumed + second.consumed, two.size());
}

TEST(WebsimRfc6585_5, OversizedHeadIs431EvenBeforeItEnds) {
  HttpParserLimits limits;
  limits.max_header_bytes = 1024;
  std::string head = "GET / HTTP/1.1\r\nHost: a\r\nX-Filler: " + std::string(2000, 'a');
  ParseResult r = ParseHttpRequest(head, limits);
  ASSERT_EQ(r.state, State::kError);
  EXPECT_EQ(r.error_status, 431);
  // Just under the limit and complete: fine.
  std::string ok = "GET / HTTP/1.1\r\nHost: a\r\nX-Filler: " + std::string(900, 'a') + "\r\n\r\n";
  EXPECT_EQ(ParseHttpRequest(ok, limits).state, State::kComplete);
}

TEST(WebsimRfc9112_2_2, EndlessEmptyLinesAreBounded) {
  HttpParserLimits limits;
  limits.max_header_bytes = 64;
  ParseResult r = ParseHttpRequest(std::string(1000, '\n'), limits);
  ASSERT_EQ(r.state, State::kError);
  EXPECT_EQ(r.error_status, 431);
}

// RFC 9110 §13.1: the validators a conditional GET carries reach the handler; If-None-Match is a
// list field, so repeated lines are joined.
TEST(WebsimRfc9110_13_1, ConditionalHeadersAreKept) {
  ParseResult r = ParseHttpRequest(
      "GET / HTTP/1.1\r\nHost: a.test\r\nIf-None-Match: \"v1\"\r\n"
      "if-none-match:  W/\"v2\" \r\nIf-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT\r\n\r\n",
      HttpParserLimits{});
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(r.request.if_none_match, "\"v1\", W/\"v2\"");
  EXPECT_EQ(r.request.if_modified_since, "Sat, 01 Jan 2000 00:00:00 GMT");
  ParseResult plain = ParseHttpRequest("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", HttpParserLimits{});
  ASSERT_EQ(plain.state, State::kComplete);
  EXPECT_TRUE(plain.request.if_none_match.empty());
  EXPECT_TRUE(plain.request.if_modified_since.empty());
}

}  // namespace
}  // namespace crawler::websim
