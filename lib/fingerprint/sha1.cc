#include "lib/fingerprint/sha1.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/ascii.h"
#include "lib/encoding/hex.h"
#include "lib/fingerprint/base32.h"

namespace crawler::fingerprint {
namespace {

[[noreturn]] void Sha1Failure(const char* what) {
  std::fprintf(stderr, "fatal: OpenSSL SHA-1: %s failed\n", what);
  std::abort();
}

// SHA-1 fetched from the default provider once: EVP_sha1() would look it up again on every
// EVP_DigestInit_ex, which costs as much as hashing a small page. Never freed (it is shared by
// every hasher until exit).
const EVP_MD* Sha1Md() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA1", nullptr);
    if (fetched == nullptr) Sha1Failure("EVP_MD_fetch");
    return fetched;
  }();
  return md;
}

void Init(EVP_MD_CTX* ctx) {
  if (EVP_DigestInit_ex(ctx, Sha1Md(), nullptr) != 1) Sha1Failure("EVP_DigestInit_ex");
}

}  // namespace

Sha1Hasher::Sha1Hasher() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) Sha1Failure("EVP_MD_CTX_new");
  Init(ctx_);
}

Sha1Hasher::~Sha1Hasher() { EVP_MD_CTX_free(ctx_); }

Sha1Hasher::Sha1Hasher(Sha1Hasher&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}

Sha1Hasher& Sha1Hasher::operator=(Sha1Hasher&& other) noexcept {
  if (this != &other) {
    EVP_MD_CTX_free(ctx_);
    ctx_ = std::exchange(other.ctx_, nullptr);
  }
  return *this;
}

void Sha1Hasher::Update(std::string_view data) {
  if (EVP_DigestUpdate(ctx_, data.data(), data.size()) != 1) Sha1Failure("EVP_DigestUpdate");
}

Sha1Digest Sha1Hasher::Finish() {
  Sha1Digest::Bytes out;
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx_, out.data(), &length) != 1 || length != out.size()) {
    Sha1Failure("EVP_DigestFinal_ex");
  }
  Init(ctx_);
  return Sha1Digest(out);
}

Sha1Digest Sha1(std::string_view data) {
  // One hasher per thread, reset by Finish: a fresh OpenSSL context per call costs allocations
  // and provider bookkeeping on every payload and WARC block.
  thread_local Sha1Hasher hasher;
  hasher.Update(data);
  return hasher.Finish();
}

std::string Sha1Digest::ToHex() const { return encoding::HexEncode(bytes_); }

std::string Sha1Digest::ToBase32() const {
  return Base32Encode(
      std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size()));
}

std::string Sha1Digest::ToWarcString() const { return absl::StrCat("sha1:", ToBase32()); }

absl::StatusOr<Sha1Digest> Sha1Digest::FromWarcString(std::string_view labelled) {
  const size_t colon = labelled.find(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError("WARC digest: missing 'algorithm:' label");
  }
  const std::string_view algorithm = labelled.substr(0, colon);
  const std::string_view value = labelled.substr(colon + 1);
  if (!encoding::EqualsIgnoreCase(algorithm, "sha1") &&
      !encoding::EqualsIgnoreCase(algorithm, "sha-1")) {
    // The label comes from an untrusted file: quote at most a bounded, escaped prefix of it.
    return absl::UnimplementedError(
        absl::StrCat("WARC digest: unsupported algorithm '",
                     absl::CEscape(std::string(algorithm.substr(0, 32))), "'"));
  }
  Bytes bytes;
  if (value.size() == 2 * kSize) {
    if (!encoding::HexDecode(value, bytes)) {
      return absl::InvalidArgumentError("WARC digest: invalid hex digit");
    }
    return Sha1Digest(bytes);
  }
  if (value.size() != 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "WARC digest: sha1 value must be 32 base32 or 40 hex characters, got ", value.size()));
  }
  absl::StatusOr<std::string> decoded = Base32Decode(value);
  if (!decoded.ok()) return decoded.status();
  std::memcpy(bytes.data(), decoded->data(), kSize);  // 32 base32 characters are exactly 20 bytes
  return Sha1Digest(bytes);
}

}  // namespace crawler::fingerprint
