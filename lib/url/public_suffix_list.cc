#include "lib/url/public_suffix_list.h"

#include <libpsl.h>

#include <cstdio>

#include "absl/status/status.h"

namespace crawler::url {
namespace {

// Serialised hosts that are addresses: IPv6 in brackets, and IPv4 — the only serialised host
// whose last label is a number, because the URL parser turns every such host into an address.
bool IsIpAddress(std::string_view host) {
  if (!host.empty() && host.front() == '[') return true;
  return !host.empty() && host.back() >= '0' && host.back() <= '9';
}

}  // namespace

void PublicSuffixList::Deleter::operator()(psl_ctx_st* ctx) const { psl_free(ctx); }

PublicSuffixList::PublicSuffixList(psl_ctx_st* ctx, bool owned)
    : owned_(owned ? ctx : nullptr), ctx_(ctx) {}

PublicSuffixList::PublicSuffixList(PublicSuffixList&&) noexcept = default;
PublicSuffixList& PublicSuffixList::operator=(PublicSuffixList&&) noexcept = default;
PublicSuffixList::~PublicSuffixList() = default;

absl::StatusOr<PublicSuffixList> PublicSuffixList::LoadDefault() {
  // psl_latest(NULL) compares the distribution file (Debian's, compiled into libpsl as
  // psl_dist_filename()) with the built-in data and loads the newer one; it returns an owned
  // context either way.
  if (psl_ctx_t* latest = psl_latest(nullptr); latest != nullptr) {
    return PublicSuffixList(latest, /*owned=*/true);
  }
  if (const psl_ctx_t* builtin = psl_builtin(); builtin != nullptr) {
    return PublicSuffixList(const_cast<psl_ctx_t*>(builtin), /*owned=*/false);
  }
  return absl::FailedPreconditionError("libpsl has no public suffix data");
}

absl::StatusOr<PublicSuffixList> PublicSuffixList::LoadFile(const std::string& path) {
  if (std::FILE* f = std::fopen(path.c_str(), "rb"); f != nullptr) {
    std::fclose(f);
  } else {
    return absl::NotFoundError("cannot open public suffix list " + path);
  }
  psl_ctx_t* ctx = psl_load_file(path.c_str());
  if (ctx == nullptr) return absl::InvalidArgumentError("not a public suffix list: " + path);
  return PublicSuffixList(ctx, /*owned=*/true);
}

std::string PublicSuffixList::RegistrableDomain(std::string_view ascii_host) const {
  if (!ascii_host.empty() && ascii_host.back() == '.') ascii_host.remove_suffix(1);
  if (ascii_host.empty() || IsIpAddress(ascii_host)) return std::string(ascii_host);
  const std::string host(ascii_host);  // libpsl wants NUL-terminated strings
  // The result points into `host`, or is null when `host` is a public suffix itself.
  const char* domain = psl_registrable_domain(ctx_, host.c_str());
  return domain != nullptr ? std::string(domain) : host;
}

bool PublicSuffixList::IsPublicSuffix(std::string_view ascii_host) const {
  if (!ascii_host.empty() && ascii_host.back() == '.') ascii_host.remove_suffix(1);
  if (ascii_host.empty() || IsIpAddress(ascii_host)) return false;
  const std::string host(ascii_host);
  return psl_is_public_suffix(ctx_, host.c_str()) != 0;
}

}  // namespace crawler::url
