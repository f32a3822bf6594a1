// lib/fingerprint/change_digest.cc's normalisation in its original, unoptimised form (a frozen
// copy; see reference_change_digest.cc): the oracle for the library's NormalizeForChangeDigest.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_TESTS_UNIT_FINGERPRINT_REFERENCE_CHANGE_DIGEST_H_
#define CRAWLER_TESTS_UNIT_FINGERPRINT_REFERENCE_CHANGE_DIGEST_H_

#include <string>
#include <string_view>

namespace crawler::fingerprint::reference {

std::string NormalizeForChangeDigest(std::string_view main_text);

}  // namespace crawler::fingerprint::reference

#endif  // CRAWLER_TESTS_UNIT_FINGERPRINT_REFERENCE_CHANGE_DIGEST_H_
