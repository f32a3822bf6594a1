// libFuzzer target for lib/url. Input: "BASE\nINPUT" (resolved against BASE when BASE parses)
// or a single absolute URL. Properties checked on every accepted URL, abort() on violation:
//   - the href is printable ASCII without spaces (everything else is percent-encoded / IDNA'd);
//   - the parser is idempotent: Parse(href) succeeds and gives the same href;
//   - the accessors cover the href exactly;
//   - Canonicalize is idempotent (with default and with sorting options);
//   - HostKey::FromString(HostKey::Of(url).str()) round-trips.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/url/canonical_url.h"
#include "lib/url/host_key.h"
#include "lib/url/url.h"

namespace {

using crawler::url::Canonicalize;
using crawler::url::CanonicalizeOptions;
using crawler::url::CanonicalUrl;
using crawler::url::HostKey;
using crawler::url::Url;

void Check(bool ok, const char* what, std::string_view detail) {
  if (ok) return;
  std::fprintf(stderr, "url_fuzzer: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

void CheckCanonicalIdempotent(const Url& url, const CanonicalizeOptions& options) {
  absl::StatusOr<CanonicalUrl> once = Canonicalize(url, options);
  Check(once.ok(), "Canonicalize(Url) failed", url.href());
  absl::StatusOr<CanonicalUrl> twice = Canonicalize(once->str(), options);
  Check(twice.ok(), "canonical form does not parse", once->str());
  Check(*twice == *once, "Canonicalize not idempotent", once->str() + " -> " + twice->str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Url> url;
  const size_t newline = in.find('\n');
  if (newline == std::string_view::npos) {
    url = Url::Parse(in);
  } else {
    absl::StatusOr<Url> base = Url::Parse(in.substr(0, newline));
    url =
        base.ok() ? Url::Parse(in.substr(newline + 1), *base) : Url::Parse(in.substr(newline + 1));
  }
  if (!url.ok()) return 0;

  const std::string& href = url->href();
  for (char c : href) {
    Check(c > 0x20 && c < 0x7F, "href has a byte that should be encoded", href);
  }

  absl::StatusOr<Url> reparsed = Url::Parse(href);
  Check(reparsed.ok(), "href does not parse", href);
  Check(reparsed->href() == href, "parser not idempotent", href + " -> " + reparsed->href());

  std::string rebuilt = std::string(url->scheme()) + "://";
  if (!url->username().empty() || !url->password().empty()) {
    rebuilt += std::string(url->username());
    if (!url->password().empty()) rebuilt += ":" + std::string(url->password());
    rebuilt += "@";
  }
  rebuilt += std::string(url->host());
  if (!url->port().empty()) rebuilt += ":" + std::string(url->port());
  rebuilt += std::string(url->path());
  if (url->has_query()) rebuilt += "?" + std::string(url->query());
  Check(rebuilt == url->href_without_fragment(), "components do not rebuild the href", href);
  if (url->has_fragment()) rebuilt += "#" + std::string(url->fragment());
  Check(rebuilt == href, "components do not rebuild the href", href);

  CheckCanonicalIdempotent(*url, {});
  CanonicalizeOptions sorted;
  sorted.sort_query_params = true;
  sorted.extra_params_to_strip = {"sid", "a*"};
  CheckCanonicalIdempotent(*url, sorted);

  const HostKey key = HostKey::Of(*url);
  absl::StatusOr<HostKey> from_string = HostKey::FromString(key.str());
  Check(from_string.ok() && *from_string == key, "HostKey does not round-trip", key.str());
  return 0;
}
