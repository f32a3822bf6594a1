// The site model of banditsim: what a focused collection of K sites looks like to a crawler that
// fetches each site in breadth-first order and counts external links (docs/architecture.md §8,
// docs/focused.md).
//
// A site has a size S (pages, which doubles as its depth limit), a density d (distinct external
// links per page over the whole site, as in BeeBot's Table 1) and a placement: where along the
// breadth-first order its links sit.
//
// Duplicates: a site's links point into a pool of U = round(d * S) distinct targets. Every target
// occurs once at a page drawn from the placement, and (dup - 1) * U further occurrences pick
// their target by Zipf popularity (weight rank^-zipf, the footer partner that every page links
// to) and their page from the same placement. A page's reward is the number of targets whose
// first occurrence it holds: a link seen before earns nothing. Pools of different sites are
// disjoint (sites of one set rarely link to the same external pages, and disjoint pools keep the
// oracle exact, simulator.h), so a page's reward depends only on its own site's earlier pages
// and is fixed before the crawl: the simulator stores each site as its reward sequence.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_TOOLS_BANDITSIM_SITE_SET_H_
#define CRAWLER_TOOLS_BANDITSIM_SITE_SET_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/bandit/random.h"

namespace crawler::banditsim {

enum class Placement {
  kDiffuse,      // uniform over all S pages
  kFrontLoaded,  // exponential from page 0 with mean `scale` pages
  kLate,         // uniform over [start, start + scale), nothing before `start`
  kBursty,       // `bursts` link-list pages placed uniformly in [start, start + scale), each
                 // the first holder of about `burst_links` links; the rest diffuse
};

std::string_view PlacementName(Placement placement);

struct SiteSpec {
  int64_t pages = 1000;
  // Distinct external links per page over the whole site.
  double density = 0.1;
  Placement placement = Placement::kDiffuse;
  // Pages; meaning per Placement (clamped to the site).
  double start = 0;
  double scale = 1000;
  int bursts = 0;
  double burst_links = 0;
};

// Link-occurrence model shared by every site of a run.
struct DuplicateModel {
  // Occurrences per distinct target, >= 1 (1: every link occurs once, no duplicates).
  double occurrences_per_link = 3.0;
  // Zipf exponent of target popularity for the repeat occurrences, >= 0.
  double zipf = 1.0;
};

struct Site {
  SiteSpec spec;
  // new_links[p]: links first seen on page p (0-based breadth-first position); size == pages.
  std::vector<int32_t> new_links;
  int64_t distinct_links = 0;
  int64_t occurrences = 0;
};

// Draws the pages of one site.
Site BuildSite(const SiteSpec& spec, const DuplicateModel& duplicates, bandit::Random& random);

// Set types (docs/focused.md):
//   table1      sizes log-uniform in [431, 39292], densities log-uniform in [0.020, 0.232]
//               (the ranges of BeeBot's Table 1), placements drawn from all four
//   institute   one large, dense, diffuse leader that stays ahead; the others thin, some with
//               their few links late or in deep link-list pages
//   university  links spread over many sites, late starts and deep link-list bursts, and an
//               early leader whose small pool runs dry
//   mixed       half institute-like, half university-like sites (BeeBot's "5 + 5 sample")
std::vector<std::string> SetTypeNames();

// kInvalidArgument for an unknown type or sites < 1.
absl::StatusOr<std::vector<SiteSpec>> DrawSiteSpecs(std::string_view type, int sites,
                                                    bandit::Random& random);

// A replayed site set (banditsim --replay): one site per line, "<name>\t<n0>,<n1>,...", the new
// external links of each page in the order a crawler fetches them (breadth-first); websim's
// --focus-replay writes it for its focused sites, `crawler export rewards` for a real crawl.
// Empty lines and lines starting with '#' are skipped. kInvalidArgument naming the line for a
// malformed line or a negative count, or when no site is given.
absl::StatusOr<std::vector<Site>> ParseReplay(std::string_view text);

}  // namespace crawler::banditsim

#endif  // CRAWLER_TOOLS_BANDITSIM_SITE_SET_H_
