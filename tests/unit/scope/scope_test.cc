#include "lib/scope/scope.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/url/canonical_url.h"
#include "lib/url/public_suffix_list.h"
#include "lib/url/url.h"

namespace crawler::scope {
namespace {

url::Url U(const std::string& s) {
  absl::StatusOr<url::Url> u = url::Url::Parse(s);
  EXPECT_TRUE(u.ok()) << s;
  return *u;
}

Verdict CheckUrl(const Scope& scope, const std::string& s, uint32_t depth = 0) {
  const url::Url u = U(s);
  return scope.Check(u, u.href(), depth);
}

// scope.h: "gov.si" or ".gov.si" admits gov.si and every host under it, label-wise.
TEST(Scope_AllowedHostSuffixes, SuffixAdmitsTheDomainAndEveryHostUnderIt) {
  for (const char* suffix : {"gov.si", ".gov.si", "GOV.SI.", ".gov.si."}) {
    absl::StatusOr<Scope> scope = Scope::Create({.allowed_host_suffixes = {suffix}}, {}, nullptr);
    ASSERT_TRUE(scope.ok()) << suffix << scope.status();
    EXPECT_EQ(CheckUrl(*scope, "https://gov.si/"), Verdict::kInScope) << suffix;
    EXPECT_EQ(CheckUrl(*scope, "https://www.gov.si/a"), Verdict::kInScope) << suffix;
    EXPECT_EQ(CheckUrl(*scope, "http://a.b.c.gov.si:8080/"), Verdict::kInScope) << suffix;
    EXPECT_EQ(CheckUrl(*scope, "https://evilgov.si/"), Verdict::kHostNotAllowed) << suffix;
    EXPECT_EQ(CheckUrl(*scope, "https://gov.si.evil.com/"), Verdict::kHostNotAllowed) << suffix;
    EXPECT_EQ(CheckUrl(*scope, "https://example.org/"), Verdict::kHostNotAllowed) << suffix;
  }
}

TEST(Scope_AllowedHostSuffixes, SeveralSuffixesAndIdna) {
  absl::StatusOr<Scope> scope =
      Scope::Create({.allowed_host_suffixes = {"example.org", "bücher.de"}}, {}, nullptr);
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(CheckUrl(*scope, "https://x.example.org/"), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://www.xn--bcher-kva.de/"), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://www.bücher.de/"), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://example.com/"), Verdict::kHostNotAllowed);
}

TEST(Scope_AllowedHostSuffixes, BadSuffixIsAClearError) {
  for (const char* bad : {"", ".", "..", "a b.com", "exa mple"}) {
    absl::StatusOr<Scope> scope = Scope::Create({.allowed_host_suffixes = {bad}}, {}, nullptr);
    EXPECT_EQ(scope.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

// Same-site: registrable domain of a seed (PSL), so a.example.co.uk and b.example.co.uk are one
// site but other.co.uk is not.
TEST(Scope_SameSiteOnly, RegistrableDomainOfTheSeeds) {
  absl::StatusOr<url::PublicSuffixList> psl = url::PublicSuffixList::LoadDefault();
  ASSERT_TRUE(psl.ok()) << psl.status();
  absl::StatusOr<Scope> scope =
      Scope::Create({.same_site_only = true},
                    {U("https://www.example.co.uk/"), U("http://blog.example.org/")}, &*psl);
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(CheckUrl(*scope, "https://shop.example.co.uk/x"), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://example.org/"), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://other.co.uk/"), Verdict::kOtherSite);
  EXPECT_EQ(CheckUrl(*scope, "https://example.com/"), Verdict::kOtherSite);
  EXPECT_EQ(Scope::Create({.same_site_only = true}, {}, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Scope_Patterns, IncludeThenExclude) {
  absl::StatusOr<Scope> scope = Scope::Create(
      {.include_patterns = {"/docs/", "/blog/"}, .exclude_patterns = {"\\.pdf$", "[?&]print="}},
      {}, nullptr);
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(CheckUrl(*scope, "https://a.test/docs/x.html"), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://a.test/blog/"), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://a.test/shop/"), Verdict::kNotIncluded);
  EXPECT_EQ(CheckUrl(*scope, "https://a.test/docs/x.pdf"), Verdict::kExcluded);
  EXPECT_EQ(CheckUrl(*scope, "https://a.test/docs/x?a=1&print=1"), Verdict::kExcluded);
  EXPECT_EQ(Scope::Create({.include_patterns = {"("}}, {}, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Scope_Patterns, AHugeBadPatternIsNamedNotEchoed) {
  // A pattern of megabytes (pasted by mistake, or sent to the Admin API on purpose) makes an
  // error of a few hundred bytes: it travels in a reply's metadata, which has a small limit.
  const std::string huge = "(" + std::string(1 << 20, 'a');
  absl::Status status = Scope::Create({.exclude_patterns = {"x", huge}}, {}, nullptr).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(status.message().size(), 1024u) << status.message().substr(0, 200);
  EXPECT_NE(status.message().find("exclude pattern"), std::string::npos) << status;
  EXPECT_NE(status.message().find("(aaaa"), std::string::npos) << "starts like the pattern";
}

TEST(Scope_Patterns, PathologicalPatternOnLongUrlIsLinear) {
  // (a+)+$ backtracks exponentially in std::regex; RE2 answers immediately.
  // The length cap (a trap defence) would refuse the URL before the pattern runs.
  absl::StatusOr<Scope> scope =
      Scope::Create({.exclude_patterns = {"(a+)+b$"}, .max_url_bytes = 0}, {}, nullptr);
  ASSERT_TRUE(scope.ok());
  const std::string long_url = "https://a.test/" + std::string(50000, 'a') + "c";
  EXPECT_EQ(CheckUrl(*scope, long_url), Verdict::kInScope);
}

TEST(Scope_MaxDepth, SeedsAreDepthZero) {
  absl::StatusOr<Scope> scope = Scope::Create({.max_depth = 2}, {}, nullptr);
  ASSERT_TRUE(scope.ok());
  EXPECT_EQ(CheckUrl(*scope, "https://a.test/", 0), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://a.test/", 2), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "https://a.test/", 3), Verdict::kTooDeep);
  absl::StatusOr<Scope> unlimited = Scope::Create({}, {}, nullptr);
  ASSERT_TRUE(unlimited.ok());
  EXPECT_EQ(CheckUrl(*unlimited, "https://a.test/", 1000000), Verdict::kInScope);
}

TEST(HostHasSuffix, LabelBoundaries) {
  EXPECT_TRUE(HostHasSuffix("gov.si", "gov.si"));
  EXPECT_TRUE(HostHasSuffix("x.gov.si", "gov.si"));
  EXPECT_FALSE(HostHasSuffix("xgov.si", "gov.si"));
  EXPECT_FALSE(HostHasSuffix("si", "gov.si"));
}

// scope.h: spider-trap defences are on by default and each reports its own verdict.
TEST(Scope_Traps, DefaultsStopLongUrlsRepeatedSegmentsAndParameterExplosions) {
  absl::StatusOr<Scope> scope = Scope::Create({}, {}, nullptr);
  ASSERT_TRUE(scope.ok());
  const std::string base = "http://a.test/";
  EXPECT_EQ(CheckUrl(*scope, base + std::string(2048 - base.size(), 'x')), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, base + std::string(2049 - base.size(), 'x')), Verdict::kTooLong);

  EXPECT_EQ(CheckUrl(*scope, "http://a.test/a/b/a/b/a/b/p.html"), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "http://a.test/a/b/a/b/a/b/a/p.html"), Verdict::kRepeatedSegments);
  EXPECT_EQ(CheckUrl(*scope, "http://a.test/x//x//x//y"), Verdict::kInScope);  // empty: not counted

  std::string query = "http://a.test/f?p0=0";
  for (int i = 1; i < 16; ++i) query += "&p" + std::to_string(i) + "=" + std::to_string(i);
  EXPECT_EQ(CheckUrl(*scope, query), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, query + ";p16=16"), Verdict::kTooManyParams);
  EXPECT_EQ(CheckUrl(*scope, "http://a.test/f?&&&&&&&&&&&&&&&&&&&&&&&a=1"), Verdict::kInScope);

  EXPECT_TRUE(IsTrap(Verdict::kTooLong));
  EXPECT_TRUE(IsTrap(Verdict::kRepeatedSegments));
  EXPECT_TRUE(IsTrap(Verdict::kTooManyParams));
  EXPECT_FALSE(IsTrap(Verdict::kTooDeep));
  EXPECT_EQ(VerdictName(Verdict::kRepeatedSegments), "trap_repeated_segments");
}

TEST(Scope_Traps, ZeroTurnsEachCheckOff) {
  absl::StatusOr<Scope> scope = Scope::Create(
      {.max_url_bytes = 0, .max_segment_repeats = 0, .max_query_params = 0}, {}, nullptr);
  ASSERT_TRUE(scope.ok());
  EXPECT_EQ(CheckUrl(*scope, "http://a.test/" + std::string(5000, 'x')), Verdict::kInScope);
  EXPECT_EQ(CheckUrl(*scope, "http://a.test/a/a/a/a/a/a"), Verdict::kInScope);
  std::string query = "http://a.test/f?p=0";
  for (int i = 0; i < 40; ++i) query += "&q=1";
  EXPECT_EQ(CheckUrl(*scope, query), Verdict::kInScope);
}

}  // namespace
}  // namespace crawler::scope
