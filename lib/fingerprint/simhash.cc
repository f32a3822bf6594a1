#include "lib/fingerprint/simhash.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/fingerprint/text_normalizer.h"

namespace crawler::fingerprint {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Fixed little-endian bytes, so the shingle hash (and so the stored fingerprint) does not depend
// on the host's byte order.
void StoreLittleEndian(uint64_t value, uint8_t* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

}  // namespace

std::string SimHash64::ToHex() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[i] = kHex[(bits_ >> (60 - 4 * i)) & 15];
  return out;
}

absl::StatusOr<SimHash64> SimHash64::FromHex(std::string_view hex) {
  if (hex.size() != 16) return absl::InvalidArgumentError("SimHash64: expected 16 hex digits");
  uint64_t bits = 0;
  for (char c : hex) {
    const int v = HexValue(c);
    if (v < 0) return absl::InvalidArgumentError("SimHash64: invalid hex digit");
    bits = bits << 4 | static_cast<uint64_t>(v);
  }
  return SimHash64(bits);
}

absl::Status ValidateSimHashOptions(const SimHashOptions& options) {
  if (options.shingle_words < 1 || options.shingle_words > SimHashOptions::kMaxShingleWords) {
    return absl::InvalidArgumentError(absl::StrCat("shingle_words must be in [1, ",
                                                   SimHashOptions::kMaxShingleWords, "], got ",
                                                   options.shingle_words));
  }
  return absl::OkStatus();
}

SimHash64 ComputeSimHash(std::string_view text, const SimHashOptions& options) {
  std::vector<uint64_t> token_hashes;
  ForEachFingerprintToken(text, [&](std::string_view token) {
    token_hashes.push_back(XXH3_64bits(token.data(), token.size()));
  });
  if (token_hashes.empty()) return SimHash64(0);

  const size_t k = std::min<size_t>(
      std::clamp(options.shingle_words, 1, SimHashOptions::kMaxShingleWords), token_hashes.size());
  std::vector<uint64_t> shingles;
  shingles.reserve(token_hashes.size() - k + 1);
  std::array<uint8_t, 8 * SimHashOptions::kMaxShingleWords> bytes;
  for (size_t i = 0; i + k <= token_hashes.size(); ++i) {
    for (size_t j = 0; j < k; ++j) StoreLittleEndian(token_hashes[i + j], &bytes[8 * j]);
    shingles.push_back(XXH3_64bits(bytes.data(), 8 * k));
  }
  std::sort(shingles.begin(), shingles.end());
  shingles.erase(std::unique(shingles.begin(), shingles.end()), shingles.end());

  // Charikar: per bit, +1 for every shingle with the bit set and -1 for every one without; the
  // bit is set when the votes are positive, i.e. when more than half the shingles have it.
  // Counting set bits (branch-free, vectorisable) is the same test and the hot loop of a crawl.
  std::array<uint32_t, 64> set_count{};
  for (uint64_t h : shingles) {
    for (int bit = 0; bit < 64; ++bit) set_count[bit] += static_cast<uint32_t>((h >> bit) & 1);
  }
  const uint64_t n = shingles.size();
  uint64_t bits = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if (2 * uint64_t{set_count[bit]} > n) bits |= uint64_t{1} << bit;
  }
  return SimHash64(bits);
}

}  // namespace crawler::fingerprint
