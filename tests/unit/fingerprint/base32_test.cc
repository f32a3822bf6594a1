// Base32, RFC 4648.
#include "lib/fingerprint/base32.h"

#include <string>

#include "gtest/gtest.h"

namespace crawler::fingerprint {
namespace {

// RFC 4648 §10, "Test Vectors" for BASE32.
TEST(Rfc4648_10, TestVectors) {
  struct Case {
    const char* plain;
    const char* encoded;
  };
  const Case cases[] = {
      {"", ""},
      {"f", "MY======"},
      {"fo", "MZXQ===="},
      {"foo", "MZXW6==="},
      {"foob", "MZXW6YQ="},
      {"fooba", "MZXW6YTB"},
      {"foobar", "MZXW6YTBOI======"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Base32Encode(c.plain), c.encoded) << c.plain;
    absl::StatusOr<std::string> decoded = Base32Decode(c.encoded);
    ASSERT_TRUE(decoded.ok()) << c.encoded << ": " << decoded.status();
    EXPECT_EQ(*decoded, c.plain);
  }
}

TEST(Rfc4648_6, RoundTripsAllByteValuesAndLengths) {
  std::string data;
  for (int i = 0; i < 300; ++i) {
    data.push_back(static_cast<char>((i * 131) & 0xFF));
    absl::StatusOr<std::string> decoded = Base32Decode(Base32Encode(data));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    ASSERT_EQ(*decoded, data);
  }
}

TEST(Rfc4648_6, DecodingAcceptsLowerCaseAndMissingPadding) {
  EXPECT_EQ(*Base32Decode("mzxw6ytboi======"), "foobar");
  EXPECT_EQ(*Base32Decode("MZXW6YTBOI"), "foobar");
  EXPECT_EQ(*Base32Decode("MY"), "f");
}

TEST(Rfc4648_3_5, DecodingRejectsMalformedInput) {
  for (const char* bad : {
           "M",          // a final group of 1 character cannot encode whole bytes
           "MZX",        // 3
           "MZXW6Y",     // 6
           "MZ======",   // 'Z' leaves non-zero pad bits (canonical is "MY")
           "MY=====",    // incomplete padding
           "MY=A====",   // '=' inside the data
           "========",   // padding only
           "MZXW6YT1",   // '1' is not in the alphabet
           "MZXW 6YTB",  // nor is space
       }) {
    EXPECT_EQ(Base32Decode(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace crawler::fingerprint
