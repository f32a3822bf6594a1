// AddressPolicy: the SSRF guard (docs/architecture.md §6). A crawler follows links written by
// strangers, so a link to http://169.254.169.254/ or http://10.0.0.5:6379/ must not make it talk to
// the cloud metadata service or the operator's internal network. Every address a request would
// connect to is checked after resolution (and again at connect time, since DNS may answer
// differently the second time); addresses in the special-purpose ranges below are refused unless an
// explicitly allowed block (--allow-network) contains them.
//
// Refused by default (IANA special-purpose registries, RFC 6890 and updates):
//   IPv4: 0.0.0.0/8 "this network", 10/8, 172.16/12, 192.168/16 private (RFC 1918),
//         100.64/10 shared/CGNAT (RFC 6598), 127/8 loopback, 169.254/16 link-local (incl. the
//         169.254.169.254 metadata endpoint of AWS/GCP/Azure), 192.0.0/24 IETF protocol
//         assignments, 192.0.2/24, 198.51.100/24, 203.0.113/24 documentation, 198.18/15
//         benchmarking, 224/4 multicast, 240/4 reserved incl. 255.255.255.255.
//   IPv6: ::/128, ::1/128, fe80::/10 link-local, fc00::/7 unique-local (incl. AWS's
//         fd00:ec2::254 metadata), ff00::/8 multicast, 2001:db8::/32 documentation, 64:ff9b:1::/48
//         local-use NAT64 (any IPv4 address, private ones included, behind a local
//         translator), 100::/64 discard. IPv6 forms that a translator or tunnel delivers to an
//         IPv4 address are judged as that IPv4 address: IPv4-mapped (::ffff:0:0/96), NAT64
//         well-known prefix (64:ff9b::/96, RFC 6052: the last 32 bits), IPv4-compatible
//         (::a.b.c.d, RFC 4291 §2.5.5.1, deprecated), 6to4 (2002::/16, RFC 3056: bits 16-47)
//         and Teredo (2001::/32, RFC 4380: the client address, inverted, in the last 32 bits).
//         So 64:ff9b::a9fe:a9fe is the metadata address 169.254.169.254, 2002:7f00:1:: and
//         ::7f00:1 are 127.0.0.1, and 64:ff9b::808:808 is a public address that DNS64 hands
//         out on IPv6-only networks.
//
// Thread-safety: immutable after Create.
#ifndef CRAWLER_LIB_NET_ADDRESS_POLICY_H_
#define CRAWLER_LIB_NET_ADDRESS_POLICY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/net/ip_address.h"

namespace crawler::net {

class AddressPolicy {
 public:
  // `allowed`: CIDR blocks exempt from the default refusal (e.g. "127.0.0.0/8" for tests
  // against a local server). kInvalidArgument names a malformed block.
  static absl::StatusOr<AddressPolicy> Create(const std::vector<std::string>& allowed);

  // True if a request may connect to `address`.
  bool IsAllowed(const IpAddress& address) const;
  // The name of the refused range ("loopback", "private", ...), or "" if allowed.
  std::string_view RefusalReason(const IpAddress& address) const;
  // The first of `addresses` (a host's, in resolution order) a request may connect to. When
  // none may: kPermissionDenied "address refused (<range>): <the first address>"; the crawl log
  // and its reports know refusals by that prefix. kNotFound for an empty list.
  absl::StatusOr<IpAddress> FirstAllowed(const std::vector<IpAddress>& addresses) const;

 private:
  std::vector<CidrBlock> allowed_;
};

}  // namespace crawler::net

#endif  // CRAWLER_LIB_NET_ADDRESS_POLICY_H_
