// Host parsing for special URLs (WHATWG URL Standard section 3.5 "Host parsing", with the
// "IPv4 parser", "IPv6 parser", "domain to ASCII" and "host serializer" it calls).
//
// Internal to lib/url. ParseSpecialHost() is what the basic URL parser's host state calls; its
// output is the serialised host ("example.org", "192.0.2.1", "[2001:db8::1]").
//
// "Domain to ASCII": an ASCII label is only lowercased, never given to IDNA, even when it starts
// with "xn--" and is not valid Punycode: the web-platform-tests data this library is tested
// against expects "xn--pokxncvks" and "xn--" to pass through unchanged, and DNS decides
// about such names anyway. Non-ASCII labels go through libidn2's UTS #46 non-transitional
// processing. Because libidn2 applies IDNA2008's rules on top of UTS #46, it differs from the
// standard for non-ASCII labels in three ways:
//   - a label that starts or ends with '-' or has "--" at positions 3-4 is rejected (the
//     standard sets CheckHyphens=false; libidn2 always checks);
//   - symbols that UTS #46 keeps but IDNA2008 disallows are rejected, e.g. U+2603 SNOWMAN and
//     emoji (listed as known failures in tests/unit/url/url_wpt_test.cc);
//   - a label whose Punycode form is longer than 63 bytes is rejected (VerifyDnsLength=false in
//     the standard).
//
// Thread-safety: pure functions; thread-safe.
#ifndef CRAWLER_LIB_URL_INTERNAL_HOST_PARSER_H_
#define CRAWLER_LIB_URL_INTERNAL_HOST_PARSER_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace crawler::url::internal {

// Parses `input` (the raw bytes between the authority's '@' and the port or path, still
// percent-encoded) as the host of a special URL and appends its serialisation to `out`.
// Returns kInvalidArgument, naming the standard's validation error, on failure; `out` may then
// hold a partial result.
absl::Status ParseSpecialHost(std::string_view input, std::string& out);

}  // namespace crawler::url::internal

#endif  // CRAWLER_LIB_URL_INTERNAL_HOST_PARSER_H_
