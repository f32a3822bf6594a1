// SimHash64: construction (Charikar 2002 over word shingles), value type, options.
#include "lib/fingerprint/simhash.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/fingerprint/reference_text_normalizer.h"

namespace crawler::fingerprint {
namespace {

uint64_t TokenHash(std::string_view token) { return XXH3_64bits(token.data(), token.size()); }

// The documented shingle hash: XXH3-64 over the little-endian bytes of the token hashes.
uint64_t ShingleHash(const std::vector<std::string_view>& tokens) {
  std::string bytes;
  for (std::string_view t : tokens) {
    const uint64_t h = TokenHash(t);
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(h >> (8 * i)));
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

// The definition of simhash.h written as plainly as possible (the library's code before it was
// optimised, over the frozen version 1 tokeniser): a sorted, de-duplicated vector of shingle
// hashes and a +1/-1 vote per bit.
SimHash64 ReferenceSimHash(std::string_view text, int shingle_words) {
  std::vector<uint64_t> token_hashes;
  for (const std::string& token : reference::FingerprintTokens(text)) {
    token_hashes.push_back(TokenHash(token));
  }
  if (token_hashes.empty()) return SimHash64(0);
  const size_t k = std::min<size_t>(std::clamp(shingle_words, 1, SimHashOptions::kMaxShingleWords),
                                    token_hashes.size());
  std::vector<uint64_t> shingles;
  for (size_t i = 0; i + k <= token_hashes.size(); ++i) {
    std::string bytes;
    for (size_t j = 0; j < k; ++j) {
      for (int b = 0; b < 8; ++b) {
        bytes.push_back(static_cast<char>(token_hashes[i + j] >> (8 * b)));
      }
    }
    shingles.push_back(XXH3_64bits(bytes.data(), bytes.size()));
  }
  std::sort(shingles.begin(), shingles.end());
  shingles.erase(std::unique(shingles.begin(), shingles.end()), shingles.end());
  uint64_t bits = 0;
  for (int bit = 0; bit < 64; ++bit) {
    int64_t votes = 0;
    for (uint64_t h : shingles) votes += ((h >> bit) & 1) ? 1 : -1;
    if (votes > 0) bits |= uint64_t{1} << bit;
  }
  return SimHash64(bits);
}

// Random texts over a small vocabulary (so shingles repeat), with case, digits, punctuation,
// non-ASCII words and date words mixed in, from empty to several thousand words (the vote
// counter's narrow lanes are flushed every 255 shingles).
std::string RandomText(std::mt19937_64& rng) {
  static constexpr std::array<std::string_view, 24> kWords = {
      "alpha",  "Beta",   "GAMMA", "delta", "epsilon",          "zeta", "eta",
      "theta",  "Straße", "élan",  "Ωmega", "Москва",           "東京", "march",
      "Monday", "x",      "y",     "z",     "hQeRtYuIoPaSdFgH", "v2",   "12,345",
      "don't",  "e-mail", "naïve"};
  static constexpr std::array<std::string_view, 6> kSeparators = {" ",   "  ", ", ",
                                                                  ".\n", "\t", " — "};
  const size_t lengths[] = {0, 1, 2, 3, 5, 20, 254, 255, 256, 600, 3000};
  const size_t words = std::uniform_int_distribution<size_t>(0, 1)(rng)
                           ? lengths[std::uniform_int_distribution<size_t>(0, 10)(rng)]
                           : std::uniform_int_distribution<size_t>(0, 1500)(rng);
  // A vocabulary subset per text: small ones make most shingles repeat.
  const size_t vocabulary = std::uniform_int_distribution<size_t>(1, kWords.size())(rng);
  std::string text;
  for (size_t i = 0; i < words; ++i) {
    text.append(kWords[std::uniform_int_distribution<size_t>(0, vocabulary - 1)(rng)]);
    text.append(kSeparators[std::uniform_int_distribution<size_t>(0, kSeparators.size() - 1)(rng)]);
  }
  return text;
}

TEST(SimHashReference, EqualsPlainImplementationOnRandomTexts) {
  std::mt19937_64 rng(20250601);
  for (int i = 0; i < 600; ++i) {
    const std::string text = RandomText(rng);
    const int shingle_words = std::uniform_int_distribution<int>(0, 9)(rng);  // clamped too
    SimHashOptions options;
    options.shingle_words = shingle_words;
    ASSERT_EQ(ComputeSimHash(text, options), ReferenceSimHash(text, shingle_words))
        << "text #" << i << " (" << text.size() << " bytes), shingle_words " << shingle_words;
  }
}

TEST(SimHash64, HammingDistanceCountsDifferingBits) {
  EXPECT_EQ(HammingDistance(SimHash64(0), SimHash64(0)), 0);
  EXPECT_EQ(HammingDistance(SimHash64(0), SimHash64(~0ULL)), 64);
  EXPECT_EQ(HammingDistance(SimHash64(0b1011), SimHash64(0b0110)), 3);
  EXPECT_EQ(HammingDistance(SimHash64(1ULL << 63), SimHash64(1)), 2);
}

TEST(SimHash64, HexRoundTrip) {
  const SimHash64 h(0x0123456789ABCDEFULL);
  EXPECT_EQ(h.ToHex(), "0123456789abcdef");
  EXPECT_EQ(*SimHash64::FromHex("0123456789ABCDEF"), h);
  EXPECT_EQ(SimHash64::FromHex("0123456789abcde").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SimHash64::FromHex("0123456789abcdeg").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Charikar2002, TextWithoutTokensIsZero) {
  EXPECT_EQ(ComputeSimHash(""), SimHash64(0));
  EXPECT_EQ(ComputeSimHash("   \t\n "), SimHash64(0));
  EXPECT_EQ(ComputeSimHash("12,345 -- 3.14 / 2025-03-03 10:42"), SimHash64(0));
}

// With a single shingle every bit has one vote, so the fingerprint is that shingle's hash: this
// pins the shingle hashing independently of the implementation.
TEST(Charikar2002, OneShingleGivesItsOwnHash) {
  EXPECT_EQ(ComputeSimHash("Hello").bits(), ShingleHash({"hello"}));
  EXPECT_EQ(ComputeSimHash("hello world").bits(), ShingleHash({"hello", "world"}));  // < k tokens
  EXPECT_EQ(ComputeSimHash("quick brown fox").bits(), ShingleHash({"quick", "brown", "fox"}));
  SimHashOptions unigrams;
  unigrams.shingle_words = 1;
  EXPECT_EQ(ComputeSimHash("fox", unigrams).bits(), ShingleHash({"fox"}));
}

// Bit i is the majority vote of the distinct shingles.
TEST(Charikar2002, BitsAreMajorityVotesOfDistinctShingles) {
  const uint64_t a = ShingleHash({"a", "b", "c"});
  const uint64_t b = ShingleHash({"b", "c", "d"});
  const uint64_t c = ShingleHash({"c", "d", "e"});
  const uint64_t majority = (a & b) | (a & c) | (b & c);
  EXPECT_EQ(ComputeSimHash("a b c d e").bits(), majority);
}

// Shingles form a set: repeating text adds no new shingle and does not change the fingerprint.
TEST(Charikar2002, RepeatedShinglesCountOnce) {
  EXPECT_EQ(ComputeSimHash("x y z x y z"), ComputeSimHash("x y z x y z x y z x y z"));
  EXPECT_NE(ComputeSimHash("x y z x y z"), ComputeSimHash("x y z x y q"));
}

TEST(Charikar2002, NormalisationMakesCaseSpacingAndNumbersIrrelevant) {
  const SimHash64 h = ComputeSimHash("The council met on Monday, 3 March 2025 and voted 12 to 9.");
  EXPECT_EQ(ComputeSimHash("the   COUNCIL met on Friday, 28 November 2025 and voted 11 to 10 !"),
            h);
  EXPECT_EQ(HammingDistance(h, h), 0);
}

TEST(Charikar2002, WordOrderMatters) {
  EXPECT_NE(ComputeSimHash("dog bites man in the park"),
            ComputeSimHash("man bites dog in the park"));
}

// The fingerprint definition is an on-disk contract (kFingerprintVersion 1): these values must
// never change without bumping the version.
TEST(Charikar2002, PinnedValuesOfVersion1) {
  ASSERT_EQ(kFingerprintVersion, 1);
  EXPECT_EQ(ComputeSimHash("The quick brown fox jumps over the lazy dog.").ToHex(),
            "75a5b714549a617a");
  EXPECT_EQ(ComputeSimHash("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do "
                           "eiusmod tempor incididunt ut labore et dolore magna aliqua.")
                .ToHex(),
            "f2841a827f998378");
}

TEST(SimHashOptions, ValidationAndClamping) {
  SimHashOptions options;
  EXPECT_TRUE(ValidateSimHashOptions(options).ok());
  for (int bad : {0, -1, SimHashOptions::kMaxShingleWords + 1}) {
    options.shingle_words = bad;
    EXPECT_EQ(ValidateSimHashOptions(options).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  // Out-of-range values are clamped rather than crashing a fetcher.
  const std::string text = "one two three four five six seven eight nine ten eleven twelve";
  options.shingle_words = 0;
  SimHashOptions one;
  one.shingle_words = 1;
  EXPECT_EQ(ComputeSimHash(text, options), ComputeSimHash(text, one));
  options.shingle_words = 1000;
  SimHashOptions max;
  max.shingle_words = SimHashOptions::kMaxShingleWords;
  EXPECT_EQ(ComputeSimHash(text, options), ComputeSimHash(text, max));
}

}  // namespace
}  // namespace crawler::fingerprint
