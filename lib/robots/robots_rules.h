// RobotsRules: the parsed rules of one robots.txt file and the access decision for a URL, as
// RFC 9309 ("Robots Exclusion Protocol", https://www.rfc-editor.org/rfc/rfc9309) §2.2 says.
// Built by feeding ParseRobotsTxt's events (robots_parser.h) into an internal handler; what
// RobotsRules adds is the group structure and the matcher.
//
// Groups (§2.1, §2.2.1, §2.2.4):
//  - A group is one or more user-agent lines followed by rules. Only allow and disallow lines
//    are rules: a user-agent line after a rule starts a new group; empty lines, comments,
//    crawl-delay, sitemap and unknown lines never end a group or its list of user agents.
//    So "User-agent: a", "Crawl-delay: 1", "", "User-agent: b", "Disallow: /x" is one group
//    naming a and b, as google/robotstxt also reads it.
//  - Rules before the first user-agent line belong to no group and are ignored.
//  - The product token of a user-agent line is the longest prefix of its value made of the
//    RFC's identifier characters (a-z, A-Z, "_", "-"): "FooBot/1.0" and "FooBot (+http://x)"
//    both name FooBot. A value that is "*", or "*" followed by whitespace, names every crawler.
//    A value with an empty token (e.g. "/FooBot", "360Spider") names no crawler.
//  - The crawler's product token is compared case-insensitively. Every group naming it is
//    combined; if none does, every "*" group is combined; if there is no "*" group either,
//    everything is allowed. The same token extraction is applied to the token the caller
//    passes, so "MyBot/2.1" works too.
//
// Matching (§2.2.2, §2.2.3):
//  - Patterns and paths are compared in one canonical form (§2.2.2's encoding rules and the
//    table there): "%XX" of an unreserved character (RFC 3986 §2.3) is decoded, other "%XX"
//    get uppercase hex, octets outside printable ASCII (including space) are percent-encoded,
//    and a "%" not starting a valid escape becomes "%25". Reserved characters are compared as
//    written, so "/a%2Fb" does not match "/a/b" (RFC 3986 §2.2: not equivalent). Deviation:
//    §2.2.2's table lists "/foo/bar?baz=https://foo.bar" as equivalent to its %3A%2F%2F form;
//    we do not encode reserved characters and do not treat the two as equal.
//  - In a pattern "*" matches any sequence of octets and a final "$" anchors the end; a "$"
//    elsewhere is literal. A literal "*" or "$" in a path is compared as "%2A" / "%24", so a
//    pattern can name them by their escapes (§2.2.3: "/path/file-with-a-%2A.html").
//  - A pattern matches a path if it matches a prefix of it (or all of it, with "$"). Patterns
//    are not required to start with "/": "*.gif$" works as in §5.1; "foo" matches nothing.
//  - Of all matching rules, the one with the longest canonical pattern (in octets, including
//    "*" and "$") wins; on equal length allow wins (§2.2.2). Among equal candidates the
//    earliest line is reported. No match means allowed. Empty allow/disallow values are no
//    rules ("Disallow:" disallows nothing).
//  - The path "/robots.txt" (any query) is always allowed (§2.2.2).
//  - No backtracking: each "*"-separated segment of a pattern is searched once, leftmost (exact
//    for patterns whose only operator is "*"), with glibc's memmem (two-way algorithm, linear
//    for long segments), so a hostile file cannot make one Match cost much more than reading
//    every rule once and the path once per rule.
//
// Crawl-delay (not in RFC 9309; §2.2.4 "other records"): a non-negative decimal number of
// seconds ("10", "0.5"), in a group; other values are ignored. The group selection above
// applies (no fallback to "*" for a crawler whose own groups give no delay); if the selected
// groups give several, the largest is used (the politest reading).
// The value is returned as written (possibly huge, saturating to absl::InfiniteDuration());
// the politeness layer caps it.
//
// Sitemap (§2.2.4): every sitemap line's value, in file order, duplicates removed, wherever the
// line is (sitemaps belong to no group).
//
// Thread-safety and ownership: a RobotsRules is an immutable value. Copies share one
// reference-counted representation, so copying is cheap and any number of threads may call the
// const methods of one RobotsRules (or of copies) concurrently. Nothing is kept between calls.
#ifndef CRAWLER_LIB_ROBOTS_ROBOTS_RULES_H_
#define CRAWLER_LIB_ROBOTS_ROBOTS_RULES_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler::robots {

enum class RuleKind { kAllow, kDisallow };

// "Allow" or "Disallow".
std::string_view RuleKindName(RuleKind kind);

// The rule that decided a match, as written in the file.
struct MatchedRule {
  RuleKind kind = RuleKind::kAllow;
  std::string pattern;  // the value as written (trimmed, comment removed)
  int line = 0;         // 1-based line number in the robots.txt body

  friend bool operator==(const MatchedRule&, const MatchedRule&) = default;
};

struct MatchResult {
  bool allowed = true;
  // The deciding rule; absent when no rule matched, for "/robots.txt", and for the blanket
  // decisions of AllowAll() / DisallowAll().
  std::optional<MatchedRule> rule;
};

class RobotsRules {
 public:
  // Equivalent to AllowAll().
  RobotsRules();

  // Parses a robots.txt body (see robots_parser.h for the line syntax and the 500 KiB limit).
  // Never fails: unparseable lines are skipped, as §2.3.1.5 asks.
  static RobotsRules Parse(std::string_view body);
  // Blanket decisions for the fetch-status policy (robots_policy.h): everything allowed
  // (robots.txt unavailable, §2.3.1.3) or everything but /robots.txt disallowed (unreachable,
  // §2.3.1.4).
  static RobotsRules AllowAll();
  static RobotsRules DisallowAll();

  // The decision for `path_and_query`, the request target as it would be sent ("/a/b?c=d"; an
  // empty string means "/"; no fragment). `product_token` is the crawler's product token, e.g.
  // "MyBot" (§2.2.1).
  MatchResult Match(std::string_view product_token, std::string_view path_and_query) const;

  // The same for an absolute URL ("https://host/a/b?c#frag") or a path starting with "/".
  // Only the path and query are used. InvalidArgument if `url` is neither.
  absl::StatusOr<MatchResult> MatchUrl(std::string_view product_token, std::string_view url) const;

  // The path and query of `url` as MatchUrl uses them: "https://h" -> "/", "https://h?q" ->
  // "/?q", "/a#f" -> "/a". InvalidArgument if `url` is neither "scheme://..." nor "/...".
  static absl::StatusOr<std::string> PathAndQuery(std::string_view url);

  // The crawl delay of the groups selected for `product_token`, if any of them gives one.
  std::optional<absl::Duration> CrawlDelay(std::string_view product_token) const;

  // Sitemap URLs as written, in file order, without duplicates.
  const std::vector<std::string>& Sitemaps() const;

  // Bytes of the body beyond the parse limit that were ignored (0 if none).
  size_t ignored_bytes() const;

 private:
  struct Data;     // defined in robots_rules.cc
  class Builder;   // the RobotsParseHandler that fills a Data
  explicit RobotsRules(std::shared_ptr<const Data> data);

  std::shared_ptr<const Data> data_;  // never null
};

}  // namespace crawler::robots

#endif  // CRAWLER_LIB_ROBOTS_ROBOTS_RULES_H_
