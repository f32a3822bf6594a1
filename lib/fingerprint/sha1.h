// SHA-1 (FIPS 180-4 §6.1) and the digest value type that WARC records carry.
//
// SHA-1 is here only because WARC (ISO 28500, WARC/1.1 §5.8-5.9) readers and replay tools expect
// `WARC-Payload-Digest` / `WARC-Block-Digest` as "sha1:<BASE32>"; it is not used for anything
// that needs collision resistance (dedup keys use ContentKey, see content_key.h).
//
// The compression function is OpenSSL's libcrypto (EVP interface, linked privately; no OpenSSL
// header leaks out of this one): its assembly uses the SHA extensions or AVX2 where the CPU has
// them, ~10x the throughput of a portable C++ version (docs/fingerprint.md, "Cost"), and every
// payload and WARC block is hashed. A failure of libcrypto to provide SHA-1 (out of memory, a
// provider configuration without it) is a fatal error: there is no digest to fall back on.
//
// Thread-safety: Sha1Digest is an immutable value. A Sha1Hasher is not thread-safe; use one per
// thread. Sha1() is a pure function.
#ifndef CRAWLER_LIB_FINGERPRINT_SHA1_H_
#define CRAWLER_LIB_FINGERPRINT_SHA1_H_

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

// OpenSSL's EVP_MD_CTX, declared here so that the header needs no OpenSSL include.
struct evp_md_ctx_st;

namespace crawler::fingerprint {

// A 160-bit SHA-1 digest.
class Sha1Digest {
 public:
  static constexpr size_t kSize = 20;
  using Bytes = std::array<uint8_t, kSize>;

  // All-zero digest (not the digest of any known input; a placeholder for "not computed").
  constexpr Sha1Digest() = default;
  constexpr explicit Sha1Digest(const Bytes& bytes) : bytes_(bytes) {}

  // Parses a WARC labelled digest (WARC/1.1 §5.8: `algorithm ":" digest-value`). The algorithm
  // label is case-insensitive; the value may be base32 (32 characters, the common form) or hex
  // (40 characters, written by some tools), either case. Errors: kUnimplemented for another
  // algorithm ("sha256:..."), kInvalidArgument for anything malformed.
  static absl::StatusOr<Sha1Digest> FromWarcString(std::string_view labelled);

  const Bytes& bytes() const { return bytes_; }

  // 40 lowercase hex digits, as sha1sum prints.
  std::string ToHex() const;
  // 32 upper-case base32 characters (RFC 4648; 160 bits need no padding).
  std::string ToBase32() const;
  // "sha1:" + ToBase32(): the value of WARC-Payload-Digest / WARC-Block-Digest.
  std::string ToWarcString() const;

  friend constexpr bool operator==(const Sha1Digest&, const Sha1Digest&) = default;
  friend constexpr auto operator<=>(const Sha1Digest&, const Sha1Digest&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Sha1Digest& d) {
    return H::combine(std::move(h), d.bytes_);
  }

 private:
  Bytes bytes_{};
};

// Incremental SHA-1, for digests of data that arrives in pieces (a WARC block = HTTP header +
// payload, a body streamed from the network). Memory is constant (an OpenSSL digest context).
// Movable, not copyable.
class Sha1Hasher {
 public:
  Sha1Hasher();
  ~Sha1Hasher();
  Sha1Hasher(Sha1Hasher&& other) noexcept;
  Sha1Hasher& operator=(Sha1Hasher&& other) noexcept;
  Sha1Hasher(const Sha1Hasher&) = delete;
  Sha1Hasher& operator=(const Sha1Hasher&) = delete;

  // REQUIRES: the hasher was not moved from.
  void Update(std::string_view data);
  // Returns the digest of everything passed to Update since construction or the last Finish, and
  // resets the hasher so it can be reused. REQUIRES: the hasher was not moved from.
  Sha1Digest Finish();

 private:
  evp_md_ctx_st* ctx_;  // owned; OpenSSL's EVP_MD_CTX
};

// SHA-1 of `data` in one call.
Sha1Digest Sha1(std::string_view data);

}  // namespace crawler::fingerprint

#endif  // CRAWLER_LIB_FINGERPRINT_SHA1_H_
