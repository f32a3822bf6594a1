// IpAddress and CidrBlock: IPv4/IPv6 addresses as values (no sockets), parsed from their textual
// forms (RFC 4291 §2.2 for IPv6, dotted-quad only for IPv4: the legacy hex/octal forms are a URL
// host concern, handled by lib/url) and CIDR blocks (RFC 4632) with containment.
//
// Thread-safety: value types.
#ifndef CRAWLER_LIB_NET_IP_ADDRESS_H_
#define CRAWLER_LIB_NET_IP_ADDRESS_H_

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

struct sockaddr;

namespace crawler::net {

class IpAddress {
 public:
  enum class Family : uint8_t { kV4, kV6 };

  static absl::StatusOr<IpAddress> Parse(std::string_view text);
  // From a sockaddr_in / sockaddr_in6; kInvalidArgument for any other family.
  static absl::StatusOr<IpAddress> FromSockaddr(const sockaddr* addr);
  static IpAddress V4(uint32_t host_order);

  Family family() const { return family_; }
  bool is_v4() const { return family_ == Family::kV4; }
  // IPv4 in the low 4 bytes of the 16 (bytes 12..15), IPv6 in all 16, network order.
  const std::array<uint8_t, 16>& bytes() const { return bytes_; }
  // For ::ffff:a.b.c.d (IPv4-mapped, RFC 4291 §2.5.5.2): the IPv4 address; else *this.
  IpAddress Unmapped() const;

  // "192.0.2.1", "2001:db8::1" (RFC 5952 canonical form).
  std::string ToString() const;

  friend bool operator==(const IpAddress&, const IpAddress&) = default;
  friend auto operator<=>(const IpAddress&, const IpAddress&) = default;

 private:
  Family family_ = Family::kV4;
  std::array<uint8_t, 16> bytes_{};
};

class CidrBlock {
 public:
  // "10.0.0.0/8", "fe80::/10"; a bare address is a /32 or /128. Host bits must be zero.
  static absl::StatusOr<CidrBlock> Parse(std::string_view text);

  // False for an address of the other family (IPv4-mapped IPv6 addresses are unmapped first).
  bool Contains(const IpAddress& address) const;
  std::string ToString() const;

 private:
  IpAddress base_;
  int prefix_bits_ = 0;
};

}  // namespace crawler::net

#endif  // CRAWLER_LIB_NET_IP_ADDRESS_H_
