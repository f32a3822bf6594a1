// What the files of SiteModel share (site_model.cc: the web's layout and its pages' changes;
// site_render.cc: the pages, robots.txt and sitemaps; site_http.cc: responses): the seeded hash
// every pseudo-random decision is drawn from, the size of the sentence pool and HTML escaping
// (site_scripted.cc writes pages too). Not part of websim's interface.
#ifndef CRAWLER_TOOLS_WEBSIM_SITE_MODEL_INTERNAL_H_
#define CRAWLER_TOOLS_WEBSIM_SITE_MODEL_INTERNAL_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tools/websim/seeded_random.h"

namespace crawler::websim {

// Salts keep the pseudo-random streams of different decisions independent.
enum Salt : uint64_t {
  kSaltClass = 1,
  kSaltLayout = 2,
  kSaltLinks = 3,
  kSaltSize = 4,
  kSaltText = 5,
  kSaltLatency = 6,
  kSaltSitemap = 7,
  kSaltVocabulary = 8,
  // 9 and 10 are ChangeProcess's (rates, event times).
  kSaltNoise = 11,
  kSaltVersionText = 12,
  kSaltEqualClass = 13,
  kSaltSitemapLie = 14,
  kSaltSitemapRobots = 15,
  kSaltScriptedHost = 16,
  kSaltScriptedLink = 17,
  kSaltHostileHost = 18,
  kSaltScriptOnly = 19,
  // 21 and 22 are FocusSites's.
};

// Pages are filled from a pool of sentences chosen per page (site_model.cc makes it,
// site_render.cc draws from it): copying whole sentences is ~20x faster than drawing every word,
// and with 1024 sentences two pages share few of them, so near-duplicate detection (SimHash)
// still sees distinct pages.
inline constexpr int kNumSentences = 1024;

// `text` with & < > " ' as character references: safe in element content and in attribute
// values quoted either way.
inline void AppendEscaped(std::string* out, absl::string_view text) {
  while (!text.empty()) {
    const size_t special = text.find_first_of("&<>\"'");
    absl::StrAppend(out, text.substr(0, special));
    if (special == absl::string_view::npos) return;
    switch (text[special]) {
      case '&': out->append("&amp;"); break;
      case '<': out->append("&lt;"); break;
      case '>': out->append("&gt;"); break;
      case '"': out->append("&quot;"); break;
      default: out->append("&#39;"); break;
    }
    text.remove_prefix(special + 1);
  }
}

inline uint64_t Hash(uint64_t seed, Salt salt, uint64_t a, uint64_t b = 0) {
  return SeededHash(seed, uint64_t{salt}, a, b);
}

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_SITE_MODEL_INTERNAL_H_
