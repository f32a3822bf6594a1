#include "lib/fingerprint/sha256.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "lib/encoding/hex.h"

namespace crawler::fingerprint {
namespace {

[[noreturn]] void Sha256Failure(const char* what) {
  std::fprintf(stderr, "fatal: OpenSSL SHA-256: %s failed\n", what);
  std::abort();
}

// Fetched once and shared by every hasher until exit (see Sha1Md in sha1.cc).
const EVP_MD* Sha256Md() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (fetched == nullptr) Sha256Failure("EVP_MD_fetch");
    return fetched;
  }();
  return md;
}

void Init(EVP_MD_CTX* ctx) {
  if (EVP_DigestInit_ex(ctx, Sha256Md(), nullptr) != 1) Sha256Failure("EVP_DigestInit_ex");
}

}  // namespace

Sha256Hasher::Sha256Hasher() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) Sha256Failure("EVP_MD_CTX_new");
  Init(ctx_);
}

Sha256Hasher::~Sha256Hasher() { EVP_MD_CTX_free(ctx_); }

void Sha256Hasher::Update(std::string_view data) {
  if (EVP_DigestUpdate(ctx_, data.data(), data.size()) != 1) Sha256Failure("EVP_DigestUpdate");
}

Sha256Hasher::Digest Sha256Hasher::Finish() {
  Digest out;
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx_, out.data(), &length) != 1 || length != out.size()) {
    Sha256Failure("EVP_DigestFinal_ex");
  }
  Init(ctx_);
  return out;
}

std::string Sha256Hasher::FinishLabelled() {
  return absl::StrCat("sha256:", encoding::HexEncode(Finish()));
}

std::string Sha256Labelled(std::string_view data) {
  Sha256Hasher hasher;
  hasher.Update(data);
  return hasher.FinishLabelled();
}

}  // namespace crawler::fingerprint
