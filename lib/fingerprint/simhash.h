// SimHash64: the 64-bit content fingerprint of a page's visible text (M. Charikar, "Similarity
// Estimation Techniques from Rounding Algorithms", STOC 2002; as used for web pages by G. Manku,
// A. Jain, A. Das Sarma, "Detecting Near-Duplicates for Web Crawling", WWW 2007).
//
// Computation (docs/fingerprint.md has the reasoning and measurements):
//  1. the text is normalised into word tokens (text_normalizer.h: numbers, ids, date words go);
//  2. each token is hashed with XXH3-64 (seed 0); each run of `shingle_words` consecutive tokens
//     (a shingle) is hashed with XXH3-64 over the little-endian bytes of its token hashes; a text
//     with fewer tokens than `shingle_words` is one shingle of all its tokens;
//  3. every distinct shingle counts once (a set, not a bag: repeated boilerplate such as "read
//     more" or a list that grows by copies of one item does not gain weight);
//  4. bit i of the fingerprint is 1 iff more distinct shingles have bit i set than clear
//     (a tie gives 0).
// For two texts whose shingle sets have cosine similarity cos(theta), each bit differs with
// probability theta / pi, so HammingDistance estimates the angle between the texts: 0 for equal
// shingle sets, ~32 for unrelated texts.
//
// Text without any token (empty, only numbers or punctuation) has the fingerprint 0, meaning "no
// textual content": two such pages compare as unchanged, and such a page against a page with
// text as ~32 bits apart. (A text with tokens yields 0 only with probability 2^-64.)
//
// ON-DISK CONTRACT: fingerprints are persisted and compared across crawler versions. Changing the
// normalisation, the shingle size, the hash or the byte order changes fingerprints of unchanged
// pages; bump kFingerprintVersion so stored values can be recognised as incomparable.
//
// Thread-safety: SimHash64 is an immutable value; ComputeSimHash is a pure function.
#ifndef CRAWLER_LIB_FINGERPRINT_SIMHASH_H_
#define CRAWLER_LIB_FINGERPRINT_SIMHASH_H_

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace crawler::fingerprint {

// Version of the fingerprint definition (normalisation + shingling + hashing). Store it beside
// persisted fingerprints; fingerprints of different versions must not be compared.
inline constexpr int kFingerprintVersion = 1;

class SimHash64 {
 public:
  constexpr SimHash64() = default;
  constexpr explicit SimHash64(uint64_t bits) : bits_(bits) {}

  // Inverse of ToHex (either case); kInvalidArgument unless exactly 16 hex digits.
  static absl::StatusOr<SimHash64> FromHex(std::string_view hex);

  constexpr uint64_t bits() const { return bits_; }
  // 16 lowercase hex digits.
  std::string ToHex() const;

  friend constexpr bool operator==(SimHash64, SimHash64) = default;
  template <typename H>
  friend H AbslHashValue(H h, SimHash64 s) {
    return H::combine(std::move(h), s.bits_);
  }

 private:
  uint64_t bits_ = 0;
};

// Number of differing bits, 0..64.
constexpr int HammingDistance(SimHash64 a, SimHash64 b) {
  return std::popcount(a.bits() ^ b.bits());
}

struct SimHashOptions {
  // Words per shingle. 3 is the contract value (kFingerprintVersion 1). Smaller shingles make a
  // rewritten paragraph that reuses the same vocabulary look less changed (at 1, a paraphrase
  // with the same words is no change at all); larger ones make every edited word count in more
  // shingles, so a short rotating line moves the fingerprint almost as far as a paragraph.
  // docs/fingerprint.md has the measurements. Range [1, kMaxShingleWords].
  int shingle_words = 3;

  static constexpr int kMaxShingleWords = 8;
};

// kInvalidArgument if a field is out of range. ComputeSimHash clamps instead, so that a bad
// value cannot crash a fetcher; configuration loading should reject it with this.
absl::Status ValidateSimHashOptions(const SimHashOptions& options);

// The fingerprint of `text` (visible text, UTF-8; invalid bytes act as separators). Memory is at
// most 40 bytes per token (token hashes and a hash set of the shingles) and time linear: ~6 ms
// per MB of text (bench/micro BM_SimHash, websim pages). The caller bounds the input (the
// fetcher's body cap).
SimHash64 ComputeSimHash(std::string_view text, const SimHashOptions& options = {});

}  // namespace crawler::fingerprint

#endif  // CRAWLER_LIB_FINGERPRINT_SIMHASH_H_
