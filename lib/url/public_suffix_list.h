// PublicSuffixList: the registrable domain ("eTLD+1", the "site" of the HTML Standard) of a host,
// from the Public Suffix List (https://publicsuffix.org/) via libpsl. The crawler uses it to
// group hosts of one organisation (www.example.co.uk and shop.example.co.uk -> example.co.uk),
// e.g. for scope rules and per-site budgets.
//
// Both the ICANN and the private sections of the list apply, as in browsers: a.github.io and
// b.github.io are different sites.
//
// Data: Debian's package publicsuffix (/usr/share/publicsuffix/public_suffix_list.dafsa) or the
// copy built into libpsl, whichever is newer (libpsl's psl_latest()). The list is loaded once per
// object; there is no process-wide instance: whoever needs one constructs it at start-up and
// passes it down (it is cheap to move, expensive only to load).
//
// Thread-safety: after construction the object is immutable; all const methods are thread-safe.
#ifndef CRAWLER_LIB_URL_PUBLIC_SUFFIX_LIST_H_
#define CRAWLER_LIB_URL_PUBLIC_SUFFIX_LIST_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

struct psl_ctx_st;  // libpsl's context, kept out of this header

namespace crawler::url {

class PublicSuffixList {
 public:
  // The newer of Debian's list and libpsl's built-in list. kFailedPrecondition only if libpsl
  // has neither.
  static absl::StatusOr<PublicSuffixList> LoadDefault();
  // A list from `path`, in the text format of public_suffix_list.dat or libpsl's DAFSA format.
  // kNotFound if the file cannot be opened, kInvalidArgument if libpsl cannot read it.
  static absl::StatusOr<PublicSuffixList> LoadFile(const std::string& path);

  PublicSuffixList(PublicSuffixList&&) noexcept;
  PublicSuffixList& operator=(PublicSuffixList&&) noexcept;
  ~PublicSuffixList();

  // The registrable domain of `ascii_host` (REQUIRES: lower-case ASCII as Url::host() returns):
  //   "www.example.co.uk" -> "example.co.uk";  "foo.unknowntld" -> "foo.unknowntld" (the
  //   list's default rule makes every unknown TLD a public suffix);
  //   a host that is itself a public suffix ("co.uk", "localhost") -> the host;
  //   an IP address ("192.0.2.1", "[2001:db8::1]") -> the address;
  //   a trailing dot is dropped ("www.example.com." -> "example.com"): it names the same site.
  std::string RegistrableDomain(std::string_view ascii_host) const;

  // Whether `ascii_host` is a public suffix ("com", "co.uk", "github.io"); same REQUIRES.
  bool IsPublicSuffix(std::string_view ascii_host) const;

 private:
  struct Deleter {
    void operator()(psl_ctx_st* ctx) const;
  };
  explicit PublicSuffixList(psl_ctx_st* ctx, bool owned);

  std::unique_ptr<psl_ctx_st, Deleter> owned_;  // null for libpsl's static built-in list
  const psl_ctx_st* ctx_;                       // never null
};

}  // namespace crawler::url

#endif  // CRAWLER_LIB_URL_PUBLIC_SUFFIX_LIST_H_
