// The fingerprint tokeniser of kFingerprintVersion 1 in its original, unoptimised form (a frozen
// copy; see reference_text_normalizer.cc): the oracle for the library's ForEachFingerprintToken.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_TESTS_UNIT_FINGERPRINT_REFERENCE_TEXT_NORMALIZER_H_
#define CRAWLER_TESTS_UNIT_FINGERPRINT_REFERENCE_TEXT_NORMALIZER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"

namespace crawler::fingerprint::reference {

void ForEachFingerprintToken(std::string_view text,
                             absl::FunctionRef<void(std::string_view token)> emit);
std::vector<std::string> FingerprintTokens(std::string_view text);
bool IsDateOrTimeWord(std::string_view token);

}  // namespace crawler::fingerprint::reference

#endif  // CRAWLER_TESTS_UNIT_FINGERPRINT_REFERENCE_TEXT_NORMALIZER_H_
