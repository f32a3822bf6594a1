#include "lib/net/address_policy.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

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

// For an address of the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052 §2.1), the IPv4 address
// it carries in its last 32 bits (§2.2); else the address itself.
IpAddress Nat64Unmapped(const IpAddress& address) {
  constexpr std::array<uint8_t, 12> kWellKnownPrefix = {0x00, 0x64, 0xff, 0x9b};
  const std::array<uint8_t, 16>& b = address.bytes();
  if (address.is_v4() || !std::equal(kWellKnownPrefix.begin(), kWellKnownPrefix.end(), b.begin())) {
    return address;
  }
  return IpAddress::V4((uint32_t{b[12]} << 24) | (uint32_t{b[13]} << 16) |
                       (uint32_t{b[14]} << 8) | uint32_t{b[15]});
}

}  // namespace

std::string_view AddressPolicy::RefusalReason(const IpAddress& address) const {
  // A NAT64 gateway turns 64:ff9b::a.b.c.d into a.b.c.d, so it is judged (and allowed) as that.
  const IpAddress a = Nat64Unmapped(address.Unmapped());
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

}  // namespace crawler::net
