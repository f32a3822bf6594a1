// Url: an http/https URL parsed and serialised the way browsers do it (WHATWG URL Standard,
// https://url.spec.whatwg.org/, "basic URL parser" and "URL serializer"), restricted to the two
// schemes a web crawler fetches. Other schemes (mailto:, javascript:, data:, ftp:, file:, ...)
// are recognised and rejected with absl::StatusCode::kUnimplemented and a message naming the
// scheme; malformed input is rejected with kInvalidArgument and the spec's validation error as
// the reason.
//
// Hosts are converted to ASCII with IDNA (UTS #46, non-transitional, via libidn2) as the
// "domain to ASCII" step of the standard says, with the deviations listed below; IPv4 (including
// the legacy hex/octal forms) and IPv6 hosts are parsed and serialised canonically.
//
// Deliberately not implemented (a Url is always http/https and built only by Parse):
//   - the states for other schemes: file, opaque paths ("cannot-be-a-base-URL", e.g. mailto:),
//     non-special authorities; such input is rejected with kUnimplemented as soon as its scheme
//     is read, so "non-special://..." validation errors are never reported;
//   - state overrides (the URL API's setters) and query encodings other than UTF-8;
//   - validation errors that are not failures are not reported.
// Deviations (see lib/url/internal/host_parser.h and url.cc for the reasons):
//   - input is bytes; bytes that are not UTF-8 are percent-encoded as they are in path, query,
//     fragment and userinfo instead of first becoming U+FFFD; in a host they make it invalid;
//   - ASCII host labels, "xn--" ones included, are only lower-cased (as the web-platform-tests
//     data expects: "xn--pokxncvks" and "xn--" are accepted);
//   - non-ASCII host labels go through libidn2, which also enforces IDNA2008: labels with
//     leading/trailing hyphens or "--" at positions 3-4, symbols such as U+2603 or emoji, and
//     labels longer than 63 bytes as Punycode are rejected where the standard accepts them;
//   - input longer than 2 MiB is rejected (kInvalidArgument), as Chromium does.
//
// Thread-safety: Url is an immutable value; all functions here are thread-safe.
#ifndef CRAWLER_LIB_URL_URL_H_
#define CRAWLER_LIB_URL_URL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler::url {

class Url {
 public:
  // Parses an absolute URL. Leading/trailing C0 controls and spaces are stripped and tab/newline
  // removed, as the standard says.
  static absl::StatusOr<Url> Parse(std::string_view input);
  // Parses `input` relative to `base` (e.g. an <a href> value against the page URL).
  static absl::StatusOr<Url> Parse(std::string_view input, const Url& base);

  // The serialisation (WHATWG "href"), e.g. "https://xn--bcher-kva.example/a/b?q#frag".
  const std::string& href() const { return href_; }

  // Components, as the WHATWG URL API exposes them but without the decorations:
  // scheme "http"/"https"; host is the serialised host ("example.org", "192.0.2.1", "[::1]");
  // port is empty when it is the scheme's default; path starts with '/'; query and fragment
  // exclude the leading '?' / '#' and has_query()/has_fragment() tell empty from absent.
  std::string_view scheme() const;
  std::string_view username() const;
  std::string_view password() const;
  std::string_view host() const;
  std::string_view port() const;
  std::string_view path() const;
  std::string_view query() const;
  std::string_view fragment() const;
  bool has_query() const { return query_begin_ != kNone; }
  bool has_fragment() const { return fragment_begin_ != kNone; }

  // The port to connect to: port() if present, else 80 / 443.
  uint16_t effective_port() const;
  // href() without the fragment.
  std::string_view href_without_fragment() const;
  // Drops the fragment, if any: href() becomes href_without_fragment().
  void ClearFragment();

  friend bool operator==(const Url& a, const Url& b) { return a.href_ == b.href_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  Url() = default;
  friend class UrlParser;  // the implementation in url.cc

  std::string href_;
  // Offsets into href_ (see url.cc for the exact layout).
  uint32_t scheme_end_ = 0;  // position of ':'
  uint32_t username_begin_ = 0, username_end_ = 0;
  uint32_t password_begin_ = 0, password_end_ = 0;
  uint32_t host_begin_ = 0, host_end_ = 0;
  uint32_t port_begin_ = 0, port_end_ = 0;
  uint32_t path_begin_ = 0, path_end_ = 0;
  uint32_t query_begin_ = kNone;     // first character after '?', or kNone
  uint32_t fragment_begin_ = kNone;  // first character after '#', or kNone
};

}  // namespace crawler::url

#endif  // CRAWLER_LIB_URL_URL_H_
