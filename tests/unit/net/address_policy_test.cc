#include "lib/net/address_policy.h"

#include "gtest/gtest.h"
#include "lib/net/ip_address.h"

namespace crawler::net {
namespace {

IpAddress Ip(const char* s) {
  absl::StatusOr<IpAddress> a = IpAddress::Parse(s);
  EXPECT_TRUE(a.ok()) << s;
  return *a;
}

TEST(Rfc4291_2_2_TextForms, ParseAndCanonicalPrint) {
  EXPECT_EQ(Ip("192.0.2.1").ToString(), "192.0.2.1");
  EXPECT_EQ(Ip("2001:DB8:0:0:0:0:0:1").ToString(), "2001:db8::1");  // RFC 5952
  EXPECT_EQ(Ip("::ffff:10.1.2.3").Unmapped().ToString(), "10.1.2.3");
  for (const char* bad : {"", "1.2.3", "256.1.1.1", "0x7f.1", "::g", "example.org", "1.2.3.4 "}) {
    EXPECT_FALSE(IpAddress::Parse(bad).ok()) << bad;
  }
}

TEST(Rfc4632_Cidr, ParseAndContain) {
  absl::StatusOr<CidrBlock> b = CidrBlock::Parse("172.16.0.0/12");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->Contains(Ip("172.31.255.255")));
  EXPECT_FALSE(b->Contains(Ip("172.32.0.0")));
  EXPECT_FALSE(b->Contains(Ip("::1")));
  EXPECT_TRUE(b->Contains(Ip("::ffff:172.16.0.1")));  // mapped
  EXPECT_TRUE(CidrBlock::Parse("0.0.0.0/0")->Contains(Ip("8.8.8.8")));
  EXPECT_TRUE(CidrBlock::Parse("192.0.2.7")->Contains(Ip("192.0.2.7")));
  EXPECT_FALSE(CidrBlock::Parse("192.0.2.7")->Contains(Ip("192.0.2.8")));
  for (const char* bad : {"10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "fe80::/129",
                          "nonsense/8", "10.0.0.0/8/8"}) {
    EXPECT_FALSE(CidrBlock::Parse(bad).ok()) << bad;
  }
}

// docs/architecture.md §6: private, loopback, link-local and metadata addresses refused unless
// allowed.
TEST(Design6_SsrfGuard, SpecialPurposeAddressesRefusedByDefault) {
  absl::StatusOr<AddressPolicy> policy = AddressPolicy::Create({});
  ASSERT_TRUE(policy.ok());
  struct Case {
    const char* ip;
    const char* reason;  // "" = allowed
  };
  const Case cases[] = {
      {"93.184.216.34", ""},
      {"2606:2800:220:1:248:1893:25c8:1946", ""},
      {"127.0.0.1", "loopback"},
      {"127.255.0.9", "loopback"},
      {"::1", "loopback"},
      {"10.1.2.3", "private"},
      {"172.20.0.1", "private"},
      {"192.168.1.1", "private"},
      {"169.254.169.254", "link-local"},  // cloud metadata
      {"fd00:ec2::254", "unique-local"},   // AWS IPv6 metadata
      {"fe80::1", "link-local"},
      {"100.100.100.200", "shared-address-space"},  // Alibaba metadata
      {"0.0.0.0", "this-network"},
      {"255.255.255.255", "reserved"},
      {"224.0.0.1", "multicast"},
      {"::ffff:127.0.0.1", "loopback"},  // mapped loopback must not slip through
      {"::ffff:169.254.169.254", "link-local"},
      {"::", "unspecified"},
      // RFC 6052 §2.1: a NAT64 gateway turns 64:ff9b::a.b.c.d into a.b.c.d, so these are
      // judged as the IPv4 address they carry; RFC 8215's local-use prefix is refused whole.
      {"64:ff9b::a9fe:a9fe", "link-local"},            // 169.254.169.254, cloud metadata
      {"64:ff9b::169.254.169.254", "link-local"},      // the same, dotted
      {"64:ff9b::a00:1", "private"},                   // 10.0.0.1
      {"64:ff9b::7f00:1", "loopback"},                 // 127.0.0.1
      {"64:ff9b::6464:64c8", "shared-address-space"},  // 100.100.100.200
      {"64:ff9b::808:808", ""},                        // 8.8.8.8, as DNS64 hands it out
      {"64:ff9b:1::a9fe:a9fe", "local-nat64"},
      {"64:ff9b:1:2::8.8.8.8", "local-nat64"},
      {"64:ff9c::a9fe:a9fe", ""},  // next to the prefix, not in it: no special range
      // RFC 3056 §2: 6to4 carries an IPv4 address in bits 16-47, which a 6to4 relay turns
      // into that IPv4 address.
      {"2002:7f00:1::", "loopback"},     // 127.0.0.1
      {"2002:a9fe:a9fe::1", "link-local"},  // 169.254.169.254
      {"2002:c0a8:101::", "private"},    // 192.168.1.1
      {"2002:808:808::", ""},            // 8.8.8.8
      // RFC 4291 §2.5.5.1: the deprecated IPv4-compatible form ::a.b.c.d (not :: or ::1).
      {"::7f00:1", "loopback"},          // 127.0.0.1
      {"::127.0.0.1", "loopback"},
      {"::a9fe:a9fe", "link-local"},
      {"::808:808", ""},
      // RFC 4380 §4: Teredo carries the client's IPv4 address, inverted, in the last 32 bits.
      {"2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"},  // client 127.0.0.1
      {"2001:0:4136:e378:8000:63bf:f7f7:f7f7", ""},          // client 8.8.8.8
  };
  for (const Case& c : cases) {
    EXPECT_EQ(policy->RefusalReason(Ip(c.ip)), c.reason) << c.ip;
    EXPECT_EQ(policy->IsAllowed(Ip(c.ip)), std::string(c.reason).empty()) << c.ip;
  }
}

TEST(Design6_SsrfGuard, AllowedBlocksAreExempt) {
  absl::StatusOr<AddressPolicy> policy = AddressPolicy::Create({"127.0.0.0/8", "10.9.0.0/16"});
  ASSERT_TRUE(policy.ok());
  EXPECT_TRUE(policy->IsAllowed(Ip("127.0.0.1")));
  EXPECT_TRUE(policy->IsAllowed(Ip("::ffff:127.0.0.1")));
  EXPECT_TRUE(policy->IsAllowed(Ip("10.9.3.4")));
  EXPECT_FALSE(policy->IsAllowed(Ip("10.8.3.4")));
  EXPECT_FALSE(policy->IsAllowed(Ip("::1")));  // IPv6 loopback is a different block
  EXPECT_FALSE(policy->IsAllowed(Ip("169.254.169.254")));
  EXPECT_TRUE(policy->IsAllowed(Ip("64:ff9b::7f00:1")));  // NAT64 for 127.0.0.1
  EXPECT_FALSE(policy->IsAllowed(Ip("64:ff9b::a9fe:a9fe")));
  EXPECT_EQ(AddressPolicy::Create({"127.0.0.1/8"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A host's addresses in resolution order: the first the guard accepts is used; when none is, the
// refusal names the first address and its range, in the words the crawl log uses.
TEST(Design6_SsrfGuard, FirstAllowedOfAHostsAddresses) {
  absl::StatusOr<AddressPolicy> policy = AddressPolicy::Create({});
  ASSERT_TRUE(policy.ok());
  absl::StatusOr<IpAddress> first =
      policy->FirstAllowed({Ip("10.0.0.5"), Ip("93.184.216.34"), Ip("2606:2800:220:1::1")});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->ToString(), "93.184.216.34");
  absl::StatusOr<IpAddress> none = policy->FirstAllowed({Ip("169.254.169.254"), Ip("10.0.0.5")});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(none.status().message(), "address refused (link-local): 169.254.169.254");
  EXPECT_EQ(policy->FirstAllowed({}).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace crawler::net
