// ContentKey: the 128-bit exact-content key of a payload for the dedup index (docs/architecture.md
// §3, dedup: "exact payload digests"), XXH3-128 (seed 0) of the payload bytes.
//
// Why not the SHA-1 that WARC records carry: XXH3 is an order of magnitude faster, and 128 bits
// make an accidental collision negligible (birthday bound ~2^64 payloads). It is not
// cryptographic: a page author can construct two payloads with the same key, which at worst makes
// the crawler record a "revisit" of a page it should have stored. Stored keys are an on-disk
// format (the dedup index): the algorithm and the byte order of ToBytes() must not change.
//
// Thread-safety: an immutable value; ComputeContentKey is a pure function.
#ifndef CRAWLER_LIB_FINGERPRINT_CONTENT_KEY_H_
#define CRAWLER_LIB_FINGERPRINT_CONTENT_KEY_H_

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace crawler::fingerprint {

class ContentKey {
 public:
  constexpr ContentKey() = default;
  constexpr ContentKey(uint64_t high, uint64_t low) : high_(high), low_(low) {}

  // Inverse of ToHex (either case); kInvalidArgument unless exactly 32 hex digits.
  static absl::StatusOr<ContentKey> FromHex(std::string_view hex);
  // Inverse of ToBytes.
  static ContentKey FromBytes(const std::array<uint8_t, 16>& bytes);

  constexpr uint64_t high() const { return high_; }
  constexpr uint64_t low() const { return low_; }

  // 32 lowercase hex digits, high half first: the canonical XXH128 form (what `xxhsum -H2`
  // prints).
  std::string ToHex() const;
  // 16 bytes big-endian, high half first: a fixed-width key whose byte order equals numeric
  // order, for RocksDB.
  std::array<uint8_t, 16> ToBytes() const;

  friend constexpr bool operator==(const ContentKey&, const ContentKey&) = default;
  friend constexpr auto operator<=>(const ContentKey&, const ContentKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const ContentKey& k) {
    return H::combine(std::move(h), k.high_, k.low_);
  }

 private:
  uint64_t high_ = 0;
  uint64_t low_ = 0;
};

// XXH3-128 (seed 0) of `payload`.
ContentKey ComputeContentKey(std::string_view payload);

}  // namespace crawler::fingerprint

#endif  // CRAWLER_LIB_FINGERPRINT_CONTENT_KEY_H_
