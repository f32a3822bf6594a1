#include "lib/net/ip_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace crawler::net {

IpAddress IpAddress::V4(uint32_t host_order) {
  IpAddress a;
  a.family_ = Family::kV4;
  a.bytes_[12] = static_cast<uint8_t>(host_order >> 24);
  a.bytes_[13] = static_cast<uint8_t>(host_order >> 16);
  a.bytes_[14] = static_cast<uint8_t>(host_order >> 8);
  a.bytes_[15] = static_cast<uint8_t>(host_order);
  return a;
}

absl::StatusOr<IpAddress> IpAddress::Parse(std::string_view text) {
  const std::string s(text);
  IpAddress a;
  in_addr v4{};
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    a.family_ = Family::kV4;
    std::memcpy(a.bytes_.data() + 12, &v4, 4);
    return a;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
    a.family_ = Family::kV6;
    std::memcpy(a.bytes_.data(), &v6, 16);
    return a;
  }
  return absl::InvalidArgumentError(absl::StrCat("not an IP address: \"", s, "\""));
}

absl::StatusOr<IpAddress> IpAddress::FromSockaddr(const sockaddr* addr) {
  IpAddress a;
  if (addr->sa_family == AF_INET) {
    a.family_ = Family::kV4;
    std::memcpy(a.bytes_.data() + 12, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, 4);
    return a;
  }
  if (addr->sa_family == AF_INET6) {
    a.family_ = Family::kV6;
    std::memcpy(a.bytes_.data(), &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, 16);
    return a;
  }
  return absl::InvalidArgumentError("not an IPv4 or IPv6 socket address");
}

IpAddress IpAddress::Unmapped() const {
  if (is_v4()) return *this;
  static constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(bytes_.data(), kMappedPrefix, 12) != 0) return *this;
  IpAddress a = *this;
  a.family_ = Family::kV4;
  std::memset(a.bytes_.data(), 0, 12);
  return a;
}

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (is_v4()) {
    inet_ntop(AF_INET, bytes_.data() + 12, buf, sizeof buf);
  } else {
    inet_ntop(AF_INET6, bytes_.data(), buf, sizeof buf);
  }
  return buf;
}

absl::StatusOr<CidrBlock> CidrBlock::Parse(std::string_view text) {
  const size_t slash = text.find('/');
  absl::StatusOr<IpAddress> base = IpAddress::Parse(text.substr(0, slash));
  if (!base.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid CIDR block \"", std::string(text), "\": ", base.status().message()));
  }
  const int max_bits = base->is_v4() ? 32 : 128;
  int bits = max_bits;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3 ||
        !absl::SimpleAtoi(absl::string_view(digits.data(), digits.size()), &bits) || bits < 0 ||
        bits > max_bits) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid prefix length in CIDR block \"", std::string(text), "\""));
    }
  }
  CidrBlock block;
  block.base_ = *base;
  block.prefix_bits_ = bits;
  // Host bits must be zero: "10.0.0.1/8" is almost always a typo for a single address.
  const int offset = base->is_v4() ? 96 : 0;
  for (int bit = offset + bits; bit < 128; ++bit) {
    if (base->bytes()[bit / 8] & (0x80 >> (bit % 8))) {
      return absl::InvalidArgumentError(
          absl::StrCat("CIDR block \"", std::string(text), "\" has bits set after the prefix"));
    }
  }
  return block;
}

bool CidrBlock::Contains(const IpAddress& address) const {
  const IpAddress a = address.Unmapped();
  if (a.family() != base_.family()) return false;
  const int offset = a.is_v4() ? 96 : 0;
  const int end = offset + prefix_bits_;
  for (int bit = offset; bit < end; ++bit) {
    const uint8_t mask = 0x80 >> (bit % 8);
    if ((a.bytes()[bit / 8] & mask) != (base_.bytes()[bit / 8] & mask)) return false;
  }
  return true;
}

std::string CidrBlock::ToString() const {
  return absl::StrCat(base_.ToString(), "/", prefix_bits_);
}

}  // namespace crawler::net
