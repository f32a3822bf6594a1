// GroundTruth: what a correct crawler fetches from a websim web, and what it must not fetch.
//
// Computed by breadth-first search over SiteModel::LinksOf from the seeds, applying exactly the
// rules docs/websim.md ("Ground truth") gives a crawler: follow every <a href> to an http page of
// the web except rel=nofollow ones, never fetch what the host's robots.txt disallows for "*",
// no depth or page limit, URLs compared after canonicalisation (fragment dropped, scheme and host
// lower-cased, default port dropped, dot segments removed). The text form written by
// FormatGroundTruth is a contract that tests parse.
//
// Thread-safety: plain values; ComputeGroundTruth only reads the (immutable) model.
#ifndef CRAWLER_TOOLS_WEBSIM_GROUND_TRUTH_H_
#define CRAWLER_TOOLS_WEBSIM_GROUND_TRUTH_H_

#include <string>
#include <vector>

#include "tools/websim/site_model.h"

namespace crawler::websim {

// Every list is sorted by (host, page) and free of duplicates.
struct GroundTruth {
  // Start pages (SiteModel::Seeds()).
  std::vector<PageRef> seeds;
  // Allowed pages reachable from the seeds by followable links: exactly the pages a correct,
  // unbounded crawl fetches (besides /robots.txt, and /sitemap.xml if it reads sitemaps).
  std::vector<PageRef> pages;
  // Pages a reachable page links to (with or without nofollow) that robots.txt disallows.
  std::vector<PageRef> disallowed;
  // Allowed pages that reachable pages link to, but only with rel=nofollow.
  std::vector<PageRef> nofollow_only;
  // Allowed pages listed in a sitemap that no followable link reaches. A crawler that reads
  // sitemaps fetches `pages` plus these.
  std::vector<PageRef> sitemap_only;
};

GroundTruth ComputeGroundTruth(const SiteModel& model);

// One line per URL, "<kind>\t<canonical url>\n" with kind one of seed, page, disallowed,
// nofollow_only, sitemap_only, in that order; lines starting with '#' are comments.
std::string FormatGroundTruth(const SiteModel& model, const GroundTruth& truth);

// The seed URLs, one per line.
std::string FormatSeeds(const SiteModel& model);

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_GROUND_TRUTH_H_
