// RobotsPolicy: what to do with the outcome of fetching /robots.txt, and for how long, as a
// pure function of the outcome and the options (RFC 9309 §2.3.1 "access results" and §2.4
// "caching", https://www.rfc-editor.org/rfc/rfc9309). It reads no clock and does no I/O: the
// fetcher passes in what happened, including how long the file has been unreachable, and gets
// back an action and a cache lifetime.
//
//   outcome                                  action                 cache lifetime
//   2xx                                      kParseBody             max-age clamped, else max
//   3xx (not 304), Location, < N hops done   kFollowRedirect        zero (nothing to cache)
//   3xx beyond N hops, or without Location   kAllowAll              max-age clamped, else max
//   304 with last known rules                kKeepLastKnown         max-age clamped, else max
//   4xx except 429                           kAllowAll              max-age clamped, else max
//   429, 5xx, network error, 304 without
//   last known rules, any other status       "unreachable", below   unreachable_retry_after
//
// Decisions worth knowing:
//  - Redirects (§2.3.1.2): up to max_redirects (default 5, the RFC's "at least five")
//    consecutive redirects are followed, across hosts too; the rules found apply to the
//    authority of the original /robots.txt URL. Beyond that the file counts as unavailable,
//    which the RFC permits ("MAY assume that the robots.txt file is unavailable").
//  - 4xx (§2.3.1.3): "unavailable", the crawler MAY access anything. Except 429 Too Many
//    Requests: it does not say the file is absent, it asks us to slow down, so it is treated as
//    unreachable (disallow) like a 503, which is also what major crawlers do.
//  - Unreachable (§2.3.1.4: 5xx and network errors, "MUST assume complete disallow"), by how
//    long the file has been unreachable (`unreachable_for`, measured by the caller):
//      < unreachable_disallow_for (default 12 h)            -> kDisallowAll
//      otherwise, if rules from an earlier fetch are kept   -> kKeepLastKnown (§2.4 allows a
//                                                              cached copy past 24 h while the
//                                                              file is unreachable)
//      otherwise, >= unreachable_allow_all_after (30 days) -> kAllowAll (§2.3.1.4 MAY treat it
//                                                              as unavailable after "for
//                                                              example, 30 days")
//      otherwise                                            -> kDisallowAll
//    Each of these is re-checked after unreachable_retry_after (default 30 min), much sooner
//    than a good copy's 24 h, so a crawl resumes soon after the server recovers.
//  - Cache lifetime (§2.4): Cache-Control max-age is honoured but clamped to
//    [min_cache_lifetime, max_cache_lifetime]; max_cache_lifetime is at most 24 h.
//
// Thread-safety: RobotsPolicy is immutable after construction; Decide is thread-safe.
#ifndef CRAWLER_LIB_ROBOTS_ROBOTS_POLICY_H_
#define CRAWLER_LIB_ROBOTS_ROBOTS_POLICY_H_

#include <optional>
#include <string_view>

#include "absl/time/time.h"

namespace crawler::robots {

struct RobotsPolicyOptions {
  // Consecutive redirects followed for /robots.txt. Clamped to [5, 20]: the RFC asks for at
  // least five; more than twenty is a loop.
  int max_redirects = 5;
  // Longest time fetched rules (or a 4xx "allow all") are used before fetching again.
  // Clamped to (0, 24 h]: §2.4 "SHOULD NOT use the cached version for more than 24 hours".
  absl::Duration max_cache_lifetime = absl::Hours(24);
  // Shortest lifetime a max-age can ask for. Trade-off: lower honours "max-age=0" more
  // faithfully but costs the host one robots.txt request per lifetime. Clamped to
  // [0, max_cache_lifetime].
  absl::Duration min_cache_lifetime = absl::Hours(1);
  // How soon an unreachable robots.txt is fetched again. Clamped to [1 min, max_cache_lifetime].
  absl::Duration unreachable_retry_after = absl::Minutes(30);
  // How long an unreachable robots.txt means "disallow all" even when earlier rules are known.
  // Clamped to >= 0.
  absl::Duration unreachable_disallow_for = absl::Hours(12);
  // After this long unreachable, with no earlier rules, the file is treated as unavailable
  // (allow all). absl::InfiniteDuration() never does. Clamped to >= unreachable_disallow_for.
  absl::Duration unreachable_allow_all_after = absl::Hours(24 * 30);
};

// What happened when fetching /robots.txt (one request of a possible redirect chain).
struct RobotsFetchOutcome {
  // The HTTP status code, or nullopt for a failure below HTTP (DNS, connect, TLS, timeout,
  // reset or truncated response).
  std::optional<int> http_status;
  // Redirects already followed, consecutively, before this response (0 for the first request).
  int redirects_followed = 0;
  // For a 3xx: whether it carried a Location the fetcher can follow.
  bool has_location = true;
  // The response's Cache-Control max-age, if any (the fetcher parses the header).
  std::optional<absl::Duration> max_age;
  // How long /robots.txt of this authority has been unreachable, counting this attempt: zero at
  // the first failure, then now minus the time of the first failure in the current run of them.
  absl::Duration unreachable_for = absl::ZeroDuration();
  // Whether rules from an earlier 2xx or 4xx result for this authority are still held.
  bool has_last_known_rules = false;
};

enum class RobotsAction {
  kParseBody,       // RobotsRules::Parse(body)
  kFollowRedirect,  // fetch the Location; the result applies to the original authority
  kAllowAll,        // RobotsRules::AllowAll()
  kDisallowAll,     // RobotsRules::DisallowAll()
  kKeepLastKnown,   // keep the rules from the earlier result
};

// "parse-body", "follow-redirect", "allow-all", "disallow-all", "keep-last-known".
std::string_view RobotsActionName(RobotsAction action);

struct RobotsDecision {
  RobotsAction action = RobotsAction::kDisallowAll;
  // How long to use the result before fetching /robots.txt again (zero for kFollowRedirect).
  absl::Duration cache_lifetime = absl::ZeroDuration();

  friend bool operator==(const RobotsDecision&, const RobotsDecision&) = default;
};

class RobotsPolicy {
 public:
  // Options are clamped as documented on RobotsPolicyOptions.
  explicit RobotsPolicy(RobotsPolicyOptions options = {});

  // The options after clamping.
  const RobotsPolicyOptions& options() const { return options_; }

  RobotsDecision Decide(const RobotsFetchOutcome& outcome) const;

 private:
  RobotsDecision Unreachable(const RobotsFetchOutcome& outcome) const;
  absl::Duration Lifetime(const RobotsFetchOutcome& outcome) const;

  RobotsPolicyOptions options_;  // constant after construction
};

}  // namespace crawler::robots

#endif  // CRAWLER_LIB_ROBOTS_ROBOTS_POLICY_H_
