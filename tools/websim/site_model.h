// SiteModel: the deterministic synthetic web that websim serves.
//
// A pure function from (WebsimOptions, host, request target, time) to a response: page HTML with
// links in every relative and absolute form, robots.txt (RFC 9309), sitemap.xml (sitemaps.org
// 0.9) and 404s. Nothing is stored per page: layout, links, sizes and text are recomputed from
// hashes of (seed, host, page), so a web of millions of pages costs no memory and any server
// thread can answer any request. docs/websim.md is the contract (URL layout, link forms, ground
// truth rules); ground_truth.h computes the set of pages a correct crawler fetches.
//
// The `elapsed` argument is the real time since the web "started". On a static web (the default)
// every response is independent of it. With changing pages (WebsimOptions::change_rates) it maps
// to simulated days (x time_scale): each page's version is the number of events of its Poisson
// process so far (change_process.h), the text of a page is redrawn per version (links stay the
// same), page responses carry ETag "v<version>" and Last-Modified, conditional GETs get 304, and
// with `noise` every page also carries furniture that varies on every request (counter, time
// stamp, ad line) inside <div class="websim-noise">.
//
// Scripted sites (WebsimOptions::scripted_host_fraction, off by default): on a scripted host the
// links to its script-only pages reach the DOM only when the page's scripts run (LinkDelivery),
// and some hosts also serve hostile pages (HostileKind). The link graph is the same either way.
//
// Thread-safety: every method is const and safe to call concurrently. The only mutable state is
// the change-event memo of ChangeProcess (internally locked), which copies of a SiteModel share.
#ifndef CRAWLER_TOOLS_WEBSIM_SITE_MODEL_H_
#define CRAWLER_TOOLS_WEBSIM_SITE_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "tools/websim/change_process.h"
#include "tools/websim/focus_sites.h"
#include "tools/websim/websim_options.h"

namespace crawler::websim {

// One page of the web: host index in [0, num_hosts), page index in [0, num_page_ids).
struct PageRef {
  int host = 0;
  int page = 0;
  friend bool operator==(const PageRef&, const PageRef&) = default;
};

// What a page is for the crawler's rules. Decided per page by the seed.
enum class PageClass {
  kPublic,        // allowed, reachable by followable links
  kPrivate,       // under /private/: robots.txt disallows it
  kPrivateOpen,   // under /private/open/: allowed by the longer Allow rule, reachable
  kNofollowOnly,  // allowed, but every link to it carries rel=nofollow
  kSitemapOnly,   // allowed, listed in sitemap.xml, no link points to it
};

// The textual form of an href, so tests can check that every form occurs and resolves.
enum class LinkForm {
  kAbsolutePath,     // /d1/p5.html
  kPathRelative,     // p5.html, s2/p5.html
  kDotRelative,      // ./p5.html
  kParentRelative,   // ../d2/p5.html
  kQueryOnly,        // ?id=7&lang=en (from /d1/view?id=5&lang=en)
  kDotSegments,      // /d3/../d1/./p5.html
  kSchemeRelative,   // //h3.websim.test/d1/p5.html
  kAbsoluteUrl,      // http://h3.websim.test/d1/p5.html
  kAbsoluteUrlNonCanonical,  // HTTP://H3.WEBSIM.TEST:80/d1/p5.html
};
inline constexpr int kNumLinkForms = 9;
absl::string_view LinkFormName(LinkForm form);

// How a link gets into the page's DOM (docs/websim.md, "Scripted sites"). Every host but the
// scripted ones writes every link as kStatic.
enum class LinkDelivery {
  kStatic,         // <a href> in the HTML
  kButton,         // <button onclick="location.href='HREF'">: no <a>, but a literal a static
                   // extractor reads from the handler (lib/html's script links)
  kDocumentWrite,  // an inline <script> document.write()s the <a>; its href is assembled at run
                   // time, so the script text holds no URL
  kFetchedJson,    // an inline script appends the <a> from /_links/<page id>.json
  kRouter,         // the host's /_app.js builds the <a> from the page's data-routes attribute
};
inline constexpr int kNumLinkDeliveries = 5;
absl::string_view LinkDeliveryName(LinkDelivery delivery);
// Whether only a browser that runs the page's scripts sees the link: every delivery but kStatic
// and kButton.
bool NeedsRendering(LinkDelivery delivery);

// The hostile pages of a scripted host with hostile pages (WebsimOptions::hostile_host_fraction),
// each at a fixed path under /_hostile/ (HostilePath) linked from the host's root. They hold no
// links to the web and are not pages of the ground truth's coverage (GroundTruth::hostile).
enum class HostileKind {
  kEndlessLoop,    // /_hostile/loop.html: while (true) {}
  kMemoryHog,      // /_hostile/memory.html: an array that grows by 64 MiB every tick
  kPopupStorm,     // /_hostile/popups.html: window.open of /_hostile/popup.html, 50 a tick
  kMetadataFetch,  // /_hostile/metadata.html: fetch() of the cloud metadata address
  kLoopbackFetch,  // /_hostile/loopback.html: fetch() of http://127.0.0.1:<port>/
  kAlert,          // /_hostile/alert.html: alert(), confirm(), prompt(), and alert() every second
  kBeforeUnload,   // /_hostile/beforeunload.html: a beforeunload handler that asks to stay
  kNeverLoads,     // /_hostile/never-loads.html: its <script src> is answered after kStallDelay
};
inline constexpr int kNumHostileKinds = 8;
absl::string_view HostilePath(HostileKind kind);

// The other resources of scripted hosts (not pages): the router every scripted host serves, and
// the script of /_hostile/never-loads.html and the target of the pop-up storm on hosts with
// hostile pages.
inline constexpr absl::string_view kAppScriptPath = "/_app.js";
inline constexpr absl::string_view kStallScriptPath = "/_hostile/slow.js";
inline constexpr absl::string_view kPopupPath = "/_hostile/popup.html";

struct HostilePage {
  int host = 0;
  HostileKind kind = HostileKind::kEndlessLoop;
  friend bool operator==(const HostilePage&, const HostilePage&) = default;
};

// One <a href> of a page that points to a page of the web. Links that point nowhere a crawler
// should go (mailto:, javascript:, "#top") are rendered but not listed.
struct OutLink {
  PageRef target;
  // The attribute value as a parser sees it after decoding character references, i.e. "&" not
  // "&amp;". May carry a fragment and leading/trailing spaces.
  std::string href;
  LinkForm form = LinkForm::kAbsolutePath;
  bool nofollow = false;
  // kStatic except on scripted hosts. Needs rendering exactly when the target IsScriptOnly.
  // Never kButton for a nofollow link: a button has no rel.
  LinkDelivery delivery = LinkDelivery::kStatic;
};

// A response before HTTP framing.
struct SiteResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  // How long the server waits before sending the response.
  absl::Duration latency = absl::ZeroDuration();
  // Extra header fields: ETag and Last-Modified of changing pages.
  std::vector<std::pair<std::string, std::string>> headers;
};

// The validators of a request (RFC 9110 §13.1), as sent; empty when absent.
struct RequestConditions {
  std::string if_none_match;
  std::string if_modified_since;
};

class SiteModel {
 public:
  // InvalidArgument if the options are out of range (see WebsimOptions::Validate).
  static absl::StatusOr<SiteModel> Create(WebsimOptions options);

  const WebsimOptions& options() const { return options_; }
  int num_hosts() const { return options_.num_hosts; }
  // Page ids per host: pages_per_host linked pages, then sitemap_only_pages.
  int num_page_ids() const { return options_.pages_per_host + options_.sitemap_only_pages; }

  // Pages of `host`: pages_per_host, or its site's size with focus_sites.
  int PagesOf(int host) const;
  // The focused-collection sites (focus_sites.h); null unless WebsimOptions::focus_sites is set.
  const FocusSites* focus() const { return focus_.get(); }
  // External links of the page (focused sites only; empty otherwise), in document order after
  // LinksOf's links.
  std::vector<ExternalLink> ExternalLinksOf(PageRef page) const;

  // "h<host><suffix>", lower case.
  std::string HostName(int host) const;
  // The host index of a lower-case host name without port, if it is one of ours.
  std::optional<int> FindHost(absl::string_view host_name) const;

  PageClass ClassOf(PageRef page) const;
  // Path and query of the page: "/", "/p5.html", "/d1/s2/p5.html", "/d1/view?id=5&lang=en",
  // "/d1/t5/", "/private/p5.html", "/private/open/p5.html" ...
  std::string PathOf(PageRef page) const;
  // Inverse of PathOf: the page whose PathOf is exactly `target`.
  std::optional<PageRef> FindPage(int host, absl::string_view target) const;
  // Canonical absolute URL: "http://" + HostName + PathOf.
  std::string UrlOf(PageRef page) const;
  // Whether the host's robots.txt allows `path` for user agents other than the excluded one.
  bool IsAllowed(absl::string_view path) const;

  // Every link of the page to a page of the web, in document order.
  std::vector<OutLink> LinksOf(PageRef page) const;
  // Roots of the seed hosts, in host order.
  std::vector<PageRef> Seeds() const;
  absl::Duration LatencyOf(int host) const;

  // Whether pages change over time (change_rates set).
  bool changing() const { return changes_ != nullptr; }
  // Simulated days since the start: ToDoubleSeconds(elapsed) x time_scale (0 on a static web).
  double SimulatedDays(absl::Duration elapsed) const;
  // Changes per simulated day of the page (0 on a static web).
  double ChangeRateOf(PageRef page) const;
  // Version of the page at `elapsed`: number of change events so far, and the day of the last.
  ChangeProcess::Version VersionOf(PageRef page, absl::Duration elapsed) const;
  // Simulated days of every change of the page up to `elapsed`, ascending (empty if static).
  std::vector<double> ChangeTimesOf(PageRef page, absl::Duration elapsed) const;
  // change_epoch + `day` simulated days, truncated to whole seconds (HTTP-date resolution).
  absl::Time WallTimeOf(double day) const;

  // The page's HTML at `elapsed`: text of its current version, plus noise if enabled.
  std::string RenderPage(PageRef page, absl::Duration elapsed) const;
  std::string RenderRobotsTxt(int host) const;
  // The host's /sitemap.xml at `elapsed`: a urlset of its listed pages, or, past
  // sitemap_max_urls, a sitemap index of its parts (RenderSitemapPart). <lastmod> per
  // WebsimOptions::sitemap_lastmod and sitemap_lastmod_lie_fraction.
  std::string RenderSitemap(int host, absl::Duration elapsed = absl::ZeroDuration()) const;
  // /sitemap-<part>.xml (part 1 first) of a host whose sitemap is an index; nullopt for a part
  // it does not have.
  std::optional<std::string> RenderSitemapPart(int host, int part,
                                               absl::Duration elapsed = absl::ZeroDuration()) const;
  // Parts of the host's sitemap: 0 when /sitemap.xml is a plain urlset.
  int SitemapParts(int host) const;
  // Whether the page is listed in its host's sitemap.
  bool InSitemap(PageRef page) const;
  // Whether the host's sitemap <lastmod> lies (always the time of the request).
  bool SitemapLies(int host) const;
  // Whether the host's robots.txt names its sitemap.
  bool SitemapInRobots(int host) const;

  // Scripted sites (docs/websim.md, "Scripted sites"). Whether the host delivers links by
  // script (WebsimOptions::scripted_host_fraction), and whether it serves the hostile pages.
  bool IsScripted(int host) const;
  bool HasHostilePages(int host) const;
  // Whether scripted hosts link the page only by script: a page of a scripted host other than
  // its root, drawn per page (WebsimOptions::scripted_static_page_fraction).
  bool IsScriptOnly(PageRef page) const;
  // "/_links/<page id>.json": the page's kFetchedJson links, which its inline script fetches.
  static std::string LinksJsonPath(PageRef page);
  // The JSON at LinksJsonPath: {"links":[{"href":...,"text":...[,"rel":"nofollow"]},...]}, the
  // page's kFetchedJson links in document order, href as in OutLink.
  std::string RenderLinksJson(PageRef page) const;
  // /_app.js of every scripted host: the client-side router that builds a page's kRouter links.
  static std::string RenderAppScript();
  // The hostile page of `kind` on its host; "http://" + host + HostilePath for its URL.
  std::string RenderHostilePage(HostileKind kind) const;
  std::string HostileUrlOf(HostilePage page) const;
  // How long websim waits before it answers the script of /_hostile/never-loads.html: longer
  // than any sane render timeout, short enough that no connection is held without bound.
  static constexpr absl::Duration kStallDelay = absl::Seconds(60);

  // The response for `target` (origin-form path and query) on `host_name` (lower case, no
  // port). Unknown hosts and paths give 404.
  SiteResponse Respond(absl::string_view host_name, absl::string_view target,
                       absl::Duration elapsed) const;
  // As above, evaluating If-None-Match / If-Modified-Since (RFC 9110 §13.1.2, §13.1.3) against a
  // changing page's ETag and Last-Modified: 304 with an empty body when not modified.
  SiteResponse Respond(absl::string_view host_name, absl::string_view target,
                       absl::Duration elapsed, const RequestConditions& conditions) const;

 private:
  SiteModel(WebsimOptions options, std::shared_ptr<const FocusSites> focus);

  struct Layout;
  Layout LayoutOf(PageRef page) const;
  bool IsTreeLeaf(int page) const;
  std::string HrefFor(PageRef from, const std::string& from_path, PageRef to, LinkForm form) const;
  // The delivery of the `index`th link of a page of a scripted host.
  LinkDelivery DeliveryOf(PageRef page, size_t index, const OutLink& link) const;
  // A link of a scripted page in its delivery's inline form: a button or a document.write
  // script for kButton and kDocumentWrite; nothing for the others, which RenderScriptedTail adds.
  void AppendScriptedLink(std::string* out, const OutLink& link) const;
  // What a scripted page holds after its link list: the containers and scripts of its
  // kFetchedJson and kRouter links, and on the root of a host with hostile pages, the links to
  // them. Empty on other hosts.
  std::string RenderScriptedTail(PageRef page, const std::vector<OutLink>& links) const;
  // The response to /_app.js, /_links/*.json and /_hostile/* on a host that serves them.
  std::optional<SiteResponse> RespondScripted(int host, absl::string_view target) const;
  // The page's HTML with the text of `version`, plus noise at `elapsed` if enabled.
  std::string RenderVersion(PageRef page, int64_t version, absl::Duration elapsed) const;
  // The always-varying block of a changing page at `elapsed`.
  std::string RenderNoise(PageRef page, absl::Duration elapsed) const;
  // The page ids the host's sitemap lists, in order: sitemap-only pages first.
  std::vector<int> SitemapPages(int host) const;
  // A urlset of SitemapPages(host)[begin, end).
  std::string RenderUrlset(int host, const std::vector<int>& pages, size_t begin, size_t end,
                           absl::Duration elapsed) const;
  // The <lastmod> of `page` at `elapsed` (the time of the request if its host lies).
  absl::Time SitemapLastmod(PageRef page, absl::Duration elapsed) const;

  // Constant after construction.
  WebsimOptions options_;
  // Text the pages are padded with, drawn from the seed.
  std::vector<std::string> sentences_;
  // Per-leaf probabilities of the page classes, derived once from the page fractions.
  double p_private_ = 0;
  double p_private_open_ = 0;
  double p_nofollow_only_ = 0;
  // equal_host_sizes only (else null / 0): each page id's position in one seeded order of the
  // tree's leaves (-1 for inner pages), shared by copies; and the leaves of each class per host.
  std::shared_ptr<const std::vector<int32_t>> leaf_rank_;
  int64_t num_leaves_ = 0;
  int64_t quota_private_ = 0;
  int64_t quota_private_open_ = 0;
  int64_t quota_nofollow_only_ = 0;
  // When pages change; null on a static web. Shared by copies (it memoises a pure function).
  std::shared_ptr<const ChangeProcess> changes_;
  // Null unless focused sites are on. Shared by copies.
  std::shared_ptr<const FocusSites> focus_;
};

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_SITE_MODEL_H_
