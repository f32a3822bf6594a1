// What the files of SiteModel share (site_model.cc: the web's layout and its pages' changes;
// site_render.cc: the pages, robots.txt and sitemaps; site_http.cc: responses): the seeded hash
// every pseudo-random decision is drawn from, and the size of the sentence pool. Not part of
// websim's interface.
#ifndef CRAWLER_TOOLS_WEBSIM_SITE_MODEL_INTERNAL_H_
#define CRAWLER_TOOLS_WEBSIM_SITE_MODEL_INTERNAL_H_

#include <cstdint>

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
};

// Pages are filled from a pool of sentences chosen per page (site_model.cc makes it,
// site_render.cc draws from it): copying whole sentences is ~20x faster than drawing every word,
// and with 1024 sentences two pages share few of them, so near-duplicate detection (SimHash)
// still sees distinct pages.
inline constexpr int kNumSentences = 1024;

inline uint64_t Hash(uint64_t seed, Salt salt, uint64_t a, uint64_t b = 0) {
  return SeededHash(seed, uint64_t{salt}, a, b);
}

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_SITE_MODEL_INTERNAL_H_
