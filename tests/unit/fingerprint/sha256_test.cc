// SHA-256 (FIPS 180-4 §6.2) of whole files, in pieces, as "sha256:<hex>".
#include "lib/fingerprint/sha256.h"

#include <string>

#include "gtest/gtest.h"

namespace crawler::fingerprint {
namespace {

// NIST's one-block and two-block examples and the empty message.
TEST(Fips180_4_6_2, NistExampleVectorsInPieces) {
  EXPECT_EQ(Sha256Labelled(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Labelled("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256Hasher hasher;
  const std::string message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  for (size_t i = 0; i < message.size(); i += 5) hasher.Update(message.substr(i, 5));
  EXPECT_EQ(hasher.FinishLabelled(),
            "sha256:248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // Finish resets the hasher.
  hasher.Update("abc");
  EXPECT_EQ(hasher.FinishLabelled(), Sha256Labelled("abc"));
}

}  // namespace
}  // namespace crawler::fingerprint
