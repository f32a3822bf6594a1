#include "lib/fingerprint/payload_digest.h"

namespace crawler::fingerprint {

PayloadDigest ComputePayloadDigest(std::string_view payload) {
  return PayloadDigest{.sha1 = Sha1(payload), .content_key = ComputeContentKey(payload)};
}

}  // namespace crawler::fingerprint
