// SHA-256 (FIPS 180-4 §6.2), incremental, for the integrity digests of whole files: the
// resources of a WACZ package (its datapackage.json lists "sha256:<hex>" per file) and the
// archive files a fetcher serves, which the client checks after a transfer that may have been
// resumed. Not for content identity (content_key.h) nor WARC record digests (sha1.h).
//
// OpenSSL's libcrypto does the compression function (EVP interface, linked privately), as for
// SHA-1 (sha1.h); a libcrypto without SHA-256 is a fatal error.
//
// Thread-safety: a Sha256Hasher is not thread-safe; use one per thread.
#ifndef CRAWLER_LIB_FINGERPRINT_SHA256_H_
#define CRAWLER_LIB_FINGERPRINT_SHA256_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

// OpenSSL's EVP_MD_CTX, declared here so that the header needs no OpenSSL include.
struct evp_md_ctx_st;

namespace crawler::fingerprint {

class Sha256Hasher {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(std::string_view data);
  // The digest of everything passed to Update since construction or the last Finish; resets
  // the hasher.
  Digest Finish();
  // Finish() as "sha256:" and 64 lowercase hex digits, the form WACZ and the archive-file
  // service use.
  std::string FinishLabelled();

 private:
  evp_md_ctx_st* ctx_;  // owned
};

// "sha256:<hex>" of `data`.
std::string Sha256Labelled(std::string_view data);

}  // namespace crawler::fingerprint

#endif  // CRAWLER_LIB_FINGERPRINT_SHA256_H_
