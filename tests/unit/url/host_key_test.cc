// Tests of HostKey: the queue / politeness key (host, plus ":port" when not the default).
#include "lib/url/host_key.h"

#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "lib/url/url.h"

namespace crawler::url {
namespace {

HostKey KeyOf(std::string_view href) {
  absl::StatusOr<Url> url = Url::Parse(href);
  EXPECT_TRUE(url.ok()) << href << ": " << url.status();
  return HostKey::Of(*url);
}

TEST(HostKey, HostPlusNonDefaultPort) {
  const struct {
    std::string_view url;
    std::string_view key;
  } table[] = {
      {"http://Example.ORG/a", "example.org"},
      {"https://example.org:443/b", "example.org"},
      {"http://example.org:8080/", "example.org:8080"},
      {"https://example.org:80/", "example.org:80"},
      {"http://example.org:443/", "example.org:443"},
      {"http://user:pw@example.org/", "example.org"},
      {"http://[2001:DB8::1]:81/", "[2001:db8::1]:81"},
      {"http://0x7f.0.0.1/", "127.0.0.1"},
      {"http://B\xC3\xBC"
       "cher.example/",
       "xn--bcher-kva.example"},
  };
  for (const auto& row : table) {
    SCOPED_TRACE(row.url);
    EXPECT_EQ(KeyOf(row.url).str(), row.key);
  }
}

TEST(HostKey, HttpAndHttpsOfOneHostShareAQueueOtherPortsDoNot) {
  EXPECT_EQ(KeyOf("http://example.org/"), KeyOf("https://example.org/x"));
  EXPECT_NE(KeyOf("http://example.org/"), KeyOf("http://example.org:8080/"));
  EXPECT_NE(KeyOf("http://example.org/"), KeyOf("http://www.example.org/"));
  absl::flat_hash_set<HostKey> keys = {KeyOf("http://a/"), KeyOf("https://a/"), KeyOf("http://b/")};
  EXPECT_EQ(keys.size(), 2u);
}

TEST(HostKey, FromStringRoundTrips) {
  for (std::string_view url :
       {"http://example.org/", "https://example.org:80/", "http://example.org:443/",
        "http://[::1]:8080/", "http://192.0.2.1/"}) {
    SCOPED_TRACE(url);
    const HostKey key = KeyOf(url);
    absl::StatusOr<HostKey> parsed = HostKey::FromString(key.str());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, key);
  }
  for (std::string_view bad : {"", "Example.org", "example.org:0080", "a/b", "u@h", "h:99999",
                               "exa mple", "h:", "0x7f.0.0.1"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(HostKey::FromString(bad).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace crawler::url
