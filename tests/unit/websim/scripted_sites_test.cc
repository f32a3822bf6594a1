// Scripted sites (docs/websim.md, "Scripted sites"): links that only a browser running the
// pages' scripts sees, the ground truth that tells them apart, and the hostile pages.
//
// Two oracles crawl the web through SiteModel::Respond. The static one reads pages with the
// crawler's own extractor (lib/html, scripting disabled): it must reach exactly the pages the
// truth does not mark render_only. The rendering one adds what the pages' scripts would put
// into the DOM, read the way the scripts read it (the reversed document.write literal, the
// fetched /_links/<id>.json, the router's base64 data-routes): it must reach every page.
#include <algorithm>
#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "lib/html/extract_page.h"
#include "lib/url/url.h"
#include "tests/unit/websim/reference_crawler.h"
#include "tools/websim/ground_truth.h"
#include "tools/websim/site_model.h"

namespace crawler::websim {
namespace {

using testing_support::RobotsAllowed;
using testing_support::SplitHttpUrl;

SiteModel Make(WebsimOptions options) {
  absl::StatusOr<SiteModel> model = SiteModel::Create(std::move(options));
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

WebsimOptions Scripted(double host_fraction, double hostile_fraction = 0) {
  WebsimOptions options;
  options.num_hosts = 8;
  options.pages_per_host = 60;
  options.page_bytes_min = 0;
  options.page_bytes_max = 0;
  options.scripted_host_fraction = host_fraction;
  options.hostile_host_fraction = hostile_fraction;
  return options;
}

struct ScriptLink {
  std::string href;
  bool nofollow = false;
};

// The hrefs and rels of a {"links":[{"href":...,"text":...[,"rel":"nofollow"]}]} document, as
// the page's scripts read it. websim's hrefs hold no quote or backslash.
std::vector<ScriptLink> ParseLinksJson(absl::string_view json) {
  std::vector<ScriptLink> links;
  constexpr absl::string_view kHref = "{\"href\":\"";
  for (size_t at = json.find(kHref); at != absl::string_view::npos; at = json.find(kHref, at)) {
    at += kHref.size();
    const size_t end = json.find('"', at);
    const size_t close = json.find('}', end);
    links.push_back({std::string(json.substr(at, end - at)),
                     absl::StrContains(json.substr(end, close - end), "\"rel\":\"nofollow\"")});
  }
  return links;
}

// The value of the first `attribute="..."` in `html`, if any.
std::optional<std::string> AttributeValue(absl::string_view html, absl::string_view attribute) {
  const std::string key = absl::StrCat(attribute, "=\"");
  const size_t at = html.find(key);
  if (at == absl::string_view::npos) return std::nullopt;
  const size_t begin = at + key.size();
  return std::string(html.substr(begin, html.find('"', begin) - begin));
}

// What the page's scripts add to its DOM, in the order of the three forms: document.write
// links, the fetched JSON's links, the router's links.
std::vector<ScriptLink> RenderedLinks(const SiteModel& model, absl::string_view host,
                                      absl::string_view html) {
  std::vector<ScriptLink> links;
  constexpr absl::string_view kWrite = "document.write('<a href=\"' + '";
  for (size_t at = html.find(kWrite); at != absl::string_view::npos; at = html.find(kWrite, at)) {
    at += kWrite.size();
    const size_t end = html.find('\'', at);
    std::string href(html.substr(at, end - at));
    std::reverse(href.begin(), href.end());
    const size_t close = html.find("</script>", end);
    links.push_back({absl::StrReplaceAll(href, {{"&amp;", "&"}}),
                     absl::StrContains(html.substr(end, close - end), "rel=\"nofollow\"")});
  }
  if (std::optional<std::string> page = AttributeValue(html, "data-page")) {
    SiteResponse json = model.Respond(host, absl::StrCat("/_links/", *page, ".json"),
                                      absl::ZeroDuration());
    EXPECT_EQ(json.status, 200);
    for (ScriptLink& link : ParseLinksJson(json.body)) links.push_back(std::move(link));
  }
  if (std::optional<std::string> routes = AttributeValue(html, "data-routes")) {
    std::string json;
    EXPECT_TRUE(absl::Base64Unescape(*routes, &json));
    for (ScriptLink& link : ParseLinksJson(json)) links.push_back(std::move(link));
  }
  return links;
}

struct Crawl {
  std::set<std::string> fetched;
  int rendered_links = 0;
};

// Breadth-first from the seeds through Respond, obeying robots.txt and nofollow; with `render`,
// also through the links the pages' scripts add.
Crawl OracleCrawl(const SiteModel& model, bool render) {
  Crawl crawl;
  std::map<std::string, std::string> robots;
  auto allowed = [&](const std::string& url) {
    auto [host, path] = SplitHttpUrl(url);
    auto it = robots.find(host);
    if (it == robots.end()) {
      it = robots.emplace(host, model.Respond(host, "/robots.txt", absl::ZeroDuration()).body)
               .first;
    }
    return RobotsAllowed(it->second, "testbot", path);
  };
  std::deque<std::string> queue;
  std::set<std::string> queued;
  auto follow = [&](const url::Url& to, bool nofollow) {
    const std::string target(to.href_without_fragment());
    if (nofollow || to.scheme() != "http" || !allowed(target)) return;
    if (queued.insert(target).second) queue.push_back(target);
  };
  for (PageRef seed : model.Seeds()) follow(*url::Url::Parse(model.UrlOf(seed)), false);
  while (!queue.empty()) {
    const std::string page_url = queue.front();
    queue.pop_front();
    auto [host, target] = SplitHttpUrl(page_url);
    const SiteResponse response = model.Respond(host, target, absl::ZeroDuration());
    if (response.status != 200) continue;
    crawl.fetched.insert(page_url);
    const url::Url base = *url::Url::Parse(page_url);
    absl::StatusOr<html::ExtractedPage> page =
        html::ExtractPage(response.body, base, response.content_type);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) continue;
    for (const html::Link& link : page->links) follow(link.url, link.nofollow);
    if (!render) continue;
    for (const ScriptLink& link : RenderedLinks(model, host, response.body)) {
      ++crawl.rendered_links;
      absl::StatusOr<url::Url> to = url::Url::Parse(link.href, base);
      EXPECT_TRUE(to.ok()) << link.href;
      if (to.ok()) follow(*to, link.nofollow);
    }
  }
  return crawl;
}

std::set<std::string> Urls(const SiteModel& model, const std::vector<PageRef>& refs) {
  std::set<std::string> urls;
  for (PageRef ref : refs) urls.insert(model.UrlOf(ref));
  return urls;
}

std::set<std::string> HostileUrls(const SiteModel& model, const GroundTruth& truth) {
  std::set<std::string> urls;
  for (HostilePage page : truth.hostile) urls.insert(model.HostileUrlOf(page));
  return urls;
}

TEST(ScriptedSites, OffByDefaultAndNonScriptedHostsUnchanged) {
  EXPECT_EQ(WebsimOptions{}.scripted_host_fraction, 0);
  EXPECT_EQ(WebsimOptions{}.hostile_host_fraction, 0);
  // The other scripted options do nothing while no host is scripted.
  WebsimOptions off = Scripted(0);
  off.scripted_static_page_fraction = 0.9;
  off.hostile_host_fraction = 1;
  off.hostile_probe_port = 8080;
  const SiteModel plain = Make(Scripted(0));
  const SiteModel idle = Make(off);
  const SiteModel half = Make(Scripted(0.5, 1));
  int scripted_hosts = 0;
  for (int h = 0; h < plain.num_hosts(); ++h) {
    EXPECT_FALSE(plain.IsScripted(h));
    EXPECT_FALSE(idle.IsScripted(h));
    EXPECT_EQ(plain.RenderRobotsTxt(h), half.RenderRobotsTxt(h));
    EXPECT_EQ(plain.RenderSitemap(h), half.RenderSitemap(h));
    scripted_hosts += half.IsScripted(h);
    for (int p = 0; p < plain.num_page_ids(); ++p) {
      const PageRef page{h, p};
      const std::string html = plain.RenderPage(page, absl::ZeroDuration());
      ASSERT_EQ(html, idle.RenderPage(page, absl::ZeroDuration()));
      ASSERT_EQ(plain.PathOf(page), half.PathOf(page));
      ASSERT_EQ(plain.LinksOf(page).size(), half.LinksOf(page).size());
      // A page of a host that is not scripted renders the same on a web with scripted hosts.
      if (!half.IsScripted(h)) {
        ASSERT_EQ(html, half.RenderPage(page, absl::ZeroDuration()));
      }
    }
    for (absl::string_view path : {"/_app.js", "/_links/0.json", "/_hostile/loop.html"}) {
      EXPECT_EQ(idle.Respond(plain.HostName(h), path, absl::ZeroDuration()).status, 404) << path;
    }
  }
  EXPECT_GT(scripted_hosts, 0);
  EXPECT_LT(scripted_hosts, plain.num_hosts());
  const std::string truth = FormatGroundTruth(plain, ComputeGroundTruth(plain));
  EXPECT_EQ(truth, FormatGroundTruth(idle, ComputeGroundTruth(idle)));
  EXPECT_FALSE(absl::StrContains(truth, "render_only"));
  EXPECT_FALSE(absl::StrContains(truth, "hostile"));
}

// The links are the same on a scripted host, only delivered otherwise, and a link needs
// rendering exactly when its target is script-only.
TEST(ScriptedSites, DeliveryFollowsTheTargetAndEveryFormOccurs) {
  const SiteModel plain = Make(Scripted(0));
  const SiteModel model = Make(Scripted(1));
  std::map<LinkDelivery, int> counts;
  for (int h = 0; h < model.num_hosts(); ++h) {
    ASSERT_TRUE(model.IsScripted(h));
    EXPECT_FALSE(model.IsScriptOnly(PageRef{h, 0}));
    for (int p = 0; p < model.num_page_ids(); ++p) {
      const std::vector<OutLink> links = model.LinksOf(PageRef{h, p});
      const std::vector<OutLink> plain_links = plain.LinksOf(PageRef{h, p});
      ASSERT_EQ(links.size(), plain_links.size());
      for (size_t i = 0; i < links.size(); ++i) {
        EXPECT_EQ(links[i].target, plain_links[i].target);
        EXPECT_EQ(links[i].href, plain_links[i].href);
        EXPECT_EQ(links[i].nofollow, plain_links[i].nofollow);
        EXPECT_EQ(NeedsRendering(links[i].delivery), model.IsScriptOnly(links[i].target));
        if (links[i].nofollow) {
          EXPECT_NE(links[i].delivery, LinkDelivery::kButton);
        }
        ++counts[links[i].delivery];
      }
    }
  }
  for (int d = 0; d < kNumLinkDeliveries; ++d) {
    EXPECT_GT(counts[static_cast<LinkDelivery>(d)], 20)
        << LinkDeliveryName(static_cast<LinkDelivery>(d));
  }
}

// The crawler's static extractor sees a scripted page's <a href> and buttons, and none of its
// script-only links; those are in the page's scripts and data, but not as URLs in its text.
TEST(ScriptedSites, StaticExtractorMissesScriptOnlyLinks) {
  const SiteModel model = Make(Scripted(1));
  int script_only_links = 0;
  for (int h = 0; h < model.num_hosts(); ++h) {
    for (int p = 0; p < model.num_page_ids(); ++p) {
      const PageRef ref{h, p};
      const std::string page_url = model.UrlOf(ref);
      const SiteResponse response =
          model.Respond(model.HostName(h), model.PathOf(ref), absl::ZeroDuration());
      ASSERT_EQ(response.status, 200);
      absl::StatusOr<html::ExtractedPage> page =
          html::ExtractPage(response.body, *url::Url::Parse(page_url), response.content_type);
      ASSERT_TRUE(page.ok()) << page.status();
      std::multiset<std::string> extracted;
      for (const html::Link& link : page->links) {
        extracted.insert(std::string(html::LinkKindName(link.kind)) + " " + link.url.href());
      }
      // The extractor keeps one script link per distinct literal target.
      std::multiset<std::string> visible;
      std::set<std::string> button_hrefs;
      for (const OutLink& link : model.LinksOf(ref)) {
        const std::string target = model.UrlOf(link.target);
        if (link.delivery == LinkDelivery::kStatic) visible.insert("a " + target);
        if (link.delivery == LinkDelivery::kButton && button_hrefs.insert(link.href).second) {
          visible.insert("script " + target);
        }
        if (!NeedsRendering(link.delivery)) continue;
        ++script_only_links;
        EXPECT_FALSE(absl::StrContains(response.body, target)) << page_url << " " << target;
        if (absl::StartsWith(link.href, "http") || absl::StartsWith(link.href, "//")) {
          EXPECT_FALSE(absl::StrContains(response.body, link.href)) << page_url << " " << link.href;
        }
      }
      EXPECT_EQ(extracted, visible) << page_url;
      // What a browser would add: the script-only links, in the order of their forms.
      std::vector<ScriptLink> by_form;
      for (LinkDelivery form : {LinkDelivery::kDocumentWrite, LinkDelivery::kFetchedJson,
                                LinkDelivery::kRouter}) {
        for (const OutLink& link : model.LinksOf(ref)) {
          if (link.delivery == form) by_form.push_back({link.href, link.nofollow});
        }
      }
      const std::vector<ScriptLink> found = RenderedLinks(model, model.HostName(h), response.body);
      ASSERT_EQ(found.size(), by_form.size()) << page_url;
      for (size_t i = 0; i < found.size(); ++i) {
        EXPECT_EQ(found[i].href, by_form[i].href) << page_url;
        EXPECT_EQ(found[i].nofollow, by_form[i].nofollow) << page_url;
      }
    }
  }
  EXPECT_GT(script_only_links, 1000);
}

TEST(ScriptedSites, LinksJsonAndRouterAreServedOnScriptedHostsOnly) {
  const SiteModel model = Make(Scripted(0.5));
  int scripted = 0;
  for (int h = 0; h < model.num_hosts(); ++h) {
    const std::string host = model.HostName(h);
    const SiteResponse app = model.Respond(host, "/_app.js", absl::ZeroDuration());
    if (!model.IsScripted(h)) {
      EXPECT_EQ(app.status, 404);
      EXPECT_EQ(model.Respond(host, "/_links/1.json", absl::ZeroDuration()).status, 404);
      continue;
    }
    ++scripted;
    EXPECT_EQ(app.status, 200);
    EXPECT_EQ(app.content_type, "text/javascript; charset=utf-8");
    EXPECT_EQ(app.body, SiteModel::RenderAppScript());
    EXPECT_TRUE(absl::StrContains(app.body, "history.pushState"));
    ASSERT_EQ(app.headers.size(), 1u);
    EXPECT_EQ(app.headers[0].first, "Cache-Control");
    for (int p = 0; p < model.num_page_ids(); ++p) {
      const PageRef ref{h, p};
      EXPECT_EQ(SiteModel::LinksJsonPath(ref), absl::StrCat("/_links/", p, ".json"));
      const SiteResponse json = model.Respond(host, SiteModel::LinksJsonPath(ref),
                                              absl::ZeroDuration());
      ASSERT_EQ(json.status, 200);
      EXPECT_EQ(json.content_type, "application/json");
      EXPECT_EQ(json.latency, model.LatencyOf(h));
      std::vector<std::pair<std::string, bool>> want;
      for (const OutLink& link : model.LinksOf(ref)) {
        if (link.delivery == LinkDelivery::kFetchedJson) want.emplace_back(link.href, link.nofollow);
      }
      std::vector<std::pair<std::string, bool>> got;
      for (const ScriptLink& link : ParseLinksJson(json.body)) got.emplace_back(link.href, link.nofollow);
      EXPECT_EQ(got, want) << json.body;
    }
    // Only the spelling of LinksJsonPath, and only page ids of the web.
    for (absl::string_view bad : {"/_links/01.json", "/_links/+1.json", "/_links/1.JSON",
                                  "/_links/.json", "/_links/60.json", "/_links/-1.json"}) {
      EXPECT_EQ(model.Respond(host, bad, absl::ZeroDuration()).status, 404) << bad;
    }
  }
  EXPECT_GT(scripted, 0);
}

// docs/websim.md, "Ground truth": without rendering a crawler reaches `page` minus
// `render_only`; rendering every page, all of `page`. Hostile pages are reached either way and
// are listed apart.
TEST(ScriptedSites, GroundTruthTellsStaticFromRendered) {
  for (double fraction : {0.5, 1.0}) {
    WebsimOptions options = Scripted(fraction, 1);
    options.num_seed_hosts = 1;
    const SiteModel model = Make(options);
    const GroundTruth truth = ComputeGroundTruth(model);
    const std::set<std::string> pages = Urls(model, truth.pages);
    const std::set<std::string> render_only = Urls(model, truth.render_only);
    const std::set<std::string> hostile = HostileUrls(model, truth);
    ASSERT_FALSE(render_only.empty());
    ASSERT_FALSE(hostile.empty());
    std::set<std::string> static_pages;
    std::set_difference(pages.begin(), pages.end(), render_only.begin(), render_only.end(),
                        std::inserter(static_pages, static_pages.end()));
    EXPECT_EQ(static_pages.size() + render_only.size(), pages.size());
    for (const std::string& url : hostile) EXPECT_EQ(pages.count(url), 0u) << url;

    std::set<std::string> want_static = static_pages;
    want_static.insert(hostile.begin(), hostile.end());
    const Crawl never = OracleCrawl(model, /*render=*/false);
    EXPECT_EQ(never.fetched, want_static) << "fraction " << fraction;

    std::set<std::string> want_all = pages;
    want_all.insert(hostile.begin(), hostile.end());
    const Crawl always = OracleCrawl(model, /*render=*/true);
    EXPECT_GT(always.rendered_links, 0);
    EXPECT_EQ(always.fetched, want_all) << "fraction " << fraction;

    // On an all-scripted web every script-only page needs rendering (no host links it
    // statically), and about scripted_static_page_fraction of the pages are static.
    if (fraction == 1.0) {
      for (PageRef ref : truth.pages) {
        if (model.IsScriptOnly(ref)) {
          EXPECT_EQ(render_only.count(model.UrlOf(ref)), 1u);
        }
      }
      const double share = static_cast<double>(static_pages.size()) / pages.size();
      EXPECT_GT(share, 0.15);
      EXPECT_LT(share, 0.45);
    }
  }
}

TEST(ScriptedSites, FormatListsRenderOnlyAndHostile) {
  const SiteModel model = Make(Scripted(0.5, 1));
  const GroundTruth truth = ComputeGroundTruth(model);
  const std::string text = FormatGroundTruth(model, truth);
  std::map<std::string, int> counts;
  std::vector<std::string> order;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (line[0] == '#') continue;
    const std::string kind(line.substr(0, line.find('\t')));
    if (order.empty() || order.back() != kind) order.push_back(kind);
    ++counts[kind];
  }
  EXPECT_EQ(order, (std::vector<std::string>{"seed", "page", "disallowed", "nofollow_only",
                                             "render_only", "hostile"}));
  EXPECT_EQ(counts["render_only"], static_cast<int>(truth.render_only.size()));
  EXPECT_EQ(counts["hostile"], static_cast<int>(truth.hostile.size()));
  int hostile_hosts = 0;
  int scripted_hosts = 0;
  for (int h = 0; h < model.num_hosts(); ++h) {
    hostile_hosts += model.HasHostilePages(h);
    scripted_hosts += model.IsScripted(h);
  }
  EXPECT_EQ(hostile_hosts, scripted_hosts);  // hostile_host_fraction 1
  EXPECT_EQ(counts["hostile"], hostile_hosts * kNumHostileKinds);
  EXPECT_TRUE(absl::StrContains(
      text, absl::StrCat(" scripted_hosts=", scripted_hosts, " hostile_hosts=", hostile_hosts, "\n")));
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat(" render_only=", truth.render_only.size(),
                                                   " hostile=", truth.hostile.size(), "\n")));
}

TEST(ScriptedSites, HostilePagesExistWhenEnabled) {
  WebsimOptions options = Scripted(1, 0.5);
  options.hostile_probe_port = 8123;
  const SiteModel model = Make(options);
  const SiteModel none = Make(Scripted(1, 0));
  const std::map<HostileKind, absl::string_view> kCode = {
      {HostileKind::kEndlessLoop, "while (true) {}"},
      {HostileKind::kMemoryHog, "hog.push(new Float64Array"},
      {HostileKind::kPopupStorm, "window.open('/_hostile/popup.html'"},
      {HostileKind::kMetadataFetch, "fetch('http://169.254.169.254/latest/meta-data/')"},
      {HostileKind::kLoopbackFetch, "fetch('http://127.0.0.1:' + '8123' + '/')"},
      {HostileKind::kAlert, "alert('"},
      {HostileKind::kBeforeUnload, "addEventListener('beforeunload'"},
      {HostileKind::kNeverLoads, "<script src=\"/_hostile/slow.js\"></script>"},
  };
  ASSERT_EQ(static_cast<int>(kCode.size()), kNumHostileKinds);
  int with = 0;
  for (int h = 0; h < model.num_hosts(); ++h) {
    const std::string host = model.HostName(h);
    const std::string root = model.RenderPage(PageRef{h, 0}, absl::ZeroDuration());
    EXPECT_FALSE(absl::StrContains(none.RenderPage(PageRef{h, 0}, absl::ZeroDuration()),
                                   "/_hostile/"));
    EXPECT_EQ(none.Respond(host, "/_hostile/loop.html", absl::ZeroDuration()).status, 404);
    if (!model.HasHostilePages(h)) {
      EXPECT_FALSE(absl::StrContains(root, "/_hostile/"));
      EXPECT_EQ(model.Respond(host, "/_hostile/loop.html", absl::ZeroDuration()).status, 404);
      continue;
    }
    ++with;
    // Linked statically from the root.
    absl::StatusOr<html::ExtractedPage> page = html::ExtractPage(
        root, *url::Url::Parse(model.UrlOf(PageRef{h, 0})), "text/html; charset=utf-8");
    ASSERT_TRUE(page.ok());
    std::set<std::string> linked;
    for (const html::Link& link : page->links) {
      if (link.kind == html::LinkKind::kA) linked.insert(link.url.href());
    }
    for (const auto& [kind, code] : kCode) {
      const std::string url = model.HostileUrlOf(HostilePage{h, kind});
      EXPECT_EQ(url, absl::StrCat("http://", host, HostilePath(kind)));
      EXPECT_EQ(linked.count(url), 1u) << url;
      const SiteResponse r = model.Respond(host, HostilePath(kind), absl::ZeroDuration());
      EXPECT_EQ(r.status, 200) << url;
      EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
      EXPECT_EQ(r.latency, model.LatencyOf(h));
      EXPECT_TRUE(absl::StrContains(r.body, code)) << url << "\n" << r.body;
    }
    const SiteResponse slow = model.Respond(host, "/_hostile/slow.js", absl::ZeroDuration());
    EXPECT_EQ(slow.status, 200);
    EXPECT_EQ(slow.latency, model.LatencyOf(h) + SiteModel::kStallDelay);
    EXPECT_EQ(model.Respond(host, "/_hostile/popup.html", absl::ZeroDuration()).status, 200);
    EXPECT_EQ(model.Respond(host, "/_hostile/other.html", absl::ZeroDuration()).status, 404);
  }
  EXPECT_GT(with, 0);
  EXPECT_LT(with, model.num_hosts());
  // Without a probe port the loopback fetch goes to the page's own port.
  WebsimOptions own_port = Scripted(1, 1);
  EXPECT_TRUE(absl::StrContains(Make(own_port).RenderHostilePage(HostileKind::kLoopbackFetch),
                                "'http://127.0.0.1:' + (location.port || '80') + '/'"));
}

TEST(ScriptedSites, ValidateRejectsOutOfRange) {
  auto invalid = [](auto mutate) {
    WebsimOptions o;
    mutate(o);
    return absl::IsInvalidArgument(o.Validate());
  };
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.scripted_host_fraction = 1.5; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.scripted_host_fraction = -0.1; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.scripted_static_page_fraction = 2; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.hostile_host_fraction = -1; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.hostile_probe_port = 65536; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.hostile_probe_port = -1; }));
  EXPECT_TRUE(Scripted(1, 1).Validate().ok());
}

}  // namespace
}  // namespace crawler::websim
