// libFuzzer target for lib/sitemap: arbitrary bytes (plain or gzip, XML or text) fed whole and in
// a few chunks. Besides crashes and sanitizer reports, it checks that chunking never changes the
// result and that the documented bounds hold, aborting otherwise.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "lib/sitemap/parse_sitemap.h"
#include "lib/sitemap/sitemap_parser.h"

namespace {

using crawler::sitemap::ParseSitemap;
using crawler::sitemap::SitemapEntry;
using crawler::sitemap::SitemapOptions;
using crawler::sitemap::SitemapParser;
using crawler::sitemap::SitemapResult;

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // Byte 0 picks the options (small limits reach the limit paths), byte 1 seeds the split points.
  const uint8_t knobs = data[0];
  uint32_t seed = data[1];
  const std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);

  SitemapOptions options;
  if (knobs & 1) options.max_urls = knobs >> 4;
  if (knobs & 2) options.max_uncompressed_bytes = 64 + 16 * (knobs >> 4);
  if (knobs & 4) options.max_loc_bytes = knobs >> 3;

  const SitemapResult whole = ParseSitemap(body, options);

  // The same bytes in up to four chunks.
  std::vector<SitemapEntry> entries;
  SitemapParser parser(options, [&](SitemapEntry entry) { entries.push_back(std::move(entry)); });
  absl::Status status;
  std::string_view rest = body;
  for (int i = 0; i < 3 && status.ok() && !rest.empty(); ++i) {
    seed = seed * 1103515245u + 12345u;
    const size_t take = (seed >> 8) % (rest.size() + 1);
    status = parser.Feed(rest.substr(0, take));
    rest.remove_prefix(take);
  }
  if (status.ok()) status = parser.Feed(rest);
  if (status.ok()) status = parser.Finish();

  Check(entries == whole.entries);
  Check(status.code() == whole.status.code());
  Check(parser.kind() == whole.kind);

  Check(static_cast<int64_t>(whole.entries.size()) <= options.max_urls);
  Check(whole.stats.entries == static_cast<int64_t>(whole.entries.size()));
  Check(whole.stats.uncompressed_bytes <= options.max_uncompressed_bytes);
  for (const SitemapEntry& entry : whole.entries) {
    Check(!entry.loc.empty());
    Check(static_cast<int64_t>(entry.loc.size()) <= options.max_loc_bytes);
    if (entry.priority.has_value()) Check(*entry.priority >= 0.0 && *entry.priority <= 1.0);
    if (entry.is_sitemap) Check(!entry.changefreq.has_value() && !entry.priority.has_value());
  }
  return 0;
}
