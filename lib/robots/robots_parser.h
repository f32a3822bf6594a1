// ParseRobotsTxt: the one robots.txt line parser (RFC 9309, "Robots Exclusion Protocol",
// https://www.rfc-editor.org/rfc/rfc9309). It splits the body into lines and pushes one event
// per record to a RobotsParseHandler; it keeps no group state and makes no access decision.
// RobotsRules (robots_rules.h) is one handler; diagnostics tools can be others. This mirrors
// google/robotstxt's parser/handler split.
//
// What the parser does, and where it deviates from the RFC's ABNF (§2.1, §2.2.4):
//  - Parse limit: only the first kRobotsParseLimitBytes (500 KiB = 512,000 bytes, the minimum
//    RFC 9309 §2.5 allows) are parsed. If the limit falls inside a line, that partial line is
//    dropped too, so a cut "Allow: /very-long-path" cannot turn into a broader rule. What was
//    ignored is reported once, through HandleParseLimit, after the last parsed line.
//  - A UTF-8 byte order mark at the very start is skipped. Bytes are otherwise treated as
//    octets: invalid UTF-8 is passed through unchanged, never rejected.
//  - Lines end at CR, LF or CRLF (§2.1 NL). Line numbers are 1-based; CRLF counts once.
//  - "#" starts a comment anywhere in a line (§2.2.3). Space and tab around keys and values are
//    trimmed (§2.1 WS); other bytes are kept as they are.
//  - Empty lines and comment-only lines produce no event: per §2.1 they do not end a group.
//  - Keys are matched case-insensitively (§2.1: "user-agent", "allow", "disallow").
//    §2.2.4 lets crawlers accept common misspellings; we accept only spellings that cannot make
//    the crawler less polite than the author meant:
//      user-agent:  "user-agent", "useragent", "user agent"
//      disallow:    "disallow", "dissallow", "dissalow", "disalow"   (typos only restrict more)
//      allow:       "allow" only                                     (a typo must not open up)
//      crawl-delay: "crawl-delay", "crawldelay"
//      sitemap:     "sitemap", "site-map"
//  - A missing ':' is tolerated when the line is exactly two whitespace-separated words
//    ("Disallow /tmp"), as google/robotstxt does; anything else without ':' is unknown.
//  - Every other line is reported through HandleUnknown and must not affect group parsing
//    (§2.2.4: e.g. a "Sitemaps" line does not end a group).
//
// Thread-safety: ParseRobotsTxt is reentrant; it touches nothing but its arguments. The
// string_views passed to the handler point into `body` and are only valid during the call.
#ifndef CRAWLER_LIB_ROBOTS_ROBOTS_PARSER_H_
#define CRAWLER_LIB_ROBOTS_ROBOTS_PARSER_H_

#include <cstddef>
#include <string_view>

namespace crawler::robots {

// Bytes of a robots.txt body that are parsed (RFC 9309 §2.5: "at least 500 kibibytes").
inline constexpr size_t kRobotsParseLimitBytes = 500 * 1024;

// Receives the records of a robots.txt body in file order. `line` is the 1-based line number.
// Values are trimmed of surrounding space/tab and exclude comments; they may be empty.
// Every method has an empty default so a handler overrides only what it consumes.
class RobotsParseHandler {
 public:
  virtual ~RobotsParseHandler() = default;

  virtual void HandleUserAgent(int /*line*/, std::string_view /*value*/) {}
  virtual void HandleAllow(int /*line*/, std::string_view /*value*/) {}
  virtual void HandleDisallow(int /*line*/, std::string_view /*value*/) {}
  virtual void HandleCrawlDelay(int /*line*/, std::string_view /*value*/) {}
  virtual void HandleSitemap(int /*line*/, std::string_view /*value*/) {}
  // A non-empty line that is not one of the records above. `key` is the text before ':' (or
  // the whole line, with an empty `value`, if the line has no usable separator).
  virtual void HandleUnknown(int /*line*/, std::string_view /*key*/, std::string_view /*value*/) {}
  // Called at most once, last, when the body exceeded kRobotsParseLimitBytes: `first_line` is
  // the number of the first line not parsed (possibly partial), `ignored_bytes` how many bytes
  // of the body were not parsed.
  virtual void HandleParseLimit(int /*first_line*/, size_t /*ignored_bytes*/) {}
};

// Parses `body` (the payload of a /robots.txt response) and calls `handler` once per record.
void ParseRobotsTxt(std::string_view body, RobotsParseHandler& handler);

}  // namespace crawler::robots

#endif  // CRAWLER_LIB_ROBOTS_ROBOTS_PARSER_H_
