// SitemapEntry: one <url> of a urlset, one <sitemap> of a sitemap index, or one line of a text
// sitemap, with the optional fields the sitemaps.org protocol defines
// (https://www.sitemaps.org/protocol.html, "XML tag definitions").
//
// The loc is the element's text with surrounding whitespace trimmed and XML entities decoded,
// nothing more: it is neither parsed nor canonicalised here (the caller does that, and applies
// the protocol's same-host rule, with lib/url).
//
// Thread-safety: plain values; the functions here are thread-safe.
#ifndef CRAWLER_LIB_SITEMAP_SITEMAP_ENTRY_H_
#define CRAWLER_LIB_SITEMAP_SITEMAP_ENTRY_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace crawler::sitemap {

// <changefreq>: "How frequently the page is likely to change". A hint, not a command.
enum class ChangeFreq { kAlways, kHourly, kDaily, kWeekly, kMonthly, kYearly, kNever };

// The protocol's spelling of `freq` ("always", "hourly", ...).
std::string_view ChangeFreqName(ChangeFreq freq);

// Parses a <changefreq> value. The protocol lists lower-case values; ASCII case is ignored
// because "Daily" and "WEEKLY" are common in the wild and unambiguous. Surrounding whitespace
// must already be trimmed. std::nullopt for anything else.
std::optional<ChangeFreq> ParseChangeFreq(std::string_view text);

struct SitemapEntry {
  // <loc>, or the line of a text sitemap. Never empty.
  std::string loc;
  // <lastmod> as a W3C Datetime (see w3c_datetime.h); absent if missing or unparseable.
  std::optional<absl::Time> lastmod;
  // <changefreq>; absent if missing or not one of the seven values. Never set for sitemap-index
  // entries, where the protocol does not define it.
  std::optional<ChangeFreq> changefreq;
  // <priority> in [0.0, 1.0]; absent if missing, unparseable or out of range (the protocol's
  // default of 0.5 is left to the caller so it can tell "said 0.5" from "said nothing"). Never
  // set for sitemap-index entries.
  std::optional<double> priority;
  // True for a <sitemap> of a <sitemapindex>: loc names another sitemap, not a page.
  bool is_sitemap = false;

  friend bool operator==(const SitemapEntry&, const SitemapEntry&) = default;
};

}  // namespace crawler::sitemap

#endif  // CRAWLER_LIB_SITEMAP_SITEMAP_ENTRY_H_
