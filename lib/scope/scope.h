// Scope: which discovered URLs belong to a collection, by four checks:
//   - allowed host suffixes: "gov.si" or ".gov.si" admits gov.si and every host under it
//     (label-wise: "evilgov.si" is not under "gov.si");
//   - same-site-only: only hosts whose registrable domain (Public Suffix List) is that of a seed;
//   - include / exclude regular expressions over the canonical URL (RE2 syntax, unanchored; RE2
//     runs in linear time, so a hostile URL cannot make a pattern take exponential time);
//   - a maximum link depth (seeds are depth 0);
//   - spider-trap defences, on by default: a URL length cap, a cap on repeats of one path
//     segment (ever-longer paths such as /a/b/a/b/a/b/...), a cap on query parameters
//     (parameter explosion). Endless calendars and session ids in every link pass these (their
//     URLs look like any other); the frontier's per-host URL cap (max_urls_per_host) bounds them.
// Checks run in that order and the first failing one is reported, so logs say why a URL was out.
//
// Thread-safety: immutable after Create; Check is safe from any thread.
#ifndef CRAWLER_LIB_SCOPE_SCOPE_H_
#define CRAWLER_LIB_SCOPE_SCOPE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/url/public_suffix_list.h"
#include "lib/url/url.h"

namespace re2 {
class RE2;
}

namespace crawler::scope {

struct ScopeOptions {
  // Empty: every host (subject to same_site_only).
  std::vector<std::string> allowed_host_suffixes;
  bool same_site_only = false;
  // A URL must match at least one include pattern (when any are given) and no exclude pattern.
  std::vector<std::string> include_patterns;
  std::vector<std::string> exclude_patterns;
  // nullopt: unlimited. Endless link chains (calendars, session-id loops) are otherwise bounded
  // only by max pages, so archivists usually set one.
  std::optional<uint32_t> max_depth;
  // Spider traps; 0 turns a check off. The canonical URL's length in bytes: real pages rarely
  // pass a few hundred, and 2,048 is what the long-lived browsers and sitemaps.org allow.
  size_t max_url_bytes = 2048;
  // Times one path segment may appear in a path: /a/b/c/a/b/c/a/b/c/ is fine at 3, a fourth
  // /a/ is a relative link resolved against itself again and again.
  uint32_t max_segment_repeats = 3;
  // Query parameters (name=value pairs, '&' or ';' separated) in one URL: faceted search and
  // generated filters multiply pages with every parameter added.
  uint32_t max_query_params = 16;

  friend bool operator==(const ScopeOptions&, const ScopeOptions&) = default;
};

enum class Verdict {
  kInScope,
  kHostNotAllowed,
  kOtherSite,
  kNotIncluded,
  kExcluded,
  kTooDeep,
  // Spider traps (ScopeOptions::max_url_bytes, max_segment_repeats, max_query_params).
  kTooLong,
  kRepeatedSegments,
  kTooManyParams,
};
// True for the verdicts of the spider-trap defences.
bool IsTrap(Verdict verdict);
std::string_view VerdictName(Verdict verdict);

class Scope {
 public:
  // `seeds` fix the sites for same_site_only; `psl` is needed only then and must outlive the
  // Scope. Errors: kInvalidArgument for a malformed suffix or pattern (naming it), or
  // same_site_only without a PSL.
  static absl::StatusOr<Scope> Create(const ScopeOptions& options,
                                      const std::vector<url::Url>& seeds,
                                      const url::PublicSuffixList* psl);

  // `canonical_url` is the URL's canonical form (what the patterns are written against).
  Verdict Check(const url::Url& url, std::string_view canonical_url, uint32_t depth) const;

 private:
  struct Data;
  explicit Scope(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

// Normalises one --allow-host-suffix value: lower-cased, leading and trailing dots dropped,
// IDNA to ASCII. kInvalidArgument for an empty or unparsable value.
absl::StatusOr<std::string> NormalizeHostSuffix(std::string_view suffix);

// True if `ascii_host` is `suffix` or ends with "." + suffix (both normalised).
bool HostHasSuffix(std::string_view ascii_host, std::string_view suffix);

}  // namespace crawler::scope

#endif  // CRAWLER_LIB_SCOPE_SCOPE_H_
