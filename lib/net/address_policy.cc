#include "lib/net/address_policy.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::net {
namespace {

struct SpecialRange {
  const char* cidr;
  const char* name;
};

constexpr SpecialRange kSpecialRanges[] = {
    {"0.0.0.0/8", "this-network"},
    {"10.0.0.0/8", "private"},
    {"100.64.0.0/10", "shared-address-space"},
    {"127.0.0.0/8", "loopback"},
    {"169.254.0.0/16", "link-local"},
    {"172.16.0.0/12", "private"},
    {"192.0.0.0/24", "ietf-protocol-assignments"},
    {"192.0.2.0/24", "documentation"},
    {"192.168.0.0/16", "private"},
    {"198.18.0.0/15", "benchmarking"},
    {"198.51.100.0/24", "documentation"},
    {"203.0.113.0/24", "documentation"},
    {"224.0.0.0/4", "multicast"},
    {"240.0.0.0/4", "reserved"},
    {"::/128", "unspecified"},
    {"::1/128", "loopback"},
    {"100::/64", "discard-only"},
    {"64:ff9b:1::/48", "local-nat64"},
    {"2001:db8::/32", "documentation"},
    {"fc00::/7", "unique-local"},
    {"fe80::/10", "link-local"},
    {"ff00::/8", "multicast"},
};

// Parsed once per process: the table is constant, and parsing it cannot fail (checked by test).
const std::vector<std::pair<CidrBlock, const char*>>& SpecialBlocks() {
  static const auto* const blocks = [] {
    auto* v = new std::vector<std::pair<CidrBlock, const char*>>();
    for (const SpecialRange& r : kSpecialRanges) v->emplace_back(*CidrBlock::Parse(r.cidr), r.name);
    return v;
  }();
  return *blocks;
}

}  // namespace

absl::StatusOr<AddressPolicy> AddressPolicy::Create(const std::vector<std::string>& allowed) {
  AddressPolicy policy;
  for (const std::string& text : allowed) {
    absl::StatusOr<CidrBlock> block = CidrBlock::Parse(text);
    if (!block.ok()) return block.status();
    policy.allowed_.push_back(*block);
  }
  return policy;
}

namespace {

// The IPv4 address an IPv6 address stands for, where a translator or tunnel on the way would
// deliver it to that IPv4 address; else the address itself. Judging those as their IPv4 address
// keeps e.g. 127.0.0.1 from slipping through in any of its IPv6 spellings:
//   64:ff9b::a.b.c.d   NAT64 well-known prefix (RFC 6052 §2.1; the IPv4 address in the last 32
//                      bits, §2.2)
//   ::a.b.c.d          IPv4-compatible, deprecated (RFC 4291 §2.5.5.1; not :: or ::1)
//   2002:AABB:CCDD::/48  6to4 (RFC 3056 §2: the IPv4 address in bits 16-47)
//   2001:0::/32        Teredo (RFC 4380 §4: the client's IPv4 address, inverted, in the last
//                      32 bits)
// (IPv4-mapped ::ffff:a.b.c.d is IpAddress::Unmapped's.)
IpAddress EmbeddedV4(const IpAddress& address) {
  if (address.is_v4()) return address;
  const std::array<uint8_t, 16>& b = address.bytes();
  auto v4 = [&b](size_t at, uint32_t flip = 0) {
    return IpAddress::V4(((uint32_t{b[at]} << 24) | (uint32_t{b[at + 1]} << 16) |
                          (uint32_t{b[at + 2]} << 8) | uint32_t{b[at + 3]}) ^
                         flip);
  };
  auto zero = [&b](size_t from, size_t to) {
    return std::all_of(b.begin() + from, b.begin() + to, [](uint8_t x) { return x == 0; });
  };
  constexpr std::array<uint8_t, 12> kNat64Prefix = {0x00, 0x64, 0xff, 0x9b};
  if (std::equal(kNat64Prefix.begin(), kNat64Prefix.end(), b.begin())) return v4(12);
  // IPv4-compatible: 96 zero bits, and not :: or ::1 (their own special ranges).
  if (zero(0, 12) && !(zero(12, 15) && b[15] <= 1)) return v4(12);
  if (b[0] == 0x20 && b[1] == 0x02) return v4(2);
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) return v4(12, 0xffffffff);
  return address;
}

}  // namespace

std::string_view AddressPolicy::RefusalReason(const IpAddress& address) const {
  // A translator or tunnel delivers an IPv6 form of an IPv4 address to that IPv4 address, so it
  // is judged (and allowed) as that.
  const IpAddress a = EmbeddedV4(address.Unmapped());
  for (const CidrBlock& block : allowed_) {
    if (block.Contains(address) || block.Contains(a)) return "";
  }
  for (const auto& [block, name] : SpecialBlocks()) {
    if (block.Contains(a)) return name;
  }
  return "";
}

bool AddressPolicy::IsAllowed(const IpAddress& address) const {
  return RefusalReason(address).empty();
}

absl::StatusOr<IpAddress> AddressPolicy::FirstAllowed(const std::vector<IpAddress>& addresses) const {
  if (addresses.empty()) return absl::NotFoundError("no address");
  for (const IpAddress& a : addresses) {
    if (IsAllowed(a)) return a;
  }
  return absl::PermissionDeniedError(absl::StrCat("address refused (",
                                                  std::string(RefusalReason(addresses[0])),
                                                  "): ", addresses[0].ToString()));
}

}  // namespace crawler::net
