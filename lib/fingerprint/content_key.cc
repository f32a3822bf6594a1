#include "lib/fingerprint/content_key.h"

#include <xxhash.h>

#include "absl/status/status.h"

namespace crawler::fingerprint {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

ContentKey ComputeContentKey(std::string_view payload) {
  const XXH128_hash_t h = XXH3_128bits(payload.data(), payload.size());
  return ContentKey(h.high64, h.low64);
}

std::array<uint8_t, 16> ContentKey::ToBytes() const {
  std::array<uint8_t, 16> out;
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(high_ >> (56 - 8 * i));
    out[8 + i] = static_cast<uint8_t>(low_ >> (56 - 8 * i));
  }
  return out;
}

ContentKey ContentKey::FromBytes(const std::array<uint8_t, 16>& bytes) {
  uint64_t high = 0;
  uint64_t low = 0;
  for (int i = 0; i < 8; ++i) {
    high = high << 8 | bytes[i];
    low = low << 8 | bytes[8 + i];
  }
  return ContentKey(high, low);
}

std::string ContentKey::ToHex() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(32);
  for (uint8_t b : ToBytes()) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

absl::StatusOr<ContentKey> ContentKey::FromHex(std::string_view hex) {
  if (hex.size() != 32) {
    return absl::InvalidArgumentError("ContentKey: expected 32 hex digits");
  }
  std::array<uint8_t, 16> bytes;
  for (size_t i = 0; i < 16; ++i) {
    const int hi = HexValue(hex[2 * i]);
    const int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return absl::InvalidArgumentError("ContentKey: invalid hex digit");
    bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return FromBytes(bytes);
}

}  // namespace crawler::fingerprint
