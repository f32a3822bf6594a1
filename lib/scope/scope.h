// Scope: which discovered URLs belong to a collection, by four checks:
//   - allowed host suffixes: "gov.si" or ".gov.si" admits gov.si and every host under it
//     (label-wise: "evilgov.si" is not under "gov.si");
//   - same-site-only: only hosts whose registrable domain (Public Suffix List) is that of a seed;
//   - include / exclude regular expressions over the canonical URL (RE2 syntax, unanchored; RE2
//     runs in linear time, so a hostile URL cannot make a pattern take exponential time);
//   - a maximum link depth (seeds are depth 0).
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

  friend bool operator==(const ScopeOptions&, const ScopeOptions&) = default;
};

enum class Verdict { kInScope, kHostNotAllowed, kOtherSite, kNotIncluded, kExcluded, kTooDeep };
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
