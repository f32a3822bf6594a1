// Tests of the robots.txt line parser (lib/robots/robots_parser.h): the events it pushes, named
// after the RFC 9309 sections they pin.
#include "lib/robots/robots_parser.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace crawler::robots {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

// Records every event as "<line> <kind> <value>" (unknown: "<line> unknown <key>|<value>").
class RecordingHandler : public RobotsParseHandler {
 public:
  void HandleUserAgent(int line, std::string_view value) override { Add(line, "user-agent", value); }
  void HandleAllow(int line, std::string_view value) override { Add(line, "allow", value); }
  void HandleDisallow(int line, std::string_view value) override { Add(line, "disallow", value); }
  void HandleCrawlDelay(int line, std::string_view value) override { Add(line, "crawl-delay", value); }
  void HandleSitemap(int line, std::string_view value) override { Add(line, "sitemap", value); }
  void HandleUnknown(int line, std::string_view key, std::string_view value) override {
    Add(line, "unknown", std::string(key) + "|" + std::string(value));
  }
  void HandleParseLimit(int first_line, size_t ignored_bytes) override {
    events.push_back("limit line=" + std::to_string(first_line) +
                     " ignored=" + std::to_string(ignored_bytes));
  }

  std::vector<std::string> events;

 private:
  void Add(int line, std::string_view kind, std::string_view value) {
    events.push_back(std::to_string(line) + " " + std::string(kind) + " " + std::string(value));
  }
};

std::vector<std::string> Events(std::string_view body) {
  RecordingHandler handler;
  ParseRobotsTxt(body, handler);
  return handler.events;
}

struct ParserCase {
  std::string_view name;
  std::string_view body;
  std::vector<std::string> events;
};

void RunCases(const std::vector<ParserCase>& cases) {
  for (const ParserCase& c : cases) {
    EXPECT_THAT(Events(c.body), ElementsAreArray(c.events)) << c.name;
  }
}

// §2.1: "user-agent", "allow", "disallow" records, key case-insensitive, WS around ':'.
TEST(Rfc9309_2_1, RecordsAndWhitespace) {
  RunCases({
      {"plain", "user-agent: FooBot\ndisallow: /\nallow: /a\n",
       {"1 user-agent FooBot", "2 disallow /", "3 allow /a"}},
      {"keys are case-insensitive", "USER-AGENT: FooBot\nDisAllow: /x\nALLOW: /y",
       {"1 user-agent FooBot", "2 disallow /x", "3 allow /y"}},
      {"space and tab around key and value", " \tUser-agent \t:\t FooBot \t\n\tDisallow :/x  ",
       {"1 user-agent FooBot", "2 disallow /x"}},
      {"no space after colon", "User-agent:FooBot\nDisallow:/x",
       {"1 user-agent FooBot", "2 disallow /x"}},
      {"empty value", "Disallow:\nAllow:   ", {"1 disallow ", "2 allow "}},
      {"value keeps inner space and later colons", "Disallow: /a b:c",
       {"1 disallow /a b:c"}},
      {"value case is kept", "Disallow: /ABC", {"1 disallow /ABC"}},
      {"empty and blank lines produce no event", "\n  \n\t\nUser-agent: a\n\n\nDisallow: /\n",
       {"4 user-agent a", "7 disallow /"}},
      {"empty body", "", {}},
  });
}

// §2.1 NL = CR / LF / CRLF.
TEST(Rfc9309_2_1, LineEndings) {
  const std::vector<std::string> expected = {"1 user-agent foo", "2 allow /some/path",
                                             "3 user-agent bar", "6 disallow /"};
  RunCases({
      {"LF", "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n", expected},
      {"CRLF", "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
       expected},
      {"CR", "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r", expected},
      {"mixed", "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\rDisallow: /",
       expected},
      {"LF CR is two line ends", "a: 1\n\rb: 2", {"1 unknown a|1", "3 unknown b|2"}},
  });
}

// §2.1 BOM is not part of the grammar, but files saved by editors start with one.
TEST(Rfc9309_2_1, ByteOrderMark) {
  RunCases({
      {"BOM skipped", "\xEF\xBB\xBFUser-Agent: foo\nAllow: /AnyValue\n",
       {"1 user-agent foo", "2 allow /AnyValue"}},
      {"BOM alone", "\xEF\xBB\xBF", {}},
      {"BOM on its own line", "\xEF\xBB\xBF\nUser-Agent: foo", {"2 user-agent foo"}},
      {"only the first BOM", "\xEF\xBB\xBF\xEF\xBB\xBFUser-Agent: foo",
       {"1 unknown \xEF\xBB\xBFUser-Agent|foo"}},
      {"broken BOM is part of the key", "\xEF\x11\xBFUser-Agent: foo",
       {"1 unknown \xEF\x11\xBFUser-Agent|foo"}},
      {"BOM only at the start", "User-Agent: foo\n\xEF\xBB\xBF" "Allow: /x",
       {"1 user-agent foo", "2 unknown \xEF\xBB\xBF" "Allow|/x"}},
  });
}

// §2.2.3: "#" starts a comment anywhere.
TEST(Rfc9309_2_2_3, Comments) {
  RunCases({
      {"comment lines", "# Disallow: /\nDisallow: /foo/quz#qux\nAllow: / # all\n#",
       {"2 disallow /foo/quz", "3 allow /"}},
      {"comment right after the colon", "Disallow:# nothing", {"1 disallow "}},
      {"comment in the key", "Disa#llow: /x", {"1 unknown Disa|"}},
  });
}

// §2.2.4: other records are reported, common misspellings accepted conservatively.
TEST(Rfc9309_2_2_4, OtherRecordsAndSpellings) {
  RunCases({
      {"crawl-delay and sitemap", "Crawl-delay: 5\nSitemap: https://x.example/s.xml",
       {"1 crawl-delay 5", "2 sitemap https://x.example/s.xml"}},
      {"sitemap keeps its URL colon", "sitemap:http://a.example:8080/s.xml",
       {"1 sitemap http://a.example:8080/s.xml"}},
      {"user-agent spellings", "useragent: a\nUser agent: b\nuser_agent: c",
       {"1 user-agent a", "2 user-agent b", "3 unknown user_agent|c"}},
      {"disallow typos restrict", "dissallow: /a\ndissalow: /b\ndisalow: /c",
       {"1 disallow /a", "2 disallow /b", "3 disallow /c"}},
      {"allow typos do not open up", "alow: /a\nallows: /b", {"1 unknown alow|/a", "2 unknown allows|/b"}},
      {"other spellings", "CrawlDelay: 1\nsite-map: /s.xml\nSitemaps: /t.xml",
       {"1 crawl-delay 1", "2 sitemap /s.xml", "3 unknown Sitemaps|/t.xml"}},
      {"keys are matched whole, not as prefixes", "user-agentx: a\ndisallowed: /",
       {"1 unknown user-agentx|a", "2 unknown disallowed|/"}},
      {"unknown key", "Host: example.com\nNoindex: /x", {"1 unknown Host|example.com", "2 unknown Noindex|/x"}},
      {"empty key", ": /x", {"1 unknown |/x"}},
      {"no separator", "garbage", {"1 unknown garbage|"}},
  });
}

// google/robotstxt tolerates a missing colon when the line is exactly two words.
TEST(Rfc9309_2_2_4, MissingColon) {
  RunCases({
      {"two words", "user-agent FooBot\ndisallow /\nallow\t/a",
       {"1 user-agent FooBot", "2 disallow /", "3 allow /a"}},
      {"three words are not a record", "user agent FooBot\ndisallow / x",
       {"1 unknown user agent FooBot|", "2 unknown disallow / x|"}},
  });
}

// §2.5: at least 500 KiB are parsed; what is beyond is ignored and reported.
TEST(Rfc9309_2_5, ParseLimit) {
  EXPECT_EQ(kRobotsParseLimitBytes, 512000u);

  // Lines of exactly 16 bytes: "Disallow: /abcd\n" -> 32000 lines fill the limit exactly.
  std::string exact;
  for (int i = 0; exact.size() < kRobotsParseLimitBytes; ++i) exact += "Disallow: /abcd\n";
  ASSERT_EQ(exact.size(), kRobotsParseLimitBytes);
  {
    const std::vector<std::string> events = Events(exact);
    ASSERT_EQ(events.size(), 32000u);
    EXPECT_EQ(events.back(), "32000 disallow /abcd");
  }
  {
    // One more line: ignored and reported.
    const std::vector<std::string> events = Events(exact + "Disallow: /more\n");
    ASSERT_EQ(events.size(), 32001u);
    EXPECT_EQ(events[31999], "32000 disallow /abcd");
    EXPECT_EQ(events.back(), "limit line=32001 ignored=16");
  }
  {
    // The limit cuts a line: the partial line is dropped, not read as "Allow: /abcdefgh".
    std::string body = exact.substr(0, kRobotsParseLimitBytes - 16) + "Allow: /abcdefghij\n";
    body += "Allow: /z\n";
    const std::vector<std::string> events = Events(body);
    ASSERT_EQ(events.size(), 32000u);
    EXPECT_EQ(events[31998], "31999 disallow /abcd");
    EXPECT_EQ(events.back(), "limit line=32000 ignored=" + std::to_string(19 + 10));
  }
  {
    // The limit falls on the CR of a CRLF: the line is whole.
    std::string body = exact.substr(0, kRobotsParseLimitBytes - 16) + "Disallow: /abcd\r\nAllow: /z";
    ASSERT_EQ(body[kRobotsParseLimitBytes - 1], '\r');
    const std::vector<std::string> events = Events(body);
    ASSERT_EQ(events.size(), 32001u);
    EXPECT_EQ(events[31999], "32000 disallow /abcd");
    EXPECT_EQ(events.back(), "limit line=32001 ignored=10");
  }
  {
    // The limit falls on a line's LF: the line is whole.
    std::string body = exact.substr(0, kRobotsParseLimitBytes - 16) + "Disallow: /abcde\nAllow: /z";
    ASSERT_EQ(body[kRobotsParseLimitBytes], '\n');
    const std::vector<std::string> events = Events(body);
    ASSERT_EQ(events.size(), 32001u);
    EXPECT_EQ(events[31999], "32000 disallow /abcde");
    EXPECT_EQ(events.back(), "limit line=32001 ignored=10");
  }
  {
    // A single line longer than the limit: nothing is parsed.
    const std::string body = "Disallow: /" + std::string(kRobotsParseLimitBytes, 'a');
    EXPECT_THAT(Events(body),
                ElementsAre("limit line=1 ignored=" + std::to_string(body.size())));
  }
}

TEST(Rfc9309_2_5, ArbitraryBytesDoNotCrash) {
  std::string body;
  for (int i = 0; i < 256; ++i) body.push_back(static_cast<char>(i));
  body += std::string("\0\0Disallow: /\0x\n", 16);
  const std::vector<std::string> events = Events(body);
  EXPECT_FALSE(events.empty());
  EXPECT_THAT(Events(std::string(1000, '\r')), IsEmpty());
  EXPECT_THAT(Events(std::string(1000, ':')), ElementsAre("1 unknown |" + std::string(999, ':')));
}

}  // namespace
}  // namespace crawler::robots
