// ContentKey (XXH3-128) and PayloadDigest.
#include "lib/fingerprint/content_key.h"

#include <cctype>
#include <iterator>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"
#include "lib/fingerprint/payload_digest.h"

namespace crawler::fingerprint {
namespace {

// Reference value of the xxHash sanity checks: XXH3_128bits of the empty input, seed 0.
TEST(ContentKey, IsXxh3_128Seed0) {
  const ContentKey empty = ComputeContentKey("");
  EXPECT_EQ(empty.high(), 0x99AA06D3014798D8ULL);
  EXPECT_EQ(empty.low(), 0x6001C324468D497FULL);
  EXPECT_EQ(empty.ToHex(), "99aa06d3014798d86001c324468d497f");
}

TEST(ContentKey, HexAndBytesRoundTrip) {
  const ContentKey key = ComputeContentKey("<html><body>hello</body></html>");
  EXPECT_EQ(*ContentKey::FromHex(key.ToHex()), key);
  std::string upper = key.ToHex();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(*ContentKey::FromHex(upper), key);
  EXPECT_EQ(ContentKey::FromBytes(key.ToBytes()), key);
  for (const char* bad :
       {"", "99aa06d3014798d86001c324468d497", "99aa06d3014798d86001c324468d497fa",
        "99aa06d3014798d86001c324468d497g"}) {
    EXPECT_EQ(ContentKey::FromHex(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

// ToBytes is a RocksDB key: byte order must equal numeric order.
TEST(ContentKey, BytesSortLikeKeys) {
  const ContentKey keys[] = {ContentKey(0, 0),
                             ContentKey(0, 1),
                             ContentKey(0, ~0ULL),
                             ContentKey(1, 0),
                             ContentKey(0x8000000000000000ULL, 0),
                             ContentKey(~0ULL, ~0ULL)};
  for (size_t i = 0; i + 1 < std::size(keys); ++i) {
    EXPECT_LT(keys[i], keys[i + 1]);
    EXPECT_LT(keys[i].ToBytes(), keys[i + 1].ToBytes()) << i;
  }
}

TEST(ContentKey, DistinguishesNearlyEqualPayloads) {
  absl::flat_hash_set<ContentKey> seen;
  std::string payload(1000, 'x');
  for (size_t i = 0; i < payload.size(); ++i) {
    payload[i] = 'y';
    EXPECT_TRUE(seen.insert(ComputeContentKey(payload)).second) << i;
    payload[i] = 'x';
  }
}

TEST(PayloadDigest, CarriesBothDigestsOfTheSameBytes) {
  const std::string body = "HTTP payload bytes";
  const PayloadDigest digest = ComputePayloadDigest(body);
  EXPECT_EQ(digest.sha1, Sha1(body));
  EXPECT_EQ(digest.content_key, ComputeContentKey(body));
  EXPECT_EQ(ComputePayloadDigest(body), digest);
  EXPECT_NE(ComputePayloadDigest(body + " "), digest);
}

}  // namespace
}  // namespace crawler::fingerprint
