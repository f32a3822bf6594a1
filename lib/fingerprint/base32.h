// Base32 (RFC 4648 §6, the "base32" alphabet A-Z 2-7 with '=' padding), the encoding of the
// de-facto standard WARC digest form "sha1:<32 base32 characters>".
//
// Thread-safety: pure functions; safe to call concurrently.
#ifndef CRAWLER_LIB_FINGERPRINT_BASE32_H_
#define CRAWLER_LIB_FINGERPRINT_BASE32_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler::fingerprint {

// Encodes `bytes` with padding to a multiple of 8 characters (RFC 4648 §6); upper case.
std::string Base32Encode(std::string_view bytes);

// Decodes RFC 4648 base32. Accepts lower case letters too (WARC writers differ) and the padding
// may be omitted, but a present padding must be complete and correct. Rejects with
// kInvalidArgument: characters outside the alphabet, impossible lengths (a final group of 1, 3
// or 6 characters), and non-zero pad bits in the last character (RFC 4648 §3.5: otherwise two
// strings would decode to the same bytes).
absl::StatusOr<std::string> Base32Decode(std::string_view text);

}  // namespace crawler::fingerprint

#endif  // CRAWLER_LIB_FINGERPRINT_BASE32_H_
