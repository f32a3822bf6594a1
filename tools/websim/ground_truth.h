// GroundTruth: what a correct crawler fetches from a websim web, and what it must not fetch.
//
// Computed by breadth-first search over SiteModel::LinksOf from the seeds, applying exactly the
// rules docs/websim.md ("Ground truth") gives a crawler: follow every <a href> to an http page of
// the web except rel=nofollow ones, never fetch what the host's robots.txt disallows for "*",
// no depth or page limit, URLs compared after canonicalisation (fragment dropped, scheme and host
// lower-cased, default port dropped, dot segments removed). On scripted sites a second search
// follows only the links a static extractor sees, which tells the pages that need rendering. The
// text form written by FormatGroundTruth is a contract that tests parse.
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
  // Scripted sites only (empty otherwise). The pages of `pages` that a crawler reaches only if it
  // runs the pages' scripts: the same rules, but following only the links visible without
  // rendering (LinkDelivery kStatic and kButton). A crawler that never renders can fetch at most
  // `pages` minus these; one that renders every page, all of `pages`.
  std::vector<PageRef> render_only;
  // The hostile pages of every host that has them, by host then kind. Linked statically from
  // their host's root, so a correct crawl fetches them too; they are not in `pages` and do not
  // count towards coverage.
  std::vector<HostilePage> hostile;
};

GroundTruth ComputeGroundTruth(const SiteModel& model);

// One line per URL, "<kind>\t<canonical url>\n" with kind one of seed, page, disallowed,
// nofollow_only, sitemap_only, render_only, hostile, in that order; lines starting with '#' are
// comments. Without scripted hosts the text is exactly that of earlier versions (no render_only
// or hostile lines, no counts of them in the comments).
std::string FormatGroundTruth(const SiteModel& model, const GroundTruth& truth);

// The seed URLs, one per line.
std::string FormatSeeds(const SiteModel& model);

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_GROUND_TRUTH_H_
