// WebsimOptions: every knob of the synthetic web that websim serves (tools/websim).
//
// The web is a pure function of these options: two SiteModels built from equal options serve
// byte-identical pages, robots.txt, sitemaps and ground truth. docs/websim.md describes the URL
// layout and the rules the ground truth follows; this header documents each field's unit and
// default. Validate() is the single place that checks the ranges; SiteModel::Create calls it.
//
// Thread-safety: a plain value type.
#ifndef CRAWLER_TOOLS_WEBSIM_WEBSIM_OPTIONS_H_
#define CRAWLER_TOOLS_WEBSIM_WEBSIM_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "tools/banditsim/site_set.h"

namespace crawler::websim {

// How fast each page changes (docs/websim.md, "Changing pages"): every page's changes are a
// Poisson process whose rate, in changes per simulated day, is fixed or drawn per page.
struct ChangeRates {
  enum class Kind {
    kNone,   // static web: pages never change
    kFixed,  // every page changes at rate_per_day
    kGamma,  // each page's rate is drawn from Gamma(shape, scale) (mean shape * scale per day)
  };
  Kind kind = Kind::kNone;
  double rate_per_day = 0;  // kFixed
  double shape = 0;         // kGamma
  double scale = 0;         // kGamma, in changes per day

  // A drawn rate is clamped to this, which bounds the events a page keeps in memory
  // (rate x simulated days).
  static constexpr double kMaxRatePerDay = 1000;
};

// "fixed:RATE" or "gamma:SHAPE,SCALE" (the --change-rates flag); InvalidArgument otherwise.
absl::StatusOr<ChangeRates> ParseChangeRates(absl::string_view text);

struct WebsimOptions {
  // Number of hosts, named h0<host_suffix> ... h<N-1><host_suffix>.
  int num_hosts = 20;
  // Pages per host reachable by links or deliberately unreachable (private, nofollow-only);
  // excludes the sitemap-only pages below. Page 0 is the host root "/".
  int pages_per_host = 50;
  // Seed of every pseudo-random choice (layout, links, sizes, text, latency).
  uint64_t seed = 1;
  // Host names end with this suffix. ".test" is reserved (RFC 6761), so a synthetic host can
  // never be a real one even if a crawler bypasses the connect-to override.
  std::string host_suffix = ".websim.test";

  // Seeds are the roots of hosts 0 .. num_seed_hosts-1; 0 means every host. Every host is
  // reachable from any seed (the roots form a ring), so fewer seeds test cross-host discovery.
  int num_seed_hosts = 0;

  // Extra pseudo-random <a> links per page, on top of the tree links that make every public
  // page reachable (each page links its <= 4 children in a 4-ary tree over page ids).
  int links_per_page = 8;
  // Share of the extra links that point to another host (absolute or scheme-relative).
  double cross_host_fraction = 0.1;
  // Popular pages: every page also links its own host's root and the roots of hosts
  // 0 .. popular_links-1 (absolute URLs), as real sites repeat their navigation and a few global
  // pages on every page. 0: none. Roots are pages already, so the ground truth does not change.
  int popular_links = 0;
  // Share of the extra links that carry rel=nofollow.
  double nofollow_fraction = 0.05;

  // Approximate shares of pages (drawn among the leaves of the tree) that are
  //  - private: under /private/, disallowed by robots.txt, linked from public pages;
  //  - private-open: under /private/open/, allowed again by a longer Allow rule;
  //  - nofollow-only: public paths linked only by rel=nofollow links.
  double private_fraction = 0.1;
  double private_open_fraction = 0.03;
  double nofollow_only_fraction = 0.03;
  // Off (the default): each leaf's class is drawn independently per (host, page), so hosts
  // differ in how many pages a crawler can fetch. On: every host has exactly the expected number
  // of leaves of each class (fraction x pages, rounded), at different page ids per host, so
  // every host has the same number of pages in the ground truth; a polite crawler with one delay
  // per host can then keep every host busy to the end (hosts / delay).
  bool equal_host_sizes = false;

  // Share of link-reachable allowed pages listed in each host's /sitemap.xml.
  double sitemap_fraction = 0.5;
  // Pages per host that only the sitemap lists (no link points to them). Off by default so that
  // "reachable from the seeds by links" and "everything a crawler can find" coincide.
  int sitemap_only_pages = 0;
  // <lastmod> in each sitemap entry: the page's last change (its Last-Modified; change_epoch on
  // a static web). Off: entries carry only <loc>.
  bool sitemap_lastmod = true;
  // Share of hosts whose sitemap lies (drawn per host from the seed): every <lastmod> is the
  // time of the request, whether the page changed or not. The pages and the ground truth are
  // the same either way.
  double sitemap_lastmod_lie_fraction = 0;
  // Share of hosts whose robots.txt names the sitemap (a Sitemap: line, drawn per host); the
  // others publish it only at /sitemap.xml, where a crawler finds it by looking there.
  double sitemap_in_robots_fraction = 1.0;
  // URLs per sitemap file, [1, 50000] (sitemaps.org's limit): a host that lists more serves
  // /sitemap.xml as a sitemap index of /sitemap-1.xml, /sitemap-2.xml, ... of this many each.
  int sitemap_max_urls = 50'000;

  // Crawl-delay written into every robots.txt; zero writes no Crawl-delay line.
  absl::Duration crawl_delay = absl::ZeroDuration();

  // Body size of each HTML page, drawn uniformly per page in [min, max]. Text padding fills the
  // page up to its size; a page whose links alone exceed the size is as long as its links.
  int64_t page_bytes_min = 2048;
  int64_t page_bytes_max = 8192;

  // Delay between receiving a request and sending its response, drawn uniformly per host in
  // [min, max] (microsecond resolution). Applies to every path of the host, robots.txt included.
  absl::Duration latency_min = absl::ZeroDuration();
  absl::Duration latency_max = absl::ZeroDuration();

  // Scripted sites (docs/websim.md, "Scripted sites"): share of hosts, drawn per host from the
  // seed, whose pages deliver most of their links through JavaScript, for measuring a crawler
  // that renders pages in a browser. 0 (the default) leaves every host, page and ground truth
  // byte for byte as without it.
  double scripted_host_fraction = 0;
  // The share of a scripted host's pages (drawn per page; the root always) that links still
  // reach without scripts, as a plain <a href> or an onclick button: real sites are rarely all
  // script. Links to the host's other pages take a form that needs rendering (LinkDelivery), from
  // every scripted host, so on a web of scripted hosts only about this share of the pages is
  // reachable without rendering (links from other hosts are plain <a href>).
  double scripted_static_page_fraction = 0.3;
  // Share of scripted hosts (drawn per host) that also serve the hostile pages under
  // /_hostile/ (endless loop, memory hog, pop-up storm, metadata and loopback fetches, dialogs,
  // a page that never finishes loading), linked from the host's root. 0: none.
  double hostile_host_fraction = 0;
  // The port of the hostile loopback fetch (http://127.0.0.1:<port>/). 0: the port the page
  // itself was loaded from (80 when its URL has none). Pointing it at websim's own port makes
  // the fetch show up in the request log (host 127.0.0.1, status 404), so a test can tell
  // whether the crawler's browser let it through.
  int hostile_probe_port = 0;

  // Changing pages (off by default: the web is static and responses ignore time). When
  // change_rates.kind is not kNone, time_scale must be > 0: page versions follow Poisson
  // processes in simulated time, days = elapsed real seconds x time_scale.
  ChangeRates change_rates;
  // Simulated days per real second (1 = a day per second: a few minutes of wall time cover
  // months). 0 only with change_rates.kind == kNone. At most 1e6.
  double time_scale = 0;
  // Always-varying furniture on changing pages (visitor counter, "generated at" time stamp,
  // rotating ad line) that differs on every request but is not a change of the page. Ignored on
  // a static web.
  bool noise = true;
  // The wall-clock time of simulated time 0, for Last-Modified and the noise time stamp. A fixed
  // default keeps responses reproducible; 2000-01-01T00:00:00Z.
  absl::Time change_epoch = absl::FromUnixSeconds(946'684'800);

  // Focused-collection sites (docs/websim.md, "Focused sites"; focus_sites.h): empty, the
  // default, is off. Otherwise host h is site focus_sites[h] of banditsim's model: its pages are
  // a 4-ary tree in breadth-first order with no other internal links, and carry the site's
  // external links. UseFocusSites sets the fields this mode depends on; Validate checks them.
  std::vector<banditsim::SiteSpec> focus_sites;
  banditsim::DuplicateModel focus_duplicates;

  // Makes the web focused-collection sites: one host per spec, pages_per_host the largest site,
  // and no link or page kind that would reorder a site's breadth-first walk or make pages
  // unreachable (extra, popular and pagination links, private, nofollow-only and sitemap-only
  // pages, sitemap entries).
  void UseFocusSites(std::vector<banditsim::SiteSpec> sites);

  // Checks ranges; InvalidArgument names the first offending field.
  absl::Status Validate() const;
};

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_WEBSIM_OPTIONS_H_
