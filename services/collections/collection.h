// Collection: what to crawl and how: seeds, scope (lib/scope/scope.h), politeness, limits,
// re-visiting, and what to store. The scheduler owns collections; the frontier and
// fetcher receive the parts they apply (docs/architecture.md §12: services/collections is below
// all three, so each can use the definition without the others).
#ifndef CRAWLER_SERVICES_COLLECTIONS_COLLECTION_H_
#define CRAWLER_SERVICES_COLLECTIONS_COLLECTION_H_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/politeness/politeness_options.h"
#include "lib/scope/scope.h"
#include "services/collections/collection_name.h"
#include "services/collections/focus_options.h"
#include "services/collections/revisit_options.h"

namespace crawler::collections {

struct CollectionLimits {
  static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();
  uint64_t max_pages = kUnlimited;           // pages fetched in total
  uint64_t max_pages_per_host = kUnlimited;  // pages fetched per host key

  friend bool operator==(const CollectionLimits&, const CollectionLimits&) = default;
};

// Keeping the collection fresh (docs/architecture.md §7): how the frontier re-visits pages and the
// budget the scheduler spreads over them.
struct CollectionRevisit {
  // Policy, interval bounds and change threshold, applied by the frontier (revisit_options.h).
  RevisitOptions options;
  // Re-visits per day the collection may spend (> 0 when re-visiting is on). "optimal" solves
  // mu so that the pages' frequencies add up to it; "uniform" and "fixed" (without an interval)
  // divide it evenly. Real crawls think per day (10 pages x 24 visits = 240); a test web whose
  // pages change in seconds may use any rate, e.g. 5 per second = 432,000 per day.
  double budget_visits_per_day = 0;

  friend bool operator==(const CollectionRevisit&, const CollectionRevisit&) = default;
};

// A focused collection (docs/architecture.md §8, docs/focused.md): a yield instead of coverage. The
// sites of the seeds are the arms of a bandit that picks which one to fetch from next within the
// page budget (limits.max_pages, required).
struct CollectionFocus {
  // "none" (a coverage crawl) or "external_links" (also spelled "external-links"): the reward of
  // a page is the number of its external links the collection had not seen before.
  std::string target = "none";
  // A lib/bandit policy (FocusOptions::policy).
  std::string policy = "rested-thompson";
  // "domain": a link is external when its registrable domain (Public Suffix List) differs from
  // the page's; "host": when its host does.
  std::string external = "domain";
  // Fetches the bandit has chosen and not yet seen the reward of, at most (per partition).
  uint32_t max_in_flight = 4;
  uint64_t seed = 1;

  bool enabled() const { return target != "none"; }
  // The frontier partitions' options for this focus (enabled iff enabled()).
  FocusOptions FrontierOptions() const;
  friend bool operator==(const CollectionFocus&, const CollectionFocus&) = default;
};

// Where a collection looks for sitemaps (sitemaps.org) to learn a site's pages from.
enum class SitemapDiscovery {
  kOff,                 // only sitemaps given as seeds are read
  kRobots,              // also those named by robots.txt Sitemap: lines
  kRobotsAndWellKnown,  // also /sitemap.xml of a host whose robots.txt names none
};
// "off", "robots", "robots+well-known"; kInvalidArgument for anything else.
absl::StatusOr<SitemapDiscovery> ParseSitemapDiscovery(std::string_view text);
std::string_view SitemapDiscoveryName(SitemapDiscovery discovery);

// Which HTML pages are rendered in a browser (services/fetcher/page_renderer.h).
enum class RenderMode {
  kNever,   // the static HTML only
  kAuto,    // pages with scripts, on hosts where rendering found links the HTML lacked
  kAlways,  // every HTML page fetched with 2xx
};
// "never", "auto", "always"; kInvalidArgument for anything else.
absl::StatusOr<RenderMode> ParseRenderMode(std::string_view text);
std::string_view RenderModeName(RenderMode mode);

// Rendering, and the limits of one page's render (docs/fetcher.md "Rendering"). The browser
// itself (its executable, tabs, memory) is the fetcher process's setting.
struct CollectionRender {
  std::string mode = "never";  // RenderMode
  // From navigation to reading the DOM: a page still loading then is read as it stands.
  absl::Duration time_per_page = absl::Seconds(15);
  // Subresource requests (scripts, fetch/XHR, frames, style sheets) one page may make.
  uint32_t max_requests_per_page = 100;
  // Bytes of bodies served to one page, its own included.
  uint64_t max_bytes_per_page = uint64_t{16} << 20;
  friend bool operator==(const CollectionRender&, const CollectionRender&) = default;
};

struct Collection {
  std::string name = "default";
  std::vector<std::string> seeds;  // absolute http(s) URLs
  // Sitemaps to read from the start (absolute http(s) URLs, plain, gzip or index files): the
  // pages they list are queued as links of depth 1. They count as seeds for the scope
  // (same_site_only admits their sites).
  std::vector<std::string> sitemap_seeds;
  // "robots", "robots+well-known" or "off" (SitemapDiscovery). On by default: a sitemap is the
  // site's own list of its pages, and reaches pages no link does; a host without sitemaps costs
  // one 404 for /sitemap.xml.
  std::string sitemap_discovery = "robots+well-known";
  scope::ScopeOptions scope;
  CollectionLimits limits;
  politeness::PolitenessOptions politeness;
  // Media types (essence, after sniffing) stored in WARC files; empty = everything fetched.
  std::vector<std::string> store_content_types;
  // Write WARC files at all ("whether to store bodies"). Off: the crawl only maps the site.
  bool store_bodies = true;
  // Compute content fingerprints and detect duplicates (exact and near, docs/architecture.md §9).
  // Off: a mapping crawl that only needs the link graph; duplicates are not detected and re-visits
  // judge change by the validators instead of the SimHash.
  bool fingerprints = true;
  CollectionRevisit revisit;
  CollectionFocus focus;
  // Record every link of every HTML page (<data_dir>/links.tsv, docs/focused.md) for `crawler
  // export links|domains|rewards`. On whenever focus is.
  bool record_links = false;
  CollectionRender render;

  // What focus implies (standalone and distributed alike): the seeds' sites are the arms and
  // their external links are what the collection gathers, not what it fetches, so
  // scope.same_site_only and record_links are turned on, and sitemap_discovery off (a sitemap
  // lease would be a pull without a reward). No-op without focus.
  void ApplyFocus();

  // Checks every field; kInvalidArgument names the first bad one.
  absl::Status Validate() const;

  friend bool operator==(const Collection&, const Collection&) = default;
};

}  // namespace crawler::collections

#endif  // CRAWLER_SERVICES_COLLECTIONS_COLLECTION_H_
