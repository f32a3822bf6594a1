#include "lib/sitemap/parse_sitemap.h"

#include <utility>

namespace crawler::sitemap {

SitemapResult ParseSitemap(std::string_view body, const SitemapOptions& options) {
  SitemapResult result;
  SitemapParser parser(
      options, [&result](SitemapEntry entry) { result.entries.push_back(std::move(entry)); });
  result.status = parser.Feed(body);
  if (result.status.ok()) result.status = parser.Finish();
  result.kind = parser.kind();
  result.stats = parser.stats();
  return result;
}

}  // namespace crawler::sitemap
