// The oracle must itself be right: RFC 3986 §5.4 reference resolution examples.
#include "tests/unit/websim/reference_crawler.h"

#include "gtest/gtest.h"

namespace crawler::websim::testing_support {
namespace {

TEST(WebsimRfc3986_5_4, NormalAndAbnormalExamples) {
  const std::string base = "http://a/b/c/d;p?q";
  const std::pair<const char*, const char*> cases[] = {
      {"g", "http://a/b/c/g"},        {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},      {"/g", "http://a/g"},
      {"//g", "http://g"},            {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},    {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"},    {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},         {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},          {"../", "http://a/b/"},
      {"../g", "http://a/b/g"},       {"../..", "http://a/"},
      {"../../g", "http://a/g"},      {"../../../g", "http://a/g"},
      {"/./g", "http://a/g"},         {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},     {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},   {"g;x=1/../y", "http://a/b/c/y"},
  };
  for (const auto& [ref, want] : cases) EXPECT_EQ(Resolve(base, ref), want) << ref;
}

TEST(WebsimCanonical, LowerCaseHostDropPortAndFragment) {
  EXPECT_EQ(CanonicalHttpUrl("HTTP://H1.Websim.TEST:80/a?b#c"), "http://h1.websim.test/a?b");
  EXPECT_EQ(CanonicalHttpUrl("http://h1"), "http://h1/");
  EXPECT_FALSE(CanonicalHttpUrl("mailto:x@y").has_value());
  EXPECT_FALSE(CanonicalHttpUrl("https://h1/").has_value());
}

TEST(WebsimGumbo, ExtractsHrefAndNofollow) {
  auto links = ExtractLinks(
      "<p><A HREF='/a?x=1&amp;y=2'>a</A><a rel=\"External NOFOLLOW\" href=b>b</a><a>c</a>");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].href, "/a?x=1&y=2");
  EXPECT_FALSE(links[0].nofollow);
  EXPECT_EQ(links[1].href, "b");
  EXPECT_TRUE(links[1].nofollow);
}

}  // namespace
}  // namespace crawler::websim::testing_support
