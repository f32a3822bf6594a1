#include "lib/html/script_navigation.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler::html {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct Case {
  std::string code;
  std::vector<std::string> targets;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.code; }

class Targets : public ::testing::TestWithParam<Case> {};

TEST_P(Targets, Found) { EXPECT_EQ(ScriptNavigationTargets(GetParam().code), GetParam().targets); }

// Each way of navigating to a literal.
INSTANTIATE_TEST_SUITE_P(
    Patterns, Targets,
    ::testing::Values(
        Case{"location='/a'", {"/a"}},
        Case{"location = \"/a\";", {"/a"}},
        Case{"location.href='/a'; return false;", {"/a"}},
        Case{"window.location='/a'", {"/a"}},
        Case{"window.location.href = '/a'", {"/a"}},
        Case{"document.location='/a'", {"/a"}},
        Case{"document.location.href='/a'", {"/a"}},
        Case{"self.location.href='/a'", {"/a"}},
        Case{"top.location='/a'", {"/a"}},
        Case{"parent.location.href='/a'", {"/a"}},
        Case{"window.top.location.href='/a'", {"/a"}},
        Case{"location.assign('/a')", {"/a"}},
        Case{"window.location.replace(\"/a\")", {"/a"}},
        Case{"document.location.assign('/a', 1)", {"/a"}},
        Case{"window.open('/a')", {"/a"}},
        Case{"window.open('/a', '_blank', 'width=300')", {"/a"}},
        Case{"self.open('/a');top.open('/b')", {"/a", "/b"}},
        Case{"parent.open('https://other.example/x')", {"https://other.example/x"}},
        // Several statements, conditions, functions, a new line ending the statement.
        Case{"track('x'); if (ok) { location.href = '/a' } else location = '/b';",
             {"/a", "/b"}},
        Case{"setTimeout(function(){location.href='/a'}, 10)", {"/a"}},
        Case{"location.href='/a'\nreturn false", {"/a"}},
        Case{"(location.href = '/a')", {"/a"}},
        Case{"x = location.href = '/a', y", {"/a"}}));

// Quotes and escapes.
INSTANTIATE_TEST_SUITE_P(
    Literals, Targets,
    ::testing::Values(
        Case{"location=`/a`", {"/a"}},
        Case{"location='/it\\'s'", {"/it's"}},
        Case{"location=\"/say \\\"hi\\\"\"", {"/say \"hi\""}},
        Case{"location='\\/a\\\\b'", {"/a\\b"}},
        Case{"location=`/a\\`b`", {"/a`b"}},
        Case{"location='/a\\x3Fb=\\u0031'", {"/a?b=1"}},
        Case{"location=''", {""}},  // a reload: skipped as empty by the extractor
        // Escapes not understood: the literal is skipped, not guessed at.
        Case{"location='/a\\nb'", {}},
        Case{"location='/a\\u{2F}'", {}},
        Case{"location='/caf\\u00e9'", {}},
        Case{"location='/a\\x0A'", {}},
        Case{"location='/a\\qb'", {}},
        Case{"location='/a\\\nb'", {}},
        // A template with substitutions is not a literal.
        Case{"location=`/a/${id}`", {}},
        Case{"location=`/a/${f(`x`)}`; location='/b'", {"/b"}}));

// What is not a navigation to a literal.
INSTANTIATE_TEST_SUITE_P(
    NotLiterals, Targets,
    ::testing::Values(
        Case{"location.href='/a?id='+id", {}},
        Case{"location.href='/a'.replace('a', 'b')", {}},
        Case{"location.href = base + '/a'", {}},
        Case{"location.href = url", {}},
        Case{"location.href = ok ? '/a' : '/b'", {}},
        Case{"location.href = '/a' || '/b'", {}},
        Case{"location.href += '/a'", {}},
        Case{"if (location.href == '/a') x()", {}},
        Case{"location.search = '?a'", {}},
        Case{"location.href.replace('/a')", {}},
        Case{"window['location'] = '/a'", {}},
        Case{"frame.location = '/a'", {}},
        Case{"this.location.href = '/a'", {}},
        Case{"var location = '/a'", {}},
        Case{"let location = '/a'", {}},
        Case{"x = {location: '/a'}", {}},
        Case{"open('/a')", {}},  // document.open in an inline handler
        Case{"document.open('/a')", {}},
        Case{"win.open('/a')", {}},
        Case{"window.open(url)", {}},
        Case{"window.open('/a' + q)", {}},
        Case{"location.assign(url)", {}},
        Case{"window.opener = '/a'", {}}));

// Comments, strings and regular expressions hide what is inside them.
INSTANTIATE_TEST_SUITE_P(
    Lexing, Targets,
    ::testing::Values(
        Case{"// location='/a'\nlocation='/b'", {"/b"}},
        Case{"/* location='/a' */ location='/b'", {"/b"}},
        Case{"alert(\"location='/a'\"); location='/b'", {"/b"}},
        Case{"s = `location='/a'`; location='/b'", {"/b"}},
        Case{"s = s.replace(/'/g, ''); location='/b'", {"/b"}},
        Case{"s = s.replace(/[/']/g, ''); location='/b'", {"/b"}},
        Case{"x = a / b; location='/b'", {"/b"}},
        Case{"return /location='/.test(s) || (location='/b')", {"/b"}},
        // An unterminated string, comment or template: nothing after it is code.
        Case{"location='/a'; x = 'open; location='/b'", {"/a"}},
        Case{"location='/a'; /* location='/b'", {"/a"}},
        Case{"location='/a\nlocation='/b'", {}}));

TEST(ScriptNavigationTargets, ReadsOnlyTheFirstBytes) {
  const std::string padding(kMaxScriptCodeBytes - 20, ' ');
  EXPECT_THAT(ScriptNavigationTargets(padding + "location='/a'"), ElementsAre("/a"));
  // The literal reaches past the cap: unterminated, skipped.
  EXPECT_THAT(ScriptNavigationTargets(padding + "location='/a/very/long/path'"), IsEmpty());
  EXPECT_THAT(ScriptNavigationTargets(std::string(kMaxScriptCodeBytes, ' ') + "location='/a'"),
              IsEmpty());
}

// Hostile code stays linear: deep braces and templates, long runs of operators and slashes.
TEST(ScriptNavigationTargets, HostileCodeIsCheap) {
  std::string nested;
  for (size_t i = 0; i < kMaxScriptCodeBytes / 4; ++i) nested += "`${";
  EXPECT_THAT(ScriptNavigationTargets(nested), IsEmpty());
  EXPECT_THAT(ScriptNavigationTargets(std::string(1 << 20, '{')), IsEmpty());
  EXPECT_THAT(ScriptNavigationTargets(std::string(1 << 20, '/')), IsEmpty());
  std::string many;
  while (many.size() < kMaxScriptCodeBytes) many += "location='/a';";
  EXPECT_EQ(ScriptNavigationTargets(many).size(), kMaxScriptCodeBytes / 14);
}

TEST(JavascriptUrlCode, OnlyJavascriptUrls) {
  EXPECT_EQ(JavascriptUrlCode("javascript:location.href='/a'"), "location.href='/a'");
  EXPECT_EQ(JavascriptUrlCode(" \tJavaScript:void(0)"), "void(0)");
  EXPECT_EQ(JavascriptUrlCode("/javascript:x"), std::nullopt);
  EXPECT_EQ(JavascriptUrlCode("java\nscript:x"), std::nullopt);
  EXPECT_EQ(JavascriptUrlCode("https://example.com/"), std::nullopt);
}

TEST(JavascriptUrlCode, PercentDecodedAndTabsAndNewlinesRemoved) {
  EXPECT_EQ(JavascriptUrlCode("javascript:window.open(%27/a%20b%27)"), "window.open('/a b')");
  EXPECT_EQ(JavascriptUrlCode("javascript:x%2"), "x%2");
  EXPECT_EQ(JavascriptUrlCode("javascript:location=\n'/a'"), "location='/a'");
  EXPECT_THAT(ScriptNavigationTargets(*JavascriptUrlCode("javascript:location=%22/a%22")),
              ElementsAre("/a"));
}

TEST(JavascriptUrlCode, Bounded) {
  const std::string href = "javascript:" + std::string(2 * kMaxScriptCodeBytes, 'x');
  EXPECT_EQ(JavascriptUrlCode(href)->size(), kMaxScriptCodeBytes);
}

}  // namespace
}  // namespace crawler::html
