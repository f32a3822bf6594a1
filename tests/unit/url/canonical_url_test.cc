// Tests of Canonicalize / CanonicalUrl: the crawler's dedup and queue key. Named after the
// RFC 3986 section 6.2.2 normalisations they pin, or after the crawler rule.
#include "lib/url/canonical_url.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace crawler::url {
namespace {

struct Case {
  std::string_view input;
  std::string_view want;
};

void ExpectCanonical(const std::vector<Case>& table, const CanonicalizeOptions& options = {}) {
  for (const Case& c : table) {
    SCOPED_TRACE(c.input);
    absl::StatusOr<CanonicalUrl> canonical = Canonicalize(c.input, options);
    ASSERT_TRUE(canonical.ok()) << canonical.status();
    EXPECT_EQ(canonical->str(), c.want);
    // Idempotent: the canonical form is a fixed point.
    absl::StatusOr<CanonicalUrl> again = Canonicalize(canonical->str(), options);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, *canonical);
  }
}

TEST(Rfc3986_6_2_2_SyntaxBasedNormalization, SchemeHostPortFragmentDotSegments) {
  ExpectCanonical({
      {"HTTP://Example.ORG:80/a/./b/../c#frag", "http://example.org/a/c"},
      {"https://example.org:443", "https://example.org/"},
      {"https://example.org:8443/#", "https://example.org:8443/"},
      {"http://B\xC3\xBC"
       "cher.example/",
       "http://xn--bcher-kva.example/"},
  });
}

TEST(Rfc3986_6_2_2_1_CaseNormalization, PercentEncodingHexIsUppercased) {
  ExpectCanonical({
      {"http://h/%c3%a4?q=%c3%a4", "http://h/%C3%A4?q=%C3%A4"},
      {"http://h/a%2fb", "http://h/a%2Fb"},
  });
}

TEST(Rfc3986_6_2_2_2_PercentEncodingNormalization, UnreservedDecodedReservedKept) {
  ExpectCanonical({
      {"http://h/%41%62%2D%2e%5F%7e%30", "http://h/Ab-._~0"},
      {"http://h/?%41=%7E&b=%26%3D%2B", "http://h/?A=~&b=%26%3D%2B"},
      {"http://h/a%2Fb%3Fc%23d%25", "http://h/a%2Fb%3Fc%23d%25"},
      {"http://h/100%/%zz?%", "http://h/100%/%zz?%"},  // stray '%' stays
      {"http://h/x%2", "http://h/x%2"},
  });
}

TEST(Rfc3986_6_2_2_2_PercentEncodingNormalization, StrayPercentStopsDecodingInItsRun) {
  // Decoding next to a stray '%' could assemble a new escape ("%%34%31" -> "%41"), and the
  // canonical form would then change when canonicalised again (found by fuzz_url).
  ExpectCanonical({
      {"http://h/%%34%31", "http://h/%%34%31"},
      {"http://h/%%341", "http://h/%%341"},
      {"http://oh/!%.%2%4%b//%b^!%.%v%%%2%4%b%98%%2%45b%98%%",
       "http://oh/!%.%2%4%b//%b^!%.%v%%%2%4%b%98%%2%45b%98%%"},
      // only the run with the stray '%' is left alone
      {"http://h/%41%/%41?a=%41&b=%&c=%7e", "http://h/%41%/A?a=A&b=%&c=~"},
      // removing the parameter that held the stray does not change the others
      {"http://h/?a=%41&utm_source=%", "http://h/?a=A"},
  });
}

TEST(CrawlerCanonicalForm, EmptyQueryDropped) {
  ExpectCanonical({
      {"http://h/p?", "http://h/p"},
      {"http://h/p?#x", "http://h/p"},
      {"http://h/p?a", "http://h/p?a"},
      {"http://h/p?&", "http://h/p?&"},  // not empty: '&' could matter to the server
  });
}

TEST(CrawlerCanonicalForm, SessionIdParametersStrippedByDefault) {
  ExpectCanonical({
      {"http://h/p?JSESSIONID=abc&x=1", "http://h/p?x=1"},
      {"http://h/p?x=1&PHPSESSID=0123456789abcdef", "http://h/p?x=1"},
      {"http://h/p?ASPSESSIONIDQASDRTBC=X&y", "http://h/p?y"},
      {"http://h/p?CFID=1&CFTOKEN=2", "http://h/p"},
      {"http://h/p?sessionid=s", "http://h/p"},
      {"http://h/p;jsessionid=0123ABC?x=1", "http://h/p?x=1"},
      {"http://h/a;JSESSIONID=1;v=2/b", "http://h/a;v=2/b"},
      // "sid" is not stripped by default: it is often a story or section id.
      {"http://h/article.pl?sid=05/01/01/1234", "http://h/article.pl?sid=05/01/01/1234"},
      // names are matched whole: a parameter that merely contains "sessionid" stays
      {"http://h/p?mysessionid=1&jsessionidx=2", "http://h/p?mysessionid=1&jsessionidx=2"},
  });
}

TEST(CrawlerCanonicalForm, TrackingParametersStrippedByDefault) {
  ExpectCanonical({
      {"http://h/p?utm_source=x&utm_medium=y&id=7&UTM_Campaign=z", "http://h/p?id=7"},
      {"http://h/p?gclid=1&fbclid=2&msclkid=3&q=a", "http://h/p?q=a"},
      {"http://h/p?utm_source", "http://h/p"},
      {"http://h/p?utm=1", "http://h/p?utm=1"},
  });
}

TEST(CrawlerCanonicalForm, StrippingCanBeTurnedOffAndExtended) {
  CanonicalizeOptions keep;
  keep.strip_session_ids = false;
  keep.strip_tracking_params = false;
  ExpectCanonical({{"http://h/p;jsessionid=1?phpsessid=2&utm_source=3",
                    "http://h/p;jsessionid=1?phpsessid=2&utm_source=3"}},
                  keep);

  CanonicalizeOptions extra;
  extra.extra_params_to_strip = {"sid", "ref_*"};
  ExpectCanonical({{"http://h/p?sid=1&ref_a=2&ref=3&x=4", "http://h/p?ref=3&x=4"}}, extra);
}

TEST(CrawlerCanonicalForm, QuerySortingIsOptInAndStable) {
  ExpectCanonical({{"http://h/p?b=2&a=1", "http://h/p?b=2&a=1"}});
  CanonicalizeOptions sort;
  sort.sort_query_params = true;
  ExpectCanonical({{"http://h/p?b=2&a=1&b=1&a", "http://h/p?a=1&a&b=2&b=1"}}, sort);
}

TEST(CrawlerCanonicalForm, StrippingNeverCreatesDotSegments) {
  // "..;jsessionid=1" is a normal segment to the parser; removing the parameter would turn it
  // into ".." and the canonical form would no longer be a fixed point.
  ExpectCanonical({{"http://h/a/..;jsessionid=1/b", "http://h/a/..;jsessionid=1/b"}});
}

TEST(CrawlerCanonicalForm, EqualKeysForEquivalentLinks) {
  const std::vector<std::string_view> same = {
      "http://example.org/a%7Eb?x=1",    "HTTP://EXAMPLE.org:80/a~b?x=1#top",
      "http://example.org/./a%7eb?x=1",  "http://example.org/a~b?x=1&utm_source=news",
      "http://example.org/c/../a~b?x=1",
  };
  absl::flat_hash_set<CanonicalUrl> keys;
  for (std::string_view input : same) {
    absl::StatusOr<CanonicalUrl> c = Canonicalize(input);
    ASSERT_TRUE(c.ok()) << input;
    keys.insert(*c);
  }
  EXPECT_EQ(keys.size(), 1u);

  // ... and different keys where a server may answer differently.
  const std::vector<std::string_view> different = {
      "http://example.org/a",         "http://example.org/A",       "http://example.org/a/",
      "https://example.org/a",        "http://www.example.org/a",   "http://example.org/a?b=1&c=2",
      "http://example.org/a?c=2&b=1", "http://example.org/a?b=1+2", "http://example.org/a?b=1%202",
      "http://example.org/a%2Fb",     "http://example.org/a/b",
  };
  keys.clear();
  for (std::string_view input : different) {
    absl::StatusOr<CanonicalUrl> c = Canonicalize(input);
    ASSERT_TRUE(c.ok()) << input;
    keys.insert(*c);
  }
  EXPECT_EQ(keys.size(), different.size());
}

TEST(CrawlerCanonicalForm, InvalidOrUnsupportedInputPropagatesParseError) {
  EXPECT_EQ(Canonicalize("relative/path").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Canonicalize("mailto:a@b").status().code(), absl::StatusCode::kUnimplemented);
}

TEST(CrawlerCanonicalForm, CanonicalizeOfUrlMatchesStringOverload) {
  absl::StatusOr<Url> url = Url::Parse("http://h/x?utm_medium=m#f");
  ASSERT_TRUE(url.ok());
  absl::StatusOr<CanonicalUrl> from_url = Canonicalize(*url);
  ASSERT_TRUE(from_url.ok());
  EXPECT_EQ(from_url->str(), "http://h/x");
  EXPECT_EQ(*from_url, *Canonicalize(url->href()));
  EXPECT_LT(*Canonicalize("http://a/"), *Canonicalize("http://b/"));
}

}  // namespace
}  // namespace crawler::url
