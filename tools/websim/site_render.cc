// SiteModel's rendering (site_model.h): a page's HTML in each of its versions, with the noise
// of changing pages, and each host's robots.txt and sitemap.
#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/websim/site_model.h"
#include "tools/websim/site_model_internal.h"

namespace crawler::websim {
namespace {

// sitemaps.org limit of URLs per sitemap file.
constexpr int kMaxSitemapUrls = 50'000;

// The rotating ad line of the noise block: a fixed sentence ending in a brand that changes on
// every request. SimHash is a vote over the page's distinct 3-word shingles, and on pages of a
// few hundred words each changed shingle flips a bit now and then: whole rotating lines of 7-10
// words (the case docs/fingerprint.md calibrates on) moved websim's pages beyond the 7-bit
// threshold in ~4 % of requests, and one rotating word inside a sentence (3 shingles) still in
// ~0.05 % (max 10 bits). As the last token of the visible text the brand is in one shingle only.
// No digits or date words: the fingerprint drops those anyway, so they would test nothing.
constexpr std::array<absl::string_view, 16> kAdBrands = {
    "Acme",   "Globex", "Initech", "Umbrella", "Hooli",   "Vandelay", "Stark",  "Wonka",
    "Tyrell", "Cyberdyne", "Soylent", "Gringotts", "Oscorp", "Wayne", "Monarch", "Aperture"};

// Text after the link list of a page with noise, at least; see RenderVersion.
constexpr size_t kMinTextBytesWithNoise = 3000;

// Attribute values we write unquoted contain only these characters.
bool SafeUnquoted(absl::string_view value) {
  if (value.empty()) return false;
  for (char c : value) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '/' && c != '.' &&
        c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string SiteModel::RenderNoise(PageRef page, absl::Duration elapsed) const {
  const int64_t elapsed_us = absl::ToInt64Microseconds(elapsed);
  const absl::Time now =
      options_.change_epoch + absl::Seconds(SimulatedDays(elapsed) * 86'400.0);
  const uint64_t ad = SeededHash(options_.seed, kSaltNoise,
                                 (uint64_t{static_cast<uint32_t>(page.host)} << 32) |
                                     static_cast<uint32_t>(page.page),
                                 static_cast<uint64_t>(absl::ToInt64Nanoseconds(elapsed)));
  return absl::StrCat(
      "<div class=\"websim-noise\">\n<p>You are visitor number ", 1 + elapsed_us,
      " of this page.</p>\n<p>Generated at ",
      absl::FormatTime("%Y-%m-%d %H:%M:%E3S", now, absl::UTCTimeZone()),
      " UTC.</p>\n<p>Sponsored: quality goods chosen for readers like you by our partner ",
      kAdBrands[ad % kAdBrands.size()], "</p>\n</div>\n");
}

std::string SiteModel::RenderPage(PageRef page, absl::Duration elapsed) const {
  return RenderVersion(page, VersionOf(page, elapsed).version, elapsed);
}

std::string SiteModel::RenderVersion(PageRef page, int64_t version,
                                     absl::Duration elapsed) const {
  const std::string host = HostName(page.host);
  const uint64_t size_hash = Hash(options_.seed, kSaltSize, page.host, page.page);
  const int64_t span = options_.page_bytes_max - options_.page_bytes_min + 1;
  size_t target_size =
      static_cast<size_t>(options_.page_bytes_min + static_cast<int64_t>(size_hash % span));
  // Version 0 is the static page; each later version redraws every sentence (links and their
  // spelling stay), which moves the text's SimHash far beyond any change threshold.
  Rng text(version == 0 ? Hash(options_.seed, kSaltText, page.host, page.page)
                        : Hash(options_.seed, kSaltVersionText,
                               (uint64_t{static_cast<uint32_t>(page.host)} << 32) |
                                   static_cast<uint32_t>(page.page),
                               static_cast<uint64_t>(version)));
  auto sentence = [&]() -> const std::string& { return sentences_[text.Below(kNumSentences)]; };

  const std::vector<OutLink> links = LinksOf(page);
  std::string out;
  out.reserve(std::max(target_size, links.size() * 160 + 1024));
  absl::StrAppend(&out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<title>", host, " page ", page.page, "</title>\n</head>\n<body>\n"
                        "<h1 id=\"top\">", host, " page ", page.page, "</h1>\n<p>");
  out.append(sentence());
  out.append(sentence());
  out.append("</p>\n<ul>\n");

  int index = 0;
  for (const OutLink& link : links) {
    // Attribute spellings a real parser must all handle: quotes, case, order, unquoted.
    const uint64_t style = Hash(options_.seed, kSaltText, page.page, index++) % 8;
    if (link.delivery != LinkDelivery::kStatic) {
      AppendScriptedLink(&out, link);
      continue;
    }
    absl::string_view rel;
    if (link.nofollow) {
      constexpr std::array<absl::string_view, 3> kRels = {"nofollow", "external nofollow",
                                                         "NoFollow noopener"};
      rel = kRels[style % kRels.size()];
    }
    out.append("<li>");
    const bool upper = style == 1;
    if (style == 0 && SafeUnquoted(link.href) && rel.empty()) {
      absl::StrAppend(&out, "<a class=l href=", link.href, ">");
    } else {
      const char quote = style == 2 ? '\'' : '"';
      out.append(upper ? "<A" : "<a");
      if (!rel.empty() && style % 2 == 0) absl::StrAppend(&out, " rel=\"", rel, "\"");
      absl::StrAppend(&out, upper ? " HREF=" : " href=", absl::string_view(&quote, 1));
      AppendEscaped(&out, link.href);
      out.push_back(quote);
      if (!rel.empty() && style % 2 == 1) absl::StrAppend(&out, " rel=\"", rel, "\"");
      out.append(">");
    }
    absl::StrAppend(&out, "page ", link.target.page, " of h", link.target.host,
                    upper ? "</A>" : "</a>", "</li>\n");
  }
  for (const ExternalLink& link : ExternalLinksOf(page)) {
    out.append("<li><a href=\"");
    AppendEscaped(&out, link.url);
    absl::StrAppend(&out, "\">", link.anchor_text, "</a></li>\n");
  }
  // Links a crawler must not turn into fetches of web pages.
  absl::StrAppend(&out, "<li><a href=\"mailto:webmaster@", host, "\">webmaster</a></li>\n",
                  "<li><a href=\"javascript:void(0)\">menu</a></li>\n",
                  "<li><a name=\"anchor\">no href</a></li>\n</ul>\n");
  if (IsScripted(page.host)) out.append(RenderScriptedTail(page, links));
  out.append("<p>");

  static constexpr absl::string_view kFooter = "</p>\n<p><a href=\"#top\">top</a></p>\n</body>\n</html>\n";
  const bool noisy = changes_ != nullptr && options_.noise;
  if (noisy) {
    // On a short page even one rotating word of the noise can flip 8 of 64 SimHash bits; with
    // this much text after the links (~450 words) the noise stays within the change threshold.
    target_size = std::max(target_size, out.size() + kMinTextBytesWithNoise + kFooter.size());
  }
  while (out.size() + kFooter.size() < target_size) out.append(sentence());
  if (out.size() + kFooter.size() > target_size) {
    // Trim the padding back to the exact size, but never into the markup before it.
    const size_t padding_start = out.rfind("<p>") + 3;
    out.resize(std::max(padding_start, target_size - std::min(target_size, kFooter.size())));
  }
  if (noisy) {
    // After the sized part, so the noise's varying length never shifts the page's own text, and
    // last in the body: the rotating word is then the text's last token and changes only one
    // 3-word shingle of the fingerprint (see kAdBrands).
    constexpr absl::string_view kEndBody = "</body>\n</html>\n";
    absl::StrAppend(&out, kFooter.substr(0, kFooter.size() - kEndBody.size()),
                    RenderNoise(page, elapsed), kEndBody);
  } else {
    absl::StrAppend(&out, kFooter);
  }
  return out;
}

std::string SiteModel::RenderRobotsTxt(int host) const {
  const std::string name = HostName(host);
  std::string out = absl::StrCat(
      "# robots.txt of ", name, " (websim)\n"
      // A group for another crawler: a correct one obeys only the group that matches it.
      "User-agent: websim-excluded-bot\n"
      "Disallow: /\n"
      "\n"
      "User-agent: *\n"
      "Disallow: /private/\n"
      // RFC 9309 §2.2.2: the longest match wins, so this reopens part of /private/.
      "Allow: /private/open/\n");
  if (options_.crawl_delay > absl::ZeroDuration()) {
    absl::StrAppend(&out, "Crawl-delay: ",
                    absl::StrFormat("%g", absl::ToDoubleSeconds(options_.crawl_delay)), "\n");
  }
  if (SitemapInRobots(host)) absl::StrAppend(&out, "\nSitemap: http://", name, "/sitemap.xml\n");
  return out;
}

bool SiteModel::SitemapLies(int host) const {
  return UnitInterval(Hash(options_.seed, kSaltSitemapLie, host)) <
         options_.sitemap_lastmod_lie_fraction;
}

bool SiteModel::SitemapInRobots(int host) const {
  return UnitInterval(Hash(options_.seed, kSaltSitemapRobots, host)) <
         options_.sitemap_in_robots_fraction;
}

bool SiteModel::InSitemap(PageRef page) const {
  switch (ClassOf(page)) {
    case PageClass::kSitemapOnly:
      return true;
    case PageClass::kPublic:
    case PageClass::kPrivateOpen:
      return UnitInterval(Hash(options_.seed, kSaltSitemap, page.host, page.page)) <
             options_.sitemap_fraction;
    default:
      return false;
  }
}

std::vector<int> SiteModel::SitemapPages(int host) const {
  std::vector<int> pages;
  // Sitemap-only pages first: Validate() caps their number below the per-file limit, so the
  // cap (of a sitemap without parts) can only cut pages that links reach anyway.
  for (int page = options_.pages_per_host; page < num_page_ids(); ++page) pages.push_back(page);
  for (int page = 0; page < options_.pages_per_host; ++page) {
    if (InSitemap(PageRef{host, page})) pages.push_back(page);
  }
  return pages;
}

absl::Time SiteModel::SitemapLastmod(PageRef page, absl::Duration elapsed) const {
  if (SitemapLies(page.host)) {
    // "Now", whatever the page did: what a CMS that stamps every entry with the build time says.
    return changing() ? WallTimeOf(SimulatedDays(elapsed))
                      : absl::FromUnixSeconds(absl::ToUnixSeconds(options_.change_epoch + elapsed));
  }
  return changing() ? WallTimeOf(VersionOf(page, elapsed).changed_at_day) : WallTimeOf(0);
}

namespace {

// W3C Datetime, seconds and UTC: "2000-01-01T00:00:00Z".
std::string W3cDatetime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

constexpr absl::string_view kSitemapHead =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";

}  // namespace

std::string SiteModel::RenderUrlset(int host, const std::vector<int>& pages, size_t begin,
                                    size_t end, absl::Duration elapsed) const {
  std::string out(kSitemapHead);
  for (size_t i = begin; i < end && i < pages.size(); ++i) {
    const PageRef page{host, pages[i]};
    out.append("<url><loc>");
    AppendEscaped(&out, UrlOf(page));
    out.append("</loc>");
    if (options_.sitemap_lastmod) {
      absl::StrAppend(&out, "<lastmod>", W3cDatetime(SitemapLastmod(page, elapsed)), "</lastmod>");
    }
    out.append("</url>\n");
  }
  out.append("</urlset>\n");
  return out;
}

int SiteModel::SitemapParts(int host) const {
  const size_t listed = SitemapPages(host).size();
  const size_t per_file = static_cast<size_t>(options_.sitemap_max_urls);
  return listed <= per_file ? 0 : static_cast<int>((listed + per_file - 1) / per_file);
}

std::string SiteModel::RenderSitemap(int host, absl::Duration elapsed) const {
  const std::vector<int> pages = SitemapPages(host);
  const size_t per_file = static_cast<size_t>(options_.sitemap_max_urls);
  if (pages.size() <= per_file) return RenderUrlset(host, pages, 0, kMaxSitemapUrls, elapsed);
  // sitemaps.org, "Using Sitemap index files": each part's lastmod is its newest entry's.
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
  const std::string name = HostName(host);
  for (size_t begin = 0, part = 1; begin < pages.size(); begin += per_file, ++part) {
    absl::StrAppend(&out, "<sitemap><loc>http://", name, "/sitemap-", part, ".xml</loc>");
    if (options_.sitemap_lastmod) {
      absl::Time newest = absl::InfinitePast();
      for (size_t i = begin; i < std::min(pages.size(), begin + per_file); ++i) {
        newest = std::max(newest, SitemapLastmod(PageRef{host, pages[i]}, elapsed));
      }
      absl::StrAppend(&out, "<lastmod>", W3cDatetime(newest), "</lastmod>");
    }
    out.append("</sitemap>\n");
  }
  out.append("</sitemapindex>\n");
  return out;
}

std::optional<std::string> SiteModel::RenderSitemapPart(int host, int part,
                                                         absl::Duration elapsed) const {
  if (part < 1 || part > SitemapParts(host)) return std::nullopt;
  const std::vector<int> pages = SitemapPages(host);
  const size_t per_file = static_cast<size_t>(options_.sitemap_max_urls);
  const size_t begin = static_cast<size_t>(part - 1) * per_file;
  return RenderUrlset(host, pages, begin, begin + per_file, elapsed);
}

}  // namespace crawler::websim
