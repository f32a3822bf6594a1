#include "lib/fingerprint/content_key.h"

#include <xxhash.h>

#include "absl/status/status.h"
#include "lib/encoding/hex.h"

namespace crawler::fingerprint {
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

std::string ContentKey::ToHex() const { return encoding::HexEncode(ToBytes()); }

absl::StatusOr<ContentKey> ContentKey::FromHex(std::string_view hex) {
  if (hex.size() != 32) {
    return absl::InvalidArgumentError("ContentKey: expected 32 hex digits");
  }
  std::array<uint8_t, 16> bytes;
  if (!encoding::HexDecode(hex, bytes)) {
    return absl::InvalidArgumentError("ContentKey: invalid hex digit");
  }
  return FromBytes(bytes);
}

}  // namespace crawler::fingerprint
