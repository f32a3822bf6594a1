// Test-only oracle for websim: an independent reading of websim's pages the way a correct
// crawler reads them, written without SiteModel's own knowledge of its link graph:
//  - HTML: Gumbo (the HTML5 parser the crawler uses) extracts <a href> and rel;
//  - URLs: RFC 3986 §5.2 reference resolution, then canonicalisation (lower-case scheme and
//    host, default port dropped, fragment dropped, leading/trailing spaces stripped as HTML does);
//  - robots.txt: RFC 9309 group selection and longest-match rule (prefix rules; '*' and '$'
//    are not needed by websim and rejected).
#ifndef CRAWLER_TESTS_UNIT_WEBSIM_REFERENCE_CRAWLER_H_
#define CRAWLER_TESTS_UNIT_WEBSIM_REFERENCE_CRAWLER_H_

#include <optional>
#include <string>
#include <vector>

namespace crawler::websim::testing_support {

struct ExtractedLink {
  std::string href;  // attribute value after character-reference decoding
  bool nofollow = false;
};

std::vector<ExtractedLink> ExtractLinks(const std::string& html);

// RFC 3986 §5.2.2 (strict) resolution of `reference` against the absolute URL `base`.
std::string Resolve(const std::string& base, const std::string& reference);

// Canonical form of an absolute http URL: "http://host/path?query"; nullopt for other schemes
// or URLs without host.
std::optional<std::string> CanonicalHttpUrl(const std::string& absolute);

// Splits "http://host/path?q" into host and "/path?q".
std::pair<std::string, std::string> SplitHttpUrl(const std::string& canonical);

// RFC 9309 decision for `path` (path and query) under `robots_txt`, for `user_agent`.
bool RobotsAllowed(const std::string& robots_txt, const std::string& user_agent,
                   const std::string& path);

}  // namespace crawler::websim::testing_support

#endif  // CRAWLER_TESTS_UNIT_WEBSIM_REFERENCE_CRAWLER_H_
