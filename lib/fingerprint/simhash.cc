#include "lib/fingerprint/simhash.h"

// Inlined (header-only XXH3): a page hashes every token and every shingle, a few bytes each, so
// the call into libxxhash cost as much as the hashing. Same algorithm, same values.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/encoding/hex.h"
#include "lib/fingerprint/text_normalizer.h"

namespace crawler::fingerprint {
namespace {

// Fixed little-endian bytes, so the shingle hash (and so the stored fingerprint) does not depend
// on the host's byte order.
void StoreLittleEndian(uint64_t value, uint8_t* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

// XXH3-64 of the little-endian bytes of `hashes[0..k)`.
uint64_t ShingleHash(const uint64_t* hashes, size_t k) {
  if constexpr (std::endian::native == std::endian::little) {
    return XXH3_64bits(hashes, 8 * k);
  } else {
    std::array<uint8_t, 8 * SimHashOptions::kMaxShingleWords> bytes;
    for (size_t j = 0; j < k; ++j) StoreLittleEndian(hashes[j], &bytes[8 * j]);
    return XXH3_64bits(bytes.data(), 8 * k);
  }
}

// kSpreadBits[b] has byte j equal to bit j of b: adding kSpreadBits[(h >> 8 * i) & 0xFF] to a
// word of eight byte-wide counters counts bits 8i .. 8i+7 of h at once.
constexpr std::array<uint64_t, 256> BuildSpreadBits() {
  std::array<uint64_t, 256> table{};
  for (int b = 0; b < 256; ++b) {
    for (int j = 0; j < 8; ++j) table[b] |= uint64_t{(b >> j) & 1u} << (8 * j);
  }
  return table;
}
constexpr std::array<uint64_t, 256> kSpreadBits = BuildSpreadBits();

// Per-bit counts of set bits over a stream of 64-bit hashes (the Charikar votes). Counts go into
// 64 byte-wide lanes (eight words), 8 table additions per hash instead of 64 bit tests, and are
// flushed to 32-bit totals before a byte can overflow.
class BitVoteCounter {
 public:
  void Add(uint64_t h) {
    for (int i = 0; i < 8; ++i) lanes_[i] += kSpreadBits[(h >> (8 * i)) & 0xFF];
    ++count_;
    if (++pending_ == 255) Flush();
  }

  // Bit i set iff more than half the added hashes have bit i set (a tie gives 0).
  uint64_t Majority() {
    Flush();
    uint64_t bits = 0;
    for (int bit = 0; bit < 64; ++bit) {
      if (2 * uint64_t{totals_[bit]} > count_) bits |= uint64_t{1} << bit;
    }
    return bits;
  }

 private:
  void Flush() {
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 8; ++j) totals_[8 * i + j] += (lanes_[i] >> (8 * j)) & 0xFF;
      lanes_[i] = 0;
    }
    pending_ = 0;
  }

  std::array<uint64_t, 8> lanes_{};
  std::array<uint32_t, 64> totals_{};
  uint32_t pending_ = 0;  // hashes in lanes_, < 255
  uint64_t count_ = 0;
};

// The set of distinct shingle hashes: open addressing with linear probing over at least twice
// as many slots as values, indexed by the top bits of the (uniformly distributed) hash. Slot
// value 0 means empty; the hash 0 itself is tracked apart.
class ShingleSet {
 public:
  explicit ShingleSet(size_t max_values)
      : shift_(64 - std::bit_width(std::bit_ceil(std::max<size_t>(2 * max_values, 16)) - 1)),
        slots_(size_t{1} << (64 - shift_), 0) {}

  // True if `h` was not in the set (and is now).
  bool Insert(uint64_t h) {
    if (h == 0) return !std::exchange(has_zero_, true);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h >> shift_;; i = (i + 1) & mask) {
      if (slots_[i] == h) return false;
      if (slots_[i] == 0) {
        slots_[i] = h;
        return true;
      }
    }
  }

 private:
  int shift_;
  std::vector<uint64_t> slots_;
  bool has_zero_ = false;
};

}  // namespace

std::string SimHash64::ToHex() const {
  std::array<uint8_t, 8> bytes;
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(bits_ >> (56 - 8 * i));
  return encoding::HexEncode(bytes);
}

absl::StatusOr<SimHash64> SimHash64::FromHex(std::string_view hex) {
  if (hex.size() != 16) return absl::InvalidArgumentError("SimHash64: expected 16 hex digits");
  std::array<uint8_t, 8> bytes;
  if (!encoding::HexDecode(hex, bytes)) {
    return absl::InvalidArgumentError("SimHash64: invalid hex digit");
  }
  uint64_t bits = 0;
  for (const uint8_t b : bytes) bits = bits << 8 | b;
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
  token_hashes.reserve(text.size() / 8 + 8);  // ~6 bytes per word in European text
  ForEachFingerprintToken(text, [&](std::string_view token) {
    token_hashes.push_back(XXH3_64bits(token.data(), token.size()));
  });
  if (token_hashes.empty()) return SimHash64(0);

  const size_t k = std::min<size_t>(
      std::clamp(options.shingle_words, 1, SimHashOptions::kMaxShingleWords), token_hashes.size());
  const size_t num_shingles = token_hashes.size() - k + 1;
  // Charikar: per bit, +1 for every shingle with the bit set and -1 for every one without; the
  // bit is set when the votes are positive, i.e. when more than half the distinct shingles have
  // it. Each shingle votes the first time it is seen (a set, not a bag).
  ShingleSet seen(num_shingles);
  BitVoteCounter votes;
  for (size_t i = 0; i < num_shingles; ++i) {
    const uint64_t h = ShingleHash(&token_hashes[i], k);
    if (seen.Insert(h)) votes.Add(h);
  }
  return SimHash64(votes.Majority());
}

}  // namespace crawler::fingerprint
