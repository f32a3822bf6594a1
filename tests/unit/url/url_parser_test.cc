// Unit tests of Url::Parse, named after the sections of the WHATWG URL Standard they pin. The
// broad conformance run is url_wpt_test.cc; these pin the crawler-specific contract (scheme
// rejection codes, accessors, limits) and readable examples of each parser state.
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "lib/url/url.h"

namespace crawler::url {
namespace {

using std::string_view_literals::operator""sv;

constexpr std::string_view kBase = "http://example.org/foo/bar?q#f";

struct Resolution {
  std::string_view input;
  std::string_view want_href;
};

void ExpectResolutions(const std::vector<Resolution>& table, std::string_view base_href = kBase) {
  absl::StatusOr<Url> base = Url::Parse(base_href);
  ASSERT_TRUE(base.ok()) << base.status();
  for (const Resolution& r : table) {
    SCOPED_TRACE(r.input);
    absl::StatusOr<Url> url = Url::Parse(r.input, *base);
    ASSERT_TRUE(url.ok()) << url.status();
    EXPECT_EQ(url->href(), r.want_href);
  }
}

void ExpectAbsolute(const std::vector<Resolution>& table) {
  for (const Resolution& r : table) {
    SCOPED_TRACE(r.input);
    absl::StatusOr<Url> url = Url::Parse(r.input);
    ASSERT_TRUE(url.ok()) << url.status();
    EXPECT_EQ(url->href(), r.want_href);
  }
}

void ExpectRejected(const std::vector<std::string_view>& inputs, absl::StatusCode code) {
  absl::StatusOr<Url> base = Url::Parse(kBase);
  ASSERT_TRUE(base.ok());
  for (std::string_view input : inputs) {
    SCOPED_TRACE(input);
    absl::StatusOr<Url> url = Url::Parse(input, *base);
    ASSERT_FALSE(url.ok()) << url->href();
    EXPECT_EQ(url.status().code(), code) << url.status();
  }
}

TEST(WhatwgUrl_4_4_RelativeState, ResolvesAgainstBase) {
  ExpectResolutions({
      {"baz", "http://example.org/foo/baz"},
      {"./baz", "http://example.org/foo/baz"},
      {"../x", "http://example.org/x"},
      {"../../../x", "http://example.org/x"},
      {"/a/./b/../c", "http://example.org/a/c"},
      {"?y", "http://example.org/foo/bar?y"},
      {"#g", "http://example.org/foo/bar?q#g"},
      {"", "http://example.org/foo/bar?q"},
      {".", "http://example.org/foo/"},
      {"..", "http://example.org/"},
  });
}

TEST(WhatwgUrl_4_4_SchemeState, SameSchemeIsRelativeOtherSchemeIsAuthority) {
  ExpectResolutions({
      {"http:x", "http://example.org/foo/x"},
      {"HTTP:x", "http://example.org/foo/x"},
      {"https:x", "https://x/"},
      {"https:/x", "https://x/"},
      {"http://other.net/p", "http://other.net/p"},
  });
}

TEST(WhatwgUrl_4_4_RelativeSlashState, SchemeRelativeAndBackslashes) {
  ExpectResolutions({
      {"//other.net/p", "http://other.net/p"},
      {"\\\\other\\p", "http://other/p"},
      {"/\\other/p", "http://other/p"},
      {"\\p\\q", "http://example.org/p/q"},
      {"////other", "http://other/"},
  });
}

TEST(WhatwgUrl_4_4_BasicUrlParser, StripsControlsAndRemovesTabsAndNewlines) {
  ExpectResolutions({
      {"  \t/a\nb\r  ", "http://example.org/ab"},
      {"\x01\x1F /c \x00"sv, "http://example.org/c"},
      {"ht\ttp://h\nost/", "http://host/"},
  });
}

TEST(WhatwgUrl_4_4_PathState, DotSegmentsIncludingPercentEncodedDots) {
  ExpectResolutions({
      {"/%2e%2E/a", "http://example.org/a"},
      {"/a/%2e", "http://example.org/a/"},
      {"/a/.%2E/b", "http://example.org/b"},
      {"/a/%2e./b", "http://example.org/b"},
      {"/a/..", "http://example.org/"},
      {"/a/.../b", "http://example.org/a/.../b"},
      {"/a/%2e%2e%2e", "http://example.org/a/%2e%2e%2e"},
  });
}

TEST(WhatwgUrl_1_3_PercentEncodeSets, EachComponentUsesItsSet) {
  ExpectResolutions({
      // path set: space " # < > ? ` { } and non-ASCII; keeps ' | ^ [ ] and existing escapes
      {"/a b\"<>`{}'|^[]%41", "http://example.org/a%20b%22%3C%3E%60%7B%7D'|^[]%41"},
      {"/\xC3\xA4", "http://example.org/%C3%A4"},
      // special-query set: ' is encoded, ` { } are not
      {"?a b'c`{}\"<>", "http://example.org/foo/bar?a%20b%27c`{}%22%3C%3E"},
      // fragment set
      {"#a b`\"<>'{}", "http://example.org/foo/bar?q#a%20b%60%22%3C%3E'{}"},
      // a raw byte that is not UTF-8 is encoded as it is (see url.cc)
      {"/\xFF?\xFE#\xFD", "http://example.org/%FF?%FE#%FD"},
  });
}

TEST(WhatwgUrl_4_4_AuthorityState, Credentials) {
  ExpectAbsolute({
      {"http://user:pass@host/", "http://user:pass@host/"},
      {"http://user@host/", "http://user@host/"},
      {"http://:@host/", "http://host/"},
      {"http://:pass@host/", "http://:pass@host/"},
      {"http://a@b@host/", "http://a%40b@host/"},
      {"http://u s:p:q@host/", "http://u%20s:p%3Aq@host/"},
  });
}

TEST(WhatwgUrl_4_4_PortState, DefaultPortElidedAndLeadingZerosDropped) {
  ExpectAbsolute({
      {"HTTP://EXAMPLE.ORG:80/", "http://example.org/"},
      {"https://example.org:443/", "https://example.org/"},
      {"https://example.org:80/", "https://example.org:80/"},
      {"http://example.org:0080/", "http://example.org/"},
      {"http://example.org:08080/", "http://example.org:8080/"},
      {"http://example.org:/", "http://example.org/"},
      {"http://example.org:65535", "http://example.org:65535/"},
  });
}

TEST(WhatwgUrl_3_5_HostParsing, Ipv4NumberForms) {
  ExpectAbsolute({
      {"http://0x7f.1/", "http://127.0.0.1/"},
      {"http://2130706433/", "http://127.0.0.1/"},
      {"http://0177.0.0.1/", "http://127.0.0.1/"},
      {"http://192.168.257/", "http://192.168.1.1/"},
      {"http://1.2.3.4./", "http://1.2.3.4/"},
      {"http://0x/", "http://0.0.0.0/"},
      {"http://4294967295/", "http://255.255.255.255/"},
  });
}

TEST(WhatwgUrl_3_5_HostParsing, Ipv6ParseAndCompressedSerialisation) {
  ExpectAbsolute({
      {"http://[0:0:0:0:0:0:0:1]/", "http://[::1]/"},
      {"http://[2001:DB8:0:0:1:0:0:1]/", "http://[2001:db8::1:0:0:1]/"},
      {"http://[1:0:0:2:0:0:0:3]/", "http://[1:0:0:2::3]/"},
      {"http://[1:0:2:3:4:5:6:7]/", "http://[1:0:2:3:4:5:6:7]/"},
      {"http://[::ffff:192.0.2.1]:8080/", "http://[::ffff:c000:201]:8080/"},
      {"http://[::]/", "http://[::]/"},
  });
}

TEST(WhatwgUrl_3_3_DomainToAscii, IdnaAndPercentDecodedHosts) {
  ExpectAbsolute({
      {"http://B\xC3\xBC"
       "cher.Example/",
       "http://xn--bcher-kva.example/"},
      {"http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/"},
      {"http://fa\xC3\x9F.de/", "http://xn--fa-hia.de/"},  // non-transitional: ß stays
      {"http://ex%41mple.org", "http://example.org/"},
      {"http://example.org./", "http://example.org./"},
      {"http://\xEF\xBD\x85\xEF\xBD\x98.org/", "http://ex.org/"},  // full-width letters
      {"http://a\xE3\x80\x82"
       "b/",
       "http://a.b/"},                                 // ideographic full stop
      {"http://-a-.example/", "http://-a-.example/"},  // CheckHyphens=false
      {"http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/"},
  });
}

TEST(WhatwgUrl_4_4_BasicUrlParser, MalformedInputIsInvalidArgument) {
  ExpectRejected(
      {
          "http://exa mple.org/",  // forbidden domain code point
          "http://a%20b/",         // ... also after percent-decoding
          "http://a<b/",
          "http://[::1",      // IPv6-unclosed
          "http://[::1::]/",  // IPv6-multiple-compression
          "http://[1:2:3:4:5:6:7:8:9]/",
          "http://[::1.2.3]/",  // IPv4-in-IPv6-too-few-parts
          "http://a:99999/",    // port-out-of-range
          "http://a:8x/",       // port-invalid
          "http://user@/",      // host-missing
          "http://",
          "https:",
          "http://1.2.3.4.5/",   // IPv4-too-many-parts
          "http://256.0.0.1/",   // IPv4-out-of-range-part
          "http://1.2.3.09/",    // ends in a number, not an IPv4 address
          "http://4294967296/",  // 2^32
          "http://99999999999999999999999999/",
          "http://0x100000000/",
          "http://foo.0x/",
          "http://\xFF/",    // not UTF-8
          "http://%C2%AD/",  // empty after IDNA mapping
      },
      absl::StatusCode::kInvalidArgument);
}

TEST(WhatwgUrl_4_4_SchemeState, OtherSchemesAreUnimplemented) {
  ExpectRejected(
      {"mailto:x@example.org", "javascript:void(0)", "ftp://example.org/", "file:///etc/passwd",
       "data:text/html,x", "ws://example.org/", "tel:+123", "web+app:x"},
      absl::StatusCode::kUnimplemented);
  absl::StatusOr<Url> url = Url::Parse("JavaScript:alert(1)");
  EXPECT_EQ(url.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(url.status().message().find("\"javascript\""), std::string_view::npos) << url.status();
}

TEST(WhatwgUrl_4_4_NoSchemeState, RelativeWithoutBaseIsInvalid) {
  for (std::string_view input : {"foo", "/foo", "//host/", "", "?q", "#f", "1http://x/"}) {
    SCOPED_TRACE(input);
    absl::StatusOr<Url> url = Url::Parse(input);
    ASSERT_FALSE(url.ok());
    EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(WhatwgUrl_4_1_UrlRepresentation, ComponentAccessors) {
  absl::StatusOr<Url> url = Url::Parse("HTTPS://u:p%40@Host.Example:8443/p/q?x=1&y#frag");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->href(), "https://u:p%40@host.example:8443/p/q?x=1&y#frag");
  EXPECT_EQ(url->scheme(), "https");
  EXPECT_EQ(url->username(), "u");
  EXPECT_EQ(url->password(), "p%40");
  EXPECT_EQ(url->host(), "host.example");
  EXPECT_EQ(url->port(), "8443");
  EXPECT_EQ(url->effective_port(), 8443);
  EXPECT_EQ(url->path(), "/p/q");
  EXPECT_TRUE(url->has_query());
  EXPECT_EQ(url->query(), "x=1&y");
  EXPECT_TRUE(url->has_fragment());
  EXPECT_EQ(url->fragment(), "frag");
  EXPECT_EQ(url->href_without_fragment(), "https://u:p%40@host.example:8443/p/q?x=1&y");
}

TEST(WhatwgUrl_4_1_UrlRepresentation, ClearFragmentKeepsEverythingElse) {
  for (const char* input : {"https://h.example/p?q=1#frag", "http://h/?#", "http://h/#x"}) {
    absl::StatusOr<Url> url = Url::Parse(input);
    ASSERT_TRUE(url.ok()) << input;
    const std::string without(url->href_without_fragment());
    const std::string query(url->query());
    const bool has_query = url->has_query();
    url->ClearFragment();
    EXPECT_FALSE(url->has_fragment()) << input;
    EXPECT_EQ(url->href(), without);
    EXPECT_EQ(url->has_query(), has_query);
    EXPECT_EQ(url->query(), query);
    EXPECT_EQ(*url, *Url::Parse(without)) << input;
    url->ClearFragment();  // nothing left to clear
    EXPECT_EQ(url->href(), without);
  }
}

TEST(WhatwgUrl_4_1_UrlRepresentation, EmptyAndAbsentQueryAndFragment) {
  absl::StatusOr<Url> empty = Url::Parse("http://h/?#");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->has_query());
  EXPECT_EQ(empty->query(), "");
  EXPECT_TRUE(empty->has_fragment());
  EXPECT_EQ(empty->fragment(), "");
  EXPECT_EQ(empty->href_without_fragment(), "http://h/?");

  absl::StatusOr<Url> absent = Url::Parse("http://h");
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(absent->href(), "http://h/");
  EXPECT_FALSE(absent->has_query());
  EXPECT_FALSE(absent->has_fragment());
  EXPECT_EQ(absent->username(), "");
  EXPECT_EQ(absent->password(), "");
  EXPECT_EQ(absent->port(), "");
  EXPECT_EQ(absent->effective_port(), 80);
  EXPECT_EQ(absent->path(), "/");
  EXPECT_EQ(absent->href_without_fragment(), "http://h/");

  absl::StatusOr<Url> user_only = Url::Parse("https://u@h:443");
  ASSERT_TRUE(user_only.ok());
  EXPECT_EQ(user_only->username(), "u");
  EXPECT_EQ(user_only->password(), "");
  EXPECT_EQ(user_only->host(), "h");
  EXPECT_EQ(user_only->effective_port(), 443);
}

TEST(WhatwgUrl_4_4_BasicUrlParser, SerialisationReparsesToItself) {
  absl::StatusOr<Url> base = Url::Parse(kBase);
  ASSERT_TRUE(base.ok());
  for (std::string_view input : {"../a b/%2e/./c?d e#f g", "//Bücher.example:0443/x",
                                 "\\\\[::1]:80\\y?'#`", "http://a@b@c:1/%zz?%"}) {
    SCOPED_TRACE(input);
    absl::StatusOr<Url> first = Url::Parse(input, *base);
    ASSERT_TRUE(first.ok()) << first.status();
    absl::StatusOr<Url> second = Url::Parse(first->href());
    ASSERT_TRUE(second.ok()) << second.status();
    EXPECT_EQ(second->href(), first->href());
    EXPECT_EQ(*second, *first);
  }
}

TEST(WhatwgUrl_4_4_BasicUrlParser, OverlongInputIsRejected) {
  std::string input = "http://example.org/";
  input.append((size_t{2} << 20), 'a');
  absl::StatusOr<Url> url = Url::Parse(input);
  ASSERT_FALSE(url.ok());
  EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::url
