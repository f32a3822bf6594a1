// Tests of RobotsRules (lib/robots/robots_rules.h): groups, agent selection and matching,
// named after the RFC 9309 sections they pin. Several cases follow the ideas of
// google/robotstxt's published tests (rewritten, not copied).
#include "lib/robots/robots_rules.h"

#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/robots/robots_parser.h"

namespace crawler::robots {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct AccessCase {
  std::string_view name;
  std::string_view robots;
  std::string_view agent;
  std::string_view url;  // absolute URL or path
  bool allowed;
};

void RunCases(const std::vector<AccessCase>& cases) {
  for (const AccessCase& c : cases) {
    const RobotsRules rules = RobotsRules::Parse(c.robots);
    const absl::StatusOr<MatchResult> result = rules.MatchUrl(c.agent, c.url);
    ASSERT_TRUE(result.ok()) << c.name << ": " << result.status();
    EXPECT_EQ(result->allowed, c.allowed)
        << c.name << "\nagent=" << c.agent << " url=" << c.url << "\nrobots.txt:\n" << c.robots;
  }
}

// The rule that decided `path` for `agent`, as "Kind: pattern @line", or "none".
std::string Decider(std::string_view robots, std::string_view agent, std::string_view path) {
  const MatchResult result = RobotsRules::Parse(robots).Match(agent, path);
  if (!result.rule.has_value()) return result.allowed ? "none (allowed)" : "none (disallowed)";
  return std::string(RuleKindName(result.rule->kind)) + ": " + result.rule->pattern + " @" +
         std::to_string(result.rule->line);
}

// ---------------------------------------------------------------------------------------------
// §2.1 Protocol definition: the group structure.

TEST(Rfc9309_2_1, GroupStructure) {
  RunCases({
      {"simple group", "user-agent: FooBot\ndisallow: /\n", "FooBot", "/x", false},
      {"not a record", "foo: FooBot\nbar: /\n", "FooBot", "/x", true},
      {"missing colons tolerated", "user-agent FooBot\ndisallow /\n", "FooBot", "/x", false},
      {"rules before any user-agent are ignored", "disallow: /\nuser-agent: FooBot\nallow: /a\n",
       "FooBot", "/x", true},
      {"rules before any user-agent do not apply to *", "disallow: /\n", "FooBot", "/x", true},
      {"empty lines do not end a group",
       "user-agent: FooBot\n\n\ndisallow: /x\n\n# c\n\ndisallow: /y\n", "FooBot", "/y", false},
      {"empty line between user-agents keeps one group",
       "user-agent: BarBot\n\nuser-agent: FooBot\ndisallow: /\n", "BarBot", "/x", false},
      {"a user-agent after rules starts a new group",
       "user-agent: FooBot\ndisallow: /\nuser-agent: BarBot\nallow: /\n", "BarBot", "/x", true},
      {"... and the first group keeps its rules",
       "user-agent: FooBot\ndisallow: /\nuser-agent: BarBot\nallow: /\n", "FooBot", "/x", false},
      {"leading whitespace", "  user-agent: FooBot\n\tdisallow: /\n", "FooBot", "/x", false},
      {"keys case-insensitive", "USER-AGENT: FooBot\nDISALLOW: /\n", "FooBot", "/x", false},
      {"empty file", "", "FooBot", "/x", true},
      {"only comments", "# nothing here\n#disallow: /\n", "FooBot", "/x", true},
  });
}

TEST(Rfc9309_2_1, RuleValuesAreCaseSensitive) {
  RunCases({
      {"lowercase pattern, uppercase path", "user-agent: FooBot\ndisallow: /x/\n", "FooBot",
       "http://foo.bar/X/page", true},
      {"same case", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", "http://foo.bar/X/page",
       false},
  });
}

// ---------------------------------------------------------------------------------------------
// §2.2.1 The user-agent line.

TEST(Rfc9309_2_2_1, ProductTokenMatching) {
  RunCases({
      {"case-insensitive line value", "user-agent: foobot\ndisallow: /\n", "FooBot", "/x", false},
      {"case-insensitive crawler token", "user-agent: FooBot\ndisallow: /\n", "FOOBOT", "/x",
       false},
      {"version after the token on the line", "user-agent: FooBot/1.0\ndisallow: /\n", "FooBot",
       "/x", false},
      {"comment-like text after the token", "user-agent: FooBot (+https://x)\ndisallow: /\n",
       "FooBot", "/x", false},
      {"the crawler's token may carry a version", "user-agent: FooBot\ndisallow: /\n",
       "FooBot/2.1", "/x", false},
      {"token is compared whole, not as a prefix", "user-agent: Foo\ndisallow: /\n", "FooBot",
       "/x", true},
      {"... nor as a substring", "user-agent: FooBotExtra\ndisallow: /\n", "FooBot", "/x", true},
      {"underscore and hyphen are token characters", "user-agent: Foo_Bot-X\ndisallow: /\n",
       "foo_bot-x", "/x", false},
      {"a space ends the token", "user-agent: Foo Bot\ndisallow: /\n", "Foo", "/x", false},
      {"a value starting with a non-token character names nobody",
       "user-agent: /FooBot\ndisallow: /\n", "FooBot", "/x", true},
      {"empty user-agent names nobody", "user-agent:\ndisallow: /\n", "FooBot", "/x", true},
  });
}

TEST(Rfc9309_2_2_1, GroupsForOneAgentAreCombined) {
  // The RFC's example: two ExampleBot groups are merged.
  constexpr std::string_view kRobots =
      "user-agent: ExampleBot\n"
      "disallow: /foo\n"
      "disallow: /bar\n"
      "\n"
      "user-agent: ExampleBot\n"
      "disallow: /baz\n";
  RunCases({
      {"first group", kRobots, "ExampleBot", "/foo", false},
      {"first group 2", kRobots, "ExampleBot", "/bar", false},
      {"second group", kRobots, "ExampleBot", "/baz", false},
      {"not listed", kRobots, "ExampleBot", "/qux", true},
      {"other agent", kRobots, "OtherBot", "/foo", true},
  });
  EXPECT_EQ(Decider(kRobots, "examplebot", "/baz/x"), "Disallow: /baz @6");
}

TEST(Rfc9309_2_2_1, CombinedGroupsUseLongestMatchAcrossGroups) {
  constexpr std::string_view kRobots =
      "user-agent: FooBot\n"
      "allow: /a/b\n"
      "user-agent: BarBot\n"
      "disallow: /\n"
      "user-agent: FooBot\n"
      "disallow: /a\n";
  EXPECT_EQ(Decider(kRobots, "FooBot", "/a/b/c"), "Allow: /a/b @2");
  EXPECT_EQ(Decider(kRobots, "FooBot", "/a/x"), "Disallow: /a @6");
  EXPECT_EQ(Decider(kRobots, "FooBot", "/z"), "none (allowed)");
}

TEST(Rfc9309_2_2_1, WildcardGroupIsTheFallback) {
  RunCases({
      {"* applies when no group names the agent", "user-agent: *\ndisallow: /\n", "FooBot", "/x",
       false},
      {"a named group replaces * entirely", "user-agent: *\ndisallow: /\nuser-agent: FooBot\nallow: /a\n",
       "FooBot", "/x", true},
      {"named group listed before *", "user-agent: FooBot\ndisallow: /\nuser-agent: *\nallow: /\n",
       "FooBot", "/x", false},
      {"* in the same group as a named agent",
       "user-agent: BarBot\nuser-agent: *\ndisallow: /\n", "FooBot", "/x", false},
      {"several * groups are combined",
       "user-agent: *\ndisallow: /a\nuser-agent: FooBot\nallow: /\nuser-agent: *\ndisallow: /b\n",
       "BarBot", "/b", false},
      {"* with trailing whitespace", "user-agent: *   \ndisallow: /\n", "FooBot", "/x", false},
      {"* followed by a comment", "user-agent: * # everyone\ndisallow: /\n", "FooBot", "/x", false},
      {"*bot is not the wildcard", "user-agent: *bot\ndisallow: /\n", "FooBot", "/x", true},
      {"no named group and no *: allowed", "user-agent: BarBot\ndisallow: /\n", "FooBot", "/x",
       true},
      {"an empty crawler token gets the * group", "user-agent: *\ndisallow: /\n", "", "/x", false},
      {"a named group with no rules allows everything",
       "user-agent: *\ndisallow: /\nuser-agent: FooBot\n", "FooBot", "/x", true},
  });
}

// ---------------------------------------------------------------------------------------------
// §2.2.2 The allow and disallow lines.

TEST(Rfc9309_2_2_2, LongestMatchWins) {
  RunCases({
      {"equal length: allow wins", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/page.html\n",
       "FooBot", "/x/page.html", true},
      {"equal length, disallow first: allow still wins",
       "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot",
       "/x/page.html", true},
      {"longer disallow", "user-agent: FooBot\nallow: /x/\ndisallow: /x/page.html\n", "FooBot",
       "/x/page.html", false},
      {"longer allow", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot",
       "/x/page.html", true},
      {"wildcard pattern counts its octets", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
       "FooBot", "/page.html", false},
      {"... and loses to a longer allow", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
       "FooBot", "/x/page.html", true},
      {"allow / and disallow / tie", "user-agent: FooBot\nallow: /\ndisallow: /\n", "FooBot",
       "/x", true},
      {"no matching rule: allowed", "user-agent: FooBot\ndisallow: /private\n", "FooBot",
       "/public", true},
      {"rule order is irrelevant",
       "user-agent: FooBot\ndisallow: /\nallow: /public\n", "FooBot", "/public/a", true},
  });
}

// "Most octets" is counted on the canonical pattern (escapes of unreserved characters decoded,
// non-ASCII escaped), so equivalent spellings of a pattern weigh the same; "$" counts one.
TEST(Rfc9309_2_2_2, SpecificityCountsCanonicalOctets) {
  RunCases({
      {"decoded escape is shorter", "user-agent: *\nallow: /%61bc\ndisallow: /abcd\n", "x",
       "/abcde", false},
      {"equivalent spellings tie, allow wins", "user-agent: *\ndisallow: /abc\nallow: /%61bc\n",
       "x", "/abc", true},
      {"non-ASCII counts escaped", "user-agent: *\nallow: /ツ\ndisallow: /%E3%83%84\n", "x",
       "/ツ", true},
      {"non-ASCII outweighs a longer-looking ASCII pattern",
       "user-agent: *\nallow: /ツ\ndisallow: /*bcdefgh\n", "x", "/ツbcdefgh", true},
      {"$ counts", "user-agent: *\nallow: /a$\ndisallow: /a\n", "x", "/a", true},
  });
}

TEST(Rfc9309_2_2_2, EmptyRulesMatchNothing) {
  RunCases({
      {"empty disallow", "user-agent: FooBot\ndisallow:\n", "FooBot", "/x", true},
      {"empty disallow with a comment", "user-agent: FooBot\ndisallow: # none\n", "FooBot", "/x",
       true},
      {"empty allow does not override", "user-agent: FooBot\nallow:\ndisallow: /\n", "FooBot",
       "/x", false},
      {"empty disallow does not end the agent's group rules",
       "user-agent: FooBot\ndisallow:\ndisallow: /y\n", "FooBot", "/y", false},
      {"empty disallow still ends the user-agent list",
       "user-agent: FooBot\ndisallow:\nuser-agent: BarBot\ndisallow: /\n", "FooBot", "/x", true},
  });
}

TEST(Rfc9309_2_2_2, ReportsTheDecidingRule) {
  constexpr std::string_view kRobots =
      "User-agent: FooBot\n"     // 1
      "Disallow: /private\n"     // 2
      "Allow: /private/public\n" // 3
      "Disallow: /private\n"     // 4: a duplicate; the earlier line is reported
      "Allow: /tie\n"            // 5
      "Disallow: /tie\n";        // 6
  EXPECT_EQ(Decider(kRobots, "FooBot", "/private/a"), "Disallow: /private @2");
  EXPECT_EQ(Decider(kRobots, "FooBot", "/private/public/x"), "Allow: /private/public @3");
  EXPECT_EQ(Decider(kRobots, "FooBot", "/tie"), "Allow: /tie @5");
  EXPECT_EQ(Decider(kRobots, "FooBot", "/other"), "none (allowed)");
  // The pattern is reported as written, even when it was canonicalised for matching.
  EXPECT_EQ(Decider("User-agent: *\nDisallow: /%7efoo/ツ$\n", "x", "/~foo/%E3%83%84"),
            "Disallow: /%7efoo/ツ$ @2");
}

// §2.2.2: "/robots.txt" is implicitly allowed.
TEST(Rfc9309_2_2_2, RobotsTxtIsAlwaysAllowed) {
  constexpr std::string_view kRobots = "user-agent: *\ndisallow: /\ndisallow: /robots.txt\n";
  RunCases({
      {"path", kRobots, "FooBot", "/robots.txt", true},
      {"url", kRobots, "FooBot", "https://example.com/robots.txt", true},
      {"with a query", kRobots, "FooBot", "https://example.com/robots.txt?x=1", true},
      {"escaped dot is the same path", kRobots, "FooBot", "/robots%2Etxt", true},
      {"other files are not", kRobots, "FooBot", "/robots.txt.bak", false},
      {"nor in subdirectories", kRobots, "FooBot", "/a/robots.txt", false},
  });
  EXPECT_TRUE(RobotsRules::DisallowAll().Match("FooBot", "/robots.txt").allowed);
}

// §2.2.2: percent-encoding equivalence, including the RFC's table.
TEST(Rfc9309_2_2_2, PercentEncoding) {
  RunCases({
      // The table of §2.2.2 (rows 1, 3, 4, 5; row 2 is a documented deviation, below).
      {"plain query", "user-agent: *\ndisallow: /foo/bar?baz=quz\n", "x", "/foo/bar?baz=quz", false},
      {"UTF-8 pattern vs encoded path", "user-agent: *\ndisallow: /foo/bar/ツ\n", "x",
       "/foo/bar/%E3%83%84", false},
      {"UTF-8 pattern vs raw UTF-8 path", "user-agent: *\ndisallow: /foo/bar/ツ\n", "x",
       "/foo/bar/ツ", false},
      {"encoded pattern vs raw UTF-8 path", "user-agent: *\ndisallow: /foo/bar/%E3%83%84\n", "x",
       "/foo/bar/ツ", false},
      {"encoded pattern vs encoded path", "user-agent: *\ndisallow: /foo/bar/%E3%83%84\n", "x",
       "/foo/bar/%E3%83%84", false},
      {"lowercase hex is the same", "user-agent: *\ndisallow: /foo/bar/%e3%83%84\n", "x",
       "/foo/bar/%E3%83%84", false},
      {"encoded unreserved in the pattern", "user-agent: *\ndisallow: /foo/bar/%62%61%7A\n", "x",
       "/foo/bar/baz", false},
      {"encoded unreserved in the path", "user-agent: *\ndisallow: /foo/bar/baz\n", "x",
       "/foo/bar/%62%61%7a", false},
      {"tilde", "user-agent: *\ndisallow: /~joe\n", "x", "/%7Ejoe/x", false},
      // Reserved characters are not equivalent to their escapes (RFC 3986 §2.2).
      {"%2F is not /", "user-agent: *\ndisallow: /a/b\n", "x", "/a%2Fb", true},
      {"/ is not %2F", "user-agent: *\ndisallow: /a%2Fb\n", "x", "/a/b", true},
      {"%2F matches %2f", "user-agent: *\ndisallow: /a%2Fb\n", "x", "/a%2fb", false},
      {"row 2 deviation: ':' vs %3A", "user-agent: *\ndisallow: /foo/bar?baz=https://foo.bar\n",
       "x", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", true},
      {"reserved characters match as written",
       "user-agent: *\ndisallow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", "x",
       "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", false},
      // A stray "%" is compared as "%25".
      {"stray percent", "user-agent: *\ndisallow: /100%\n", "x", "/100%25", false},
      {"stray percent in the path", "user-agent: *\ndisallow: /100%25\n", "x", "/100%", false},
      {"truncated escape", "user-agent: *\ndisallow: /a%4\n", "x", "/a%4", false},
      // Space and controls are compared escaped.
      {"space", "user-agent: *\ndisallow: /a b\n", "x", "/a%20b", false},
  });
}

// ---------------------------------------------------------------------------------------------
// §2.2.3 Special characters.

TEST(Rfc9309_2_2_3, Wildcard) {
  constexpr std::string_view kRobots =
      "User-agent: FooBot\n"
      "Disallow: /foo/bar/quz\n"
      "Allow: /foo/*/qux\n";
  RunCases({
      {"literal rule", kRobots, "FooBot", "/foo/bar/quz", false},
      {"wildcard, no match", kRobots, "FooBot", "/foo/quz", true},
      {"wildcard spans empty", kRobots, "FooBot", "/foo//qux", true},
      {"wildcard spans one segment", kRobots, "FooBot", "/foo/bax/quz", true},
      {"star at start", "User-agent: *\nDisallow: *.gif\n", "x", "/a/b.gif", false},
      {"star only", "User-agent: *\nDisallow: *\n", "x", "/anything", false},
      {"double star", "User-agent: *\nDisallow: /a**b\n", "x", "/a-x-b", false},
      {"star needs the rest", "User-agent: *\nDisallow: /a*b\n", "x", "/a-x-c", true},
      {"star before query", "User-agent: *\nDisallow: /*?sid=\n", "x", "/page?x=1&sid=2", true},
      {"star before query 2", "User-agent: *\nDisallow: /*?sid=\n", "x", "/page?sid=2", false},
      {"leftmost middle segment", "User-agent: *\nDisallow: /*a*b$\n", "x", "/xaab", false},
  });
}

TEST(Rfc9309_2_2_3, EndAnchor) {
  constexpr std::string_view kRobots =
      "User-agent: FooBot\n"
      "Disallow: /foo/bar$\n"
      "Allow: /foo/bar/qux\n";
  RunCases({
      {"exact", kRobots, "FooBot", "/foo/bar", false},
      {"longer allow", kRobots, "FooBot", "/foo/bar/qux", true},
      {"trailing slash is more", kRobots, "FooBot", "/foo/bar/", true},
      {"longer path", kRobots, "FooBot", "/foo/bar/baz", true},
      {"query is part of the path", kRobots, "FooBot", "/foo/bar?x", true},
      {"gif anywhere", "User-agent: *\nDisallow: /*.gif$\n", "x", "/a/b.gif", false},
      {"gif with query", "User-agent: *\nDisallow: /*.gif$\n", "x", "/a/b.gif?x", true},
      {"gif in the middle", "User-agent: *\nDisallow: /*.gif$\n", "x", "/a.gif/b", true},
      {"anchor after star sees the whole tail", "User-agent: *\nDisallow: /*ab$\n", "x",
       "/abab", false},
      {"$ in the middle is literal", "User-agent: *\nDisallow: /a$b\n", "x", "/a$b", false},
      {"$ in the middle is not an anchor", "User-agent: *\nDisallow: /a$b\n", "x", "/a", true},
      {"bare $ anchors the empty pattern", "User-agent: *\nDisallow: $\n", "x", "/", true},
      {"/$ is just the root", "User-agent: *\nDisallow: /$\n", "x", "/", false},
      {"/$ not below it", "User-agent: *\nDisallow: /$\n", "x", "/a", true},
  });
}

// §2.2.3: literal "*" and "$" in URLs are named by their escapes.
TEST(Rfc9309_2_2_3, EscapedSpecialCharacters) {
  RunCases({
      {"%2A names a literal star", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "x",
       "https://www.example.com/path/file-with-a-*.html", false},
      {"%2A is not a wildcard", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "x",
       "https://www.example.com/path/file-with-a-b.html", true},
      {"%24 names a literal dollar", "User-agent: *\nDisallow: /path/foo-%24\n", "x",
       "https://www.example.com/path/foo-$", false},
      {"%24 is not an anchor", "User-agent: *\nDisallow: /path/foo-%24\n", "x",
       "https://www.example.com/path/foo-", true},
      {"a literal star in the path matches the star of a pattern", "User-agent: *\nDisallow: /a*\n", "x",
       "/a*", false},
  });
}

// ---------------------------------------------------------------------------------------------
// §2.2.4 Other records.

TEST(Rfc9309_2_2_4, OtherRecordsDoNotEndGroups) {
  RunCases({
      {"sitemap between user-agents",
       "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: FooBot\nDisallow: /\n",
       "BarBot", "/x", false},
      {"unknown line between user-agents",
       "User-agent: BarBot\nInvalid-Unknown-Line: 0\nUser-agent: FooBot\nDisallow: /\n", "BarBot",
       "/x", false},
      {"crawl-delay between user-agents",
       "User-agent: BarBot\nCrawl-delay: 3\nUser-agent: FooBot\nDisallow: /\n", "BarBot", "/x",
       false},
      {"'Sitemaps' between rules",
       "User-agent: FooBot\nDisallow: /a\nSitemaps: /s.xml\nDisallow: /b\n", "FooBot", "/b", false},
  });
}

TEST(Rfc9309_2_2_4, CrawlDelay) {
  constexpr std::string_view kRobots =
      "User-agent: *\n"
      "Crawl-delay: 10\n"
      "Disallow: /a\n"
      "User-agent: FooBot\n"
      "Disallow: /x\n"
      "Crawl-delay: 0.5\n"
      "User-agent: BarBot\n"
      "Disallow: /y\n"
      "User-agent: BazBot\n"
      "Crawl-delay: 2\n"
      "Disallow: /z\n"
      "User-agent: BazBot\n"
      "Crawl-delay: 7\n"
      "Disallow: /w\n"
      "User-agent: QuxBot\n"
      "Disallow: /q\n"
      "Crawl-delay: soon\n"
      "Crawl-delay: -1\n"
      "Crawl-delay: 1e3\n"
      "Crawl-delay: 1.2.3\n"
      "Crawl-delay: .\n"
      "Crawl-delay: 5s\n";
  const RobotsRules rules = RobotsRules::Parse(kRobots);
  EXPECT_EQ(rules.CrawlDelay("FooBot"), absl::Milliseconds(500));
  EXPECT_EQ(rules.CrawlDelay("OtherBot"), absl::Seconds(10)) << "from the * group";
  EXPECT_EQ(rules.CrawlDelay("BarBot"), std::nullopt) << "own group without delay, no fallback";
  EXPECT_EQ(rules.CrawlDelay("bazbot"), absl::Seconds(7)) << "largest of the combined groups";
  EXPECT_EQ(rules.CrawlDelay("QuxBot"), std::nullopt) << "invalid values are ignored";

  EXPECT_EQ(RobotsRules::Parse("Crawl-delay: 5\nUser-agent: *\n").CrawlDelay("x"), std::nullopt)
      << "outside any group";
  EXPECT_EQ(RobotsRules::Parse("User-agent: FooBot\nCrawl-delay: 5\n").CrawlDelay("x"),
            std::nullopt);
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: 2.\n").CrawlDelay("x"),
            absl::Seconds(2));
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: .25\n").CrawlDelay("x"),
            absl::Milliseconds(250));
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: 99999999999999999999999\n")
                .CrawlDelay("x"),
            absl::InfiniteDuration());
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: 3\nCrawl-delay: 1\n").CrawlDelay("x"),
            absl::Seconds(3))
      << "the largest in one group";
  EXPECT_EQ(RobotsRules::AllowAll().CrawlDelay("x"), std::nullopt);
}

// Crawl-delay is not a rule, so it does not end a group's user-agent list (§2.1, §2.2.4): the
// two "groups" below are one group naming A and B, as google/robotstxt also reads it.
TEST(Rfc9309_2_2_4, CrawlDelayDoesNotSplitGroups) {
  const RobotsRules rules =
      RobotsRules::Parse("User-agent: A\nCrawl-delay: 1\n\nUser-agent: B\nCrawl-delay: 5\n");
  EXPECT_EQ(rules.CrawlDelay("A"), absl::Seconds(5));
  EXPECT_EQ(rules.CrawlDelay("B"), absl::Seconds(5));
  EXPECT_EQ(rules.CrawlDelay("C"), std::nullopt);
}

TEST(Rfc9309_2_2_4, Sitemaps) {
  const RobotsRules rules = RobotsRules::Parse(
      "Sitemap: https://a.example/one.xml\n"
      "User-agent: *\n"
      "Sitemap: https://a.example/two.xml # comment\n"
      "Disallow: /\n"
      "sitemap:https://a.example/one.xml\n"
      "Sitemap:\n"
      "Site-map: /relative.xml\n");
  EXPECT_THAT(rules.Sitemaps(), ElementsAre("https://a.example/one.xml",
                                            "https://a.example/two.xml", "/relative.xml"));
  EXPECT_THAT(RobotsRules::Parse("").Sitemaps(), IsEmpty());
  EXPECT_THAT(RobotsRules::DisallowAll().Sitemaps(), IsEmpty());
}

// ---------------------------------------------------------------------------------------------
// §2.3.1 blanket decisions used by the status policy.

TEST(Rfc9309_2_3_1, BlanketRules) {
  EXPECT_TRUE(RobotsRules::AllowAll().Match("FooBot", "/x").allowed);
  EXPECT_TRUE(RobotsRules().Match("FooBot", "/x").allowed);
  const MatchResult disallowed = RobotsRules::DisallowAll().Match("FooBot", "/x");
  EXPECT_FALSE(disallowed.allowed);
  EXPECT_FALSE(disallowed.rule.has_value());
  EXPECT_FALSE(RobotsRules::DisallowAll().Match("", "").allowed);
}

// ---------------------------------------------------------------------------------------------
// §2.5 Limits.

TEST(Rfc9309_2_5, RulesBeyondTheLimitAreIgnored) {
  std::string body = "User-agent: *\nDisallow: /first\n";
  while (body.size() < kRobotsParseLimitBytes) body += "# padding padding padding padding\n";
  body += "Disallow: /late\n";
  const RobotsRules rules = RobotsRules::Parse(body);
  EXPECT_FALSE(rules.Match("x", "/first").allowed);
  EXPECT_TRUE(rules.Match("x", "/late").allowed);
  EXPECT_GT(rules.ignored_bytes(), 0u);
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\n").ignored_bytes(), 0u);
}

TEST(Rfc9309_2_5, PathologicalPatternsAreFast) {
  // A backtracking matcher takes exponential time here; ours is linear in the segments.
  std::string pattern = "/";
  for (int i = 0; i < 2000; ++i) pattern += "*a";
  pattern += "*b";
  const std::string path = "/" + std::string(20000, 'a');
  std::string body = "User-agent: *\n";
  for (int i = 0; i < 20; ++i) body += "Disallow: " + pattern + "\n";
  body += "Disallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b$\n";
  const RobotsRules rules = RobotsRules::Parse(body);
  EXPECT_TRUE(rules.Match("x", path).allowed);
  EXPECT_FALSE(rules.Match("x", path + "b").allowed);
}

TEST(Rfc9309_2_5, LongSegmentsAreSearchedInLinearTime) {
  // A search that compares at every position costs |path| x |segment| per rule here (about
  // 2e9 octet comparisons for the file); the matcher's search is linear in |path| + |segment|.
  const std::string segment = std::string(4000, 'a') + "b";
  std::string body = "User-agent: *\n";
  for (int i = 0; i < 120; ++i) body += "Disallow: /*" + segment + std::to_string(i) + "\n";
  ASSERT_LT(body.size(), kRobotsParseLimitBytes);
  const RobotsRules rules = RobotsRules::Parse(body);
  const std::string path = "/" + std::string(8000, 'a');
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(rules.Match("x", path).allowed);
  EXPECT_FALSE(rules.Match("x", path + "b119").allowed);
  EXPECT_FALSE(rules.Match("x", path + "b0").allowed);
}

// ---------------------------------------------------------------------------------------------
// §5.1 Simple example (the RFC's file, with the outcomes the RFC describes).

TEST(Rfc9309_5_1, SimpleExample) {
  constexpr std::string_view kRobots =
      "User-Agent: *\n"
      "Disallow: *.gif$\n"
      "Disallow: /example/\n"
      "Allow: /publications/\n"
      "\n"
      "User-Agent: foobot\n"
      "Disallow:/\n"
      "Allow:/example/page.html\n"
      "Allow:/example/allowed.gif\n"
      "\n"
      "User-Agent: barbot\n"
      "User-Agent: bazbot\n"
      "Disallow: /example/page.html\n"
      "\n"
      "User-Agent: quxbot\n"
      "\n"
      "EOF\n";
  RunCases({
      // "*": no .gif, nothing in /example/, publications allowed.
      {"* gif", kRobots, "SomeBot", "https://www.example.com/images/a.gif", false},
      {"* gif with query", kRobots, "SomeBot", "https://www.example.com/a.gif?x", true},
      {"* example", kRobots, "SomeBot", "https://www.example.com/example/page.html", false},
      {"* publications", kRobots, "SomeBot", "https://www.example.com/publications/x", true},
      {"* elsewhere", kRobots, "SomeBot", "https://www.example.com/", true},
      // foobot: only its two allowed files.
      {"foobot root", kRobots, "foobot", "https://www.example.com/", false},
      {"foobot page", kRobots, "foobot", "https://www.example.com/example/page.html", true},
      {"foobot gif", kRobots, "foobot", "https://www.example.com/example/allowed.gif", true},
      {"foobot other", kRobots, "foobot", "https://www.example.com/publications/", false},
      // barbot and bazbot: one group.
      {"barbot page", kRobots, "barbot", "https://www.example.com/example/page.html", false},
      {"bazbot page", kRobots, "bazbot", "https://www.example.com/example/page.html", false},
      {"barbot gif is fine (not the * group)", kRobots, "barbot",
       "https://www.example.com/a.gif", true},
      {"bazbot elsewhere", kRobots, "BazBot", "https://www.example.com/example/", true},
      // quxbot: an empty group, everything allowed, * does not apply.
      {"quxbot gif", kRobots, "quxbot", "https://www.example.com/a.gif", true},
      {"quxbot example", kRobots, "quxbot", "https://www.example.com/example/page.html", true},
  });
}

// §5.2 Longest match.
TEST(Rfc9309_5_2, LongestMatchExample) {
  constexpr std::string_view kRobots =
      "User-Agent: foobot\n"
      "Allow: /example/page/\n"
      "Disallow: /example/page/disallowed.gif\n";
  RunCases({
      {"page dir", kRobots, "foobot", "https://www.example.com/example/page/", true},
      {"page file", kRobots, "foobot", "https://www.example.com/example/page/x.html", true},
      {"gif", kRobots, "foobot", "https://www.example.com/example/page/disallowed.gif", false},
  });
}

// ---------------------------------------------------------------------------------------------
// URL handling and the value's properties.

TEST(RobotsRules, PathAndQuery) {
  struct Case {
    std::string_view url;
    std::string_view path;
  };
  for (const Case& c : std::vector<Case>{
           {"https://example.com", "/"},
           {"https://example.com/", "/"},
           {"https://example.com?q=1", "/?q=1"},
           {"https://example.com#f", "/"},
           {"https://user:pw@example.com:8080/a/b?c=d#e", "/a/b?c=d"},
           {"HTTP://example.com/A", "/A"},
           {"//example.com/a", "/a"},
           {"/a/b?c", "/a/b?c"},
           {"/a#b?c", "/a"},
           {"/", "/"},
       }) {
    const absl::StatusOr<std::string> path = RobotsRules::PathAndQuery(c.url);
    ASSERT_TRUE(path.ok()) << c.url << ": " << path.status();
    EXPECT_EQ(*path, c.path) << c.url;
  }
  for (std::string_view bad : {"", "example.com/a", "a/b", "://x/y", "1http://x/y", "ht tp://x/"}) {
    EXPECT_EQ(RobotsRules::PathAndQuery(bad).status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
    EXPECT_FALSE(RobotsRules::AllowAll().MatchUrl("x", bad).ok()) << bad;
  }
}

TEST(RobotsRules, EmptyPathIsRoot) {
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: /$\n");
  EXPECT_FALSE(rules.Match("x", "").allowed);
}

TEST(RobotsRules, CopiesShareOneImmutableValueAcrossThreads) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: *\nDisallow: /private\nAllow: /private/public\nCrawl-delay: 1\n");
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([copy = rules, &wrong, t] {
      for (int i = 0; i < 2000; ++i) {
        if (copy.Match("bot", "/private/x").allowed) ++wrong[t];
        if (!copy.Match("bot", "/private/public/x").allowed) ++wrong[t];
        if (copy.CrawlDelay("bot") != absl::Seconds(1)) ++wrong[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_THAT(wrong, ElementsAre(0, 0, 0, 0));
}

}  // namespace
}  // namespace crawler::robots
