// CanonicalUrl: the crawler's one spelling of a URL, used as the seen-set key, the queue key and
// the dedup key. Two links that a server must answer identically get the same CanonicalUrl; two
// links that may name different pages never do.
//
// The canonical form of a Url (already WHATWG-parsed: scheme and host lower-case, IDNA applied,
// default port dropped, dot segments removed, see url.h) is its serialisation with:
//   - the fragment dropped (never sent to the server);
//   - percent-encoding normalised in path and query (RFC 3986 6.2.2.1-2): hex digits upper-case,
//     "%XX" of an unreserved character (ALPHA DIGIT - . _ ~) decoded, every other "%XX" kept;
//   - session-id and tracking parameters removed as CanonicalizeOptions says;
//   - an empty query ("?" with nothing after it, also after removals) dropped.
// Nothing else changes: no "www." folding, no trailing-slash or index.html games, no case
// folding of the path, no '+' / "%20" merging, no query reordering by default. Each of those
// merges pages that some server serves differently.
//
// Canonicalize() is idempotent: canonicalising the parse of a canonical form gives it back.
//
// Thread-safety: CanonicalUrl is an immutable value; Canonicalize() is thread-safe.
#ifndef CRAWLER_LIB_URL_CANONICAL_URL_H_
#define CRAWLER_LIB_URL_CANONICAL_URL_H_

#include <compare>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/url/url.h"

namespace crawler::url {

// Query parameter names removed by default. Matching is ASCII case-insensitive on the name
// (the part before '='); a trailing '*' matches any suffix.
//
// Session ids: names that frameworks generate for a server-side session and that never select
// content. Crawling with them yields one copy of the site per session.
//   jsessionid     Java servlet containers (also as the ";jsessionid=" path parameter they add)
//   phpsessid      PHP's default session name
//   aspsessionid*  classic ASP ("ASPSESSIONIDQASDRTBC")
//   sessionid      generic, but a name nobody uses for content
//   cfid, cftoken  ColdFusion client-management pair
// Not "sid": Slashdot-style sites use it for the story id and CMSs for the section or site id,
// so stripping it would merge different pages. Add it to extra_params_to_strip for a site known
// to use it as a session id.
inline constexpr std::string_view kSessionIdParams[] = {
    "jsessionid", "phpsessid", "aspsessionid*", "sessionid", "cfid", "cftoken",
};

// Tracking: campaign tags and ad-click ids appended to landing-page links by analytics and ad
// platforms. The server renders the same page whatever their values.
//   utm_*                  Google Analytics campaign tags (utm_source, utm_medium, ...)
//   gclid, dclid, gbraid,
//   wbraid                 Google Ads / DoubleClick click ids
//   fbclid                 Facebook;  msclkid: Microsoft Ads;  yclid: Yandex
//   mc_cid, mc_eid         Mailchimp campaign / recipient
//   _hsenc, _hsmi          HubSpot email tracking
//   igshid                 Instagram share id
inline constexpr std::string_view kTrackingParams[] = {
    "utm_*", "gclid",  "dclid",  "gbraid", "wbraid", "fbclid", "msclkid",
    "yclid", "mc_cid", "mc_eid", "_hsenc", "_hsmi",  "igshid",
};

struct CanonicalizeOptions {
  // Remove kSessionIdParams from the query, and ";jsessionid=..." path parameters.
  bool strip_session_ids = true;
  // Remove kTrackingParams from the query.
  bool strip_tracking_params = true;
  // More query parameter names to remove, same matching as above (e.g. {"sid", "ref_*"}).
  std::vector<std::string> extra_params_to_strip;
  // Stable-sort query parameters by name, so "?b=2&a=1" and "?a=1&b=2" meet. Off by default:
  // some servers read parameters in order (or treat the first of two equal names differently),
  // and turning it on merges their pages. Parameters with equal names keep their order.
  bool sort_query_params = false;
};

class CanonicalUrl {
 public:
  // The canonical URL string; an absolute http/https URL that Url::Parse() accepts.
  const std::string& str() const { return str_; }

  friend bool operator==(const CanonicalUrl& a, const CanonicalUrl& b) = default;
  friend std::strong_ordering operator<=>(const CanonicalUrl& a, const CanonicalUrl& b) = default;
  template <typename H>
  friend H AbslHashValue(H h, const CanonicalUrl& c) {
    return H::combine(std::move(h), c.str_);
  }

 private:
  explicit CanonicalUrl(std::string str) : str_(std::move(str)) {}
  friend absl::StatusOr<CanonicalUrl> Canonicalize(const Url& url,
                                                   const CanonicalizeOptions& options);

  std::string str_;
};

// The canonical form of `url`. Never fails today; the StatusOr keeps room for options that can
// reject a URL.
absl::StatusOr<CanonicalUrl> Canonicalize(const Url& url, const CanonicalizeOptions& options = {});

// Parses `absolute_url` (Url::Parse) and canonicalises it; returns Url::Parse's error if any.
absl::StatusOr<CanonicalUrl> Canonicalize(std::string_view absolute_url,
                                          const CanonicalizeOptions& options = {});

}  // namespace crawler::url

#endif  // CRAWLER_LIB_URL_CANONICAL_URL_H_
