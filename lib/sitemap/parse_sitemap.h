// ParseSitemap: the whole-body convenience over SitemapParser (sitemap_parser.h), for callers
// that already hold the body (tests, the `crawler inspect sitemap` tool, small fetches).
//
// Thread-safety: a pure function.
#ifndef CRAWLER_LIB_SITEMAP_PARSE_SITEMAP_H_
#define CRAWLER_LIB_SITEMAP_PARSE_SITEMAP_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "lib/sitemap/sitemap_entry.h"
#include "lib/sitemap/sitemap_parser.h"

namespace crawler::sitemap {

struct SitemapResult {
  // In document order. On error, the entries read before it.
  std::vector<SitemapEntry> entries;
  SitemapKind kind = SitemapKind::kUnknown;
  SitemapStats stats;
  // OK, or why parsing stopped: kInvalidArgument for malformed XML/gzip or a root element other
  // than <urlset>/<sitemapindex>, kResourceExhausted for a limit of SitemapOptions.
  absl::Status status;
};

// `body` is the raw response body, gzip-compressed or not.
SitemapResult ParseSitemap(std::string_view body, const SitemapOptions& options = {});

}  // namespace crawler::sitemap

#endif  // CRAWLER_LIB_SITEMAP_PARSE_SITEMAP_H_
