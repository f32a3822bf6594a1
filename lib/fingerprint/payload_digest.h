// PayloadDigest: the exact digests of one HTTP payload that the fetch pipeline records
// (docs/architecture.md §6, "exact digest of the payload"): the SHA-1 that goes into the WARC
// record's WARC-Payload-Digest header, and the ContentKey the dedup index is keyed by.
//
// "Payload" is exactly the bytes passed in. The caller must pass the same bytes that the WARC
// response record carries as its payload (WARC/1.1 §5.9: the entity body, transfer encoding
// removed), so that a reader re-computing the digest from the record gets the same value.
//
// Thread-safety: pure function.
#ifndef CRAWLER_LIB_FINGERPRINT_PAYLOAD_DIGEST_H_
#define CRAWLER_LIB_FINGERPRINT_PAYLOAD_DIGEST_H_

#include <string_view>

#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/sha1.h"

namespace crawler::fingerprint {

struct PayloadDigest {
  Sha1Digest sha1;         // for WARC: sha1.ToWarcString()
  ContentKey content_key;  // for the dedup index

  friend bool operator==(const PayloadDigest&, const PayloadDigest&) = default;
};

PayloadDigest ComputePayloadDigest(std::string_view payload);

}  // namespace crawler::fingerprint

#endif  // CRAWLER_LIB_FINGERPRINT_PAYLOAD_DIGEST_H_
