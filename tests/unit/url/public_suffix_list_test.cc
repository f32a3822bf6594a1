// Tests of PublicSuffixList against Debian's public suffix data (package publicsuffix).
#include "lib/url/public_suffix_list.h"

#include <string_view>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace crawler::url {
namespace {

TEST(PublicSuffixList, RegistrableDomain) {
  absl::StatusOr<PublicSuffixList> psl = PublicSuffixList::LoadDefault();
  ASSERT_TRUE(psl.ok()) << psl.status();
  const struct {
    std::string_view host;
    std::string_view want;
  } table[] = {
      {"www.example.co.uk", "example.co.uk"},
      {"a.b.example.com", "example.com"},
      {"example.com", "example.com"},
      {"foo.bar.github.io", "bar.github.io"},  // private section applies, as in browsers
      {"www.xn--80ak6aa92e.xn--p1ai", "xn--80ak6aa92e.xn--p1ai"},  // IDN TLD in ASCII form
      {"a.b.unknowntld", "b.unknowntld"},                          // default rule "*"
      {"co.uk", "co.uk"},                                          // a public suffix itself
      {"com", "com"},
      {"localhost", "localhost"},
      {"www.example.com.", "example.com"},  // trailing dot dropped
      {"192.0.2.1", "192.0.2.1"},
      {"[2001:db8::1]", "[2001:db8::1]"},
  };
  for (const auto& row : table) {
    SCOPED_TRACE(row.host);
    EXPECT_EQ(psl->RegistrableDomain(row.host), row.want);
  }
}

TEST(PublicSuffixList, IsPublicSuffix) {
  absl::StatusOr<PublicSuffixList> psl = PublicSuffixList::LoadDefault();
  ASSERT_TRUE(psl.ok()) << psl.status();
  EXPECT_TRUE(psl->IsPublicSuffix("com"));
  EXPECT_TRUE(psl->IsPublicSuffix("co.uk"));
  EXPECT_TRUE(psl->IsPublicSuffix("github.io"));
  EXPECT_FALSE(psl->IsPublicSuffix("example.com"));
  EXPECT_FALSE(psl->IsPublicSuffix("192.0.2.1"));
  EXPECT_FALSE(psl->IsPublicSuffix(""));
}

TEST(PublicSuffixList, LoadFile) {
  absl::StatusOr<PublicSuffixList> dat =
      PublicSuffixList::LoadFile("/usr/share/publicsuffix/public_suffix_list.dat");
  ASSERT_TRUE(dat.ok()) << dat.status();
  EXPECT_EQ(dat->RegistrableDomain("www.example.co.uk"), "example.co.uk");

  EXPECT_EQ(PublicSuffixList::LoadFile("/nonexistent/psl.dat").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(PublicSuffixList, MovedFromListStillAnswersInTheNewOwner) {
  absl::StatusOr<PublicSuffixList> psl = PublicSuffixList::LoadDefault();
  ASSERT_TRUE(psl.ok());
  PublicSuffixList moved = std::move(*psl);
  EXPECT_EQ(moved.RegistrableDomain("a.example.org"), "example.org");
}

}  // namespace
}  // namespace crawler::url
