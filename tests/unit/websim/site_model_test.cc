#include "tools/websim/site_model.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "lib/sitemap/parse_sitemap.h"
#include "tests/unit/websim/reference_crawler.h"

namespace crawler::websim {
namespace {

SiteModel Make(WebsimOptions options) {
  absl::StatusOr<SiteModel> model = SiteModel::Create(std::move(options));
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

WebsimOptions Small(uint64_t seed) {
  WebsimOptions options;
  options.num_hosts = 5;
  options.pages_per_host = 120;
  options.seed = seed;
  return options;
}

TEST(SiteModel, SameSeedSameWeb) {
  SiteModel a = Make(Small(42));
  SiteModel b = Make(Small(42));
  for (int h = 0; h < 5; ++h) {
    EXPECT_EQ(a.RenderRobotsTxt(h), b.RenderRobotsTxt(h));
    EXPECT_EQ(a.RenderSitemap(h), b.RenderSitemap(h));
    EXPECT_EQ(a.LatencyOf(h), b.LatencyOf(h));
    for (int p = 0; p < 120; ++p) {
      ASSERT_EQ(a.RenderPage({h, p}, absl::ZeroDuration()), b.RenderPage({h, p}, absl::ZeroDuration()));
    }
  }
}

TEST(SiteModel, DifferentSeedDifferentWeb) {
  SiteModel a = Make(Small(1));
  SiteModel b = Make(Small(2));
  int same_pages = 0, same_paths = 0;
  for (int p = 0; p < 120; ++p) {
    same_pages += a.RenderPage({0, p}, absl::ZeroDuration()) == b.RenderPage({0, p}, absl::ZeroDuration());
    same_paths += a.PathOf({0, p}) == b.PathOf({0, p});
  }
  EXPECT_EQ(same_pages, 0);
  EXPECT_LT(same_paths, 60);  // only the root, and paths that happen to coincide
}

// --popular-links: every page links its host's root and the first N hosts' roots, followed.
TEST(SiteModel, PopularLinksReachEveryPagesRootAndTheFirstHostsRoots) {
  WebsimOptions options = Small(3);
  options.popular_links = 2;
  SiteModel model = Make(options);
  for (int h = 0; h < 5; ++h) {
    for (int p = 0; p < 120; p += 7) {
      std::set<std::pair<int, int>> followed;
      for (const OutLink& link : model.LinksOf({h, p})) {
        if (!link.nofollow) followed.insert({link.target.host, link.target.page});
      }
      if (p != 0) {
        EXPECT_TRUE(followed.contains({h, 0})) << h << "/" << p;
      }
      for (int popular = 0; popular < 2; ++popular) {
        if (popular != h) {
          EXPECT_TRUE(followed.contains({popular, 0})) << h << "/" << p;
        }
      }
    }
  }
  // The pages a correct crawl fetches stay the same: roots are pages already.
  const SiteModel plain = Make(Small(3));
  for (int h = 0; h < 5; ++h) {
    for (int p = 0; p < 120; ++p) EXPECT_EQ(model.ClassOf({h, p}), plain.ClassOf({h, p}));
  }
}

TEST(SiteModel, PagesOfOneWebDiffer) {
  SiteModel model = Make(Small(1));
  std::set<std::string> bodies;
  for (int p = 0; p < 120; ++p) bodies.insert(model.RenderPage({1, p}, absl::ZeroDuration()));
  EXPECT_EQ(bodies.size(), 120u);
}

TEST(SiteModel, FindPageInvertsPathOf) {
  WebsimOptions options = Small(3);
  options.sitemap_only_pages = 4;
  SiteModel model = Make(options);
  std::set<std::string> paths;
  for (int h = 0; h < 5; ++h) {
    for (int p = 0; p < model.num_page_ids(); ++p) {
      const std::string path = model.PathOf({h, p});
      std::optional<PageRef> found = model.FindPage(h, path);
      ASSERT_TRUE(found.has_value()) << path;
      EXPECT_EQ(*found, (PageRef{h, p})) << path;
      if (h == 0) {
        EXPECT_TRUE(paths.insert(path).second) << "duplicate path " << path;
      }
    }
  }
  for (const char* bad : {"", "/p.html", "/p1.html/", "/d9/p1.html", "/p0001.html", "/index.html",
                          "/d0/view?id=1", "/private/", "/p99999999999.html", "/x/t/", "/t/"}) {
    EXPECT_FALSE(model.FindPage(0, bad).has_value()) << bad;
  }
}

TEST(SiteModel, HostNames) {
  SiteModel model = Make(Small(1));
  EXPECT_EQ(model.HostName(3), "h3.websim.test");
  EXPECT_EQ(model.FindHost("h3.websim.test"), 3);
  EXPECT_EQ(model.FindHost("h0.websim.test"), 0);
  for (const char* bad : {"h5.websim.test", "h03.websim.test", "h.websim.test", "x3.websim.test",
                          "h3.websim.test.", "h3.example", "H3.websim.test", "h-1.websim.test"}) {
    EXPECT_FALSE(model.FindHost(bad).has_value()) << bad;
  }
}

TEST(WebsimRfc9309, RobotsTxtDisallowsPrivateAllowsOpen) {
  WebsimOptions options = Small(1);
  options.crawl_delay = absl::Milliseconds(1500);
  SiteModel model = Make(options);
  const std::string robots = model.RenderRobotsTxt(2);
  EXPECT_TRUE(absl::StrContains(robots, "User-agent: *\nDisallow: /private/\nAllow: /private/open/\n"))
      << robots;
  EXPECT_TRUE(absl::StrContains(robots, "Crawl-delay: 1.5\n")) << robots;
  EXPECT_TRUE(absl::StrContains(robots, "Sitemap: http://h2.websim.test/sitemap.xml\n")) << robots;
  using testing_support::RobotsAllowed;
  EXPECT_FALSE(RobotsAllowed(robots, "testbot", "/private/p3.html"));
  EXPECT_TRUE(RobotsAllowed(robots, "testbot", "/private/open/p3.html"));
  EXPECT_TRUE(RobotsAllowed(robots, "testbot", "/d1/p3.html"));
  EXPECT_FALSE(RobotsAllowed(robots, "websim-excluded-bot", "/d1/p3.html"));
  // The model's own rule agrees with its robots.txt on every page.
  for (int p = 0; p < 120; ++p) {
    const std::string path = model.PathOf({2, p});
    EXPECT_EQ(model.IsAllowed(path), RobotsAllowed(robots, "testbot", path)) << path;
  }
  EXPECT_FALSE(absl::StrContains(Make(Small(1)).RenderRobotsTxt(0), "Crawl-delay"));
}

TEST(SiteModel, EveryClassOccurs) {
  SiteModel model = Make(Small(1));
  std::map<PageClass, int> counts;
  for (int h = 0; h < 5; ++h) {
    for (int p = 0; p < 120; ++p) ++counts[model.ClassOf({h, p})];
  }
  EXPECT_GT(counts[PageClass::kPublic], 400);
  EXPECT_GT(counts[PageClass::kPrivate], 20);
  EXPECT_GT(counts[PageClass::kPrivateOpen], 3);
  EXPECT_GT(counts[PageClass::kNofollowOnly], 3);
  for (int h = 0; h < 5; ++h) {
    for (int p = 0; p < 120; ++p) {
      const std::string path = model.PathOf({h, p});
      switch (model.ClassOf({h, p})) {
        case PageClass::kPrivate:
          EXPECT_TRUE(absl::StartsWith(path, "/private/") && !model.IsAllowed(path)) << path;
          break;
        case PageClass::kPrivateOpen:
          EXPECT_TRUE(absl::StartsWith(path, "/private/open/") && model.IsAllowed(path)) << path;
          break;
        default:
          EXPECT_TRUE(model.IsAllowed(path)) << path;
      }
    }
  }
}

TEST(SiteModel, EveryLinkFormOccursAndResolvesToItsTarget) {
  SiteModel model = Make(Small(1));
  std::map<LinkForm, int> forms;
  int fragments = 0, padded = 0, nofollow = 0, cross = 0;
  for (int h = 0; h < 5; ++h) {
    for (int p = 0; p < 120; ++p) {
      const std::string base = model.UrlOf({h, p});
      for (const OutLink& link : model.LinksOf({h, p})) {
        ++forms[link.form];
        fragments += absl::StrContains(link.href, '#');
        padded += link.href.front() == ' ';
        nofollow += link.nofollow;
        cross += link.target.host != h;
        std::optional<std::string> resolved =
            testing_support::CanonicalHttpUrl(testing_support::Resolve(base, link.href));
        ASSERT_TRUE(resolved.has_value()) << link.href;
        EXPECT_EQ(*resolved, model.UrlOf(link.target))
            << "from " << base << " href '" << link.href << "' (" << LinkFormName(link.form) << ")";
      }
    }
  }
  for (int f = 0; f < kNumLinkForms; ++f) {
    EXPECT_GT(forms[static_cast<LinkForm>(f)], 3) << LinkFormName(static_cast<LinkForm>(f));
  }
  EXPECT_GT(fragments, 20);
  EXPECT_GT(padded, 3);
  EXPECT_GT(nofollow, 20);
  EXPECT_GT(cross, 50);
}

TEST(SiteModel, RenderedHtmlCarriesTheLinksInManySpellings) {
  SiteModel model = Make(Small(1));
  std::string all;
  for (int p = 0; p < 120; ++p) {
    const std::string html = model.RenderPage({0, p}, absl::ZeroDuration());
    // Exactly the model's links, then mailto:, javascript: and "#top", in document order.
    std::vector<testing_support::ExtractedLink> extracted = testing_support::ExtractLinks(html);
    std::vector<OutLink> links = model.LinksOf({0, p});
    ASSERT_EQ(extracted.size(), links.size() + 3) << p;
    for (size_t i = 0; i < links.size(); ++i) {
      EXPECT_EQ(extracted[i].href, links[i].href);
      EXPECT_EQ(extracted[i].nofollow, links[i].nofollow);
    }
    all += html;
  }
  for (const char* spelling : {"<A HREF=\"", "<a href='", "<a class=l href=/", "&amp;lang=en",
                               "rel=\"external nofollow\"", "rel=\"NoFollow noopener\"",
                               "href=\"mailto:", "href=\"javascript:", "href=\"#top\""}) {
    EXPECT_TRUE(absl::StrContains(all, spelling)) << spelling;
  }
}

TEST(SiteModel, PageSizesStayInRange) {
  WebsimOptions options = Small(1);
  options.page_bytes_min = 3000;
  options.page_bytes_max = 5000;
  SiteModel model = Make(options);
  size_t min = SIZE_MAX, max = 0;
  for (int p = 0; p < 120; ++p) {
    const size_t size = model.RenderPage({0, p}, absl::ZeroDuration()).size();
    min = std::min(min, size);
    max = std::max(max, size);
  }
  EXPECT_GE(min, 3000u);
  EXPECT_LE(max, 5000u);
  EXPECT_LT(min + 500, max);  // sizes vary
}

TEST(WebsimSitemapsOrg, SitemapListsAllowedPagesAndSitemapOnlyPages) {
  WebsimOptions options = Small(1);
  options.sitemap_only_pages = 2;
  SiteModel model = Make(options);
  const std::string sitemap = model.RenderSitemap(1);
  EXPECT_TRUE(absl::StartsWith(sitemap, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset "
                                        "xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"));
  int listed = 0;
  for (int p = 0; p < model.num_page_ids(); ++p) {
    std::string url = model.UrlOf({1, p});
    absl::StrReplaceAll({{"&", "&amp;"}}, &url);
    const bool in = absl::StrContains(sitemap, "<loc>" + url + "</loc>");
    EXPECT_EQ(in, model.InSitemap({1, p})) << url;
    listed += in;
    if (in) {
      EXPECT_TRUE(model.IsAllowed(model.PathOf({1, p}))) << url;
    }
    const PageClass cls = model.ClassOf({1, p});
    if (cls == PageClass::kSitemapOnly) {
      EXPECT_TRUE(in) << url;
    }
    if (cls == PageClass::kNofollowOnly) {
      EXPECT_FALSE(in) << url;
    }
  }
  EXPECT_GT(listed, 30);
  EXPECT_LT(listed, 100);
}

// "Using Sitemap index files": past sitemap_max_urls, /sitemap.xml is an index of parts that
// together list exactly the pages a single file would; a part it does not have is a 404.
TEST(WebsimSitemapsOrg, ABigSitemapIsAnIndexOfParts) {
  WebsimOptions options = Small(1);
  options.sitemap_only_pages = 3;
  WebsimOptions split = options;
  split.sitemap_max_urls = 7;
  const SiteModel one = Make(options);
  const SiteModel model = Make(split);
  const sitemap::SitemapResult whole = sitemap::ParseSitemap(one.RenderSitemap(1));
  ASSERT_TRUE(whole.status.ok());
  const SiteResponse index = model.Respond("h1.websim.test", "/sitemap.xml", absl::ZeroDuration());
  const sitemap::SitemapResult parts = sitemap::ParseSitemap(index.body);
  ASSERT_TRUE(parts.status.ok()) << parts.status;
  EXPECT_EQ(parts.kind, sitemap::SitemapKind::kSitemapIndex);
  const int expected_parts = static_cast<int>((whole.entries.size() + 6) / 7);
  ASSERT_EQ(static_cast<int>(parts.entries.size()), expected_parts);
  EXPECT_EQ(model.SitemapParts(1), expected_parts);
  std::vector<std::string> listed;
  for (int part = 1; part <= expected_parts; ++part) {
    EXPECT_EQ(parts.entries[part - 1].loc,
              absl::StrCat("http://h1.websim.test/sitemap-", part, ".xml"));
    const SiteResponse response =
        model.Respond("h1.websim.test", absl::StrCat("/sitemap-", part, ".xml"),
                      absl::ZeroDuration());
    ASSERT_EQ(response.status, 200) << part;
    const sitemap::SitemapResult urls = sitemap::ParseSitemap(response.body);
    ASSERT_TRUE(urls.status.ok());
    EXPECT_LE(urls.entries.size(), 7u);
    for (const sitemap::SitemapEntry& entry : urls.entries) listed.push_back(entry.loc);
  }
  std::vector<std::string> want;
  for (const sitemap::SitemapEntry& entry : whole.entries) want.push_back(entry.loc);
  EXPECT_EQ(listed, want);
  for (const std::string& bad :
       std::vector<std::string>{"/sitemap-0.xml", "/sitemap-01.xml", "/sitemap-x.xml",
                                absl::StrCat("/sitemap-", expected_parts + 1, ".xml")}) {
    EXPECT_EQ(model.Respond("h1.websim.test", bad, absl::ZeroDuration()).status, 404) << bad;
  }
  // A host small enough keeps a plain urlset and has no parts.
  EXPECT_EQ(one.SitemapParts(1), 0);
  EXPECT_EQ(one.Respond("h1.websim.test", "/sitemap-1.xml", absl::ZeroDuration()).status, 404);
}

// sitemap_in_robots_fraction: the other hosts publish /sitemap.xml without naming it in
// robots.txt (only a crawler that looks there finds it).
TEST(WebsimSitemapsOrg, SomeHostsDoNotNameTheirSitemapInRobotsTxt) {
  WebsimOptions options = Small(3);
  options.num_hosts = 40;
  options.sitemap_in_robots_fraction = 0.5;
  const SiteModel model = Make(options);
  int named = 0;
  for (int host = 0; host < model.num_hosts(); ++host) {
    const bool says = absl::StrContains(model.RenderRobotsTxt(host), "Sitemap: ");
    EXPECT_EQ(says, model.SitemapInRobots(host));
    named += says;
    EXPECT_EQ(model.Respond(model.HostName(host), "/sitemap.xml", absl::ZeroDuration()).status,
              200);
  }
  EXPECT_GT(named, 8);
  EXPECT_LT(named, 32);
  options.sitemap_in_robots_fraction = 0;
  const SiteModel none = Make(options);
  for (int host = 0; host < none.num_hosts(); ++host) EXPECT_FALSE(none.SitemapInRobots(host));
}

// Without lastmod (--no-sitemap-lastmod) entries carry only their loc.
TEST(WebsimSitemapsOrg, LastmodCanBeLeftOut) {
  WebsimOptions options = Small(1);
  EXPECT_TRUE(absl::StrContains(Make(options).RenderSitemap(1), "<lastmod>2000-01-01T00:00:00Z"));
  options.sitemap_lastmod = false;
  EXPECT_FALSE(absl::StrContains(Make(options).RenderSitemap(1), "<lastmod>"));
}

TEST(SiteModel, RespondRoutesAndAppliesLatency) {
  WebsimOptions options = Small(1);
  options.latency_min = absl::Milliseconds(10);
  options.latency_max = absl::Milliseconds(50);
  SiteModel model = Make(options);
  std::set<int64_t> latencies;
  for (int h = 0; h < 5; ++h) {
    absl::Duration l = model.LatencyOf(h);
    EXPECT_GE(l, absl::Milliseconds(10));
    EXPECT_LE(l, absl::Milliseconds(50));
    latencies.insert(absl::ToInt64Microseconds(l));
  }
  EXPECT_GT(latencies.size(), 1u);

  SiteResponse page = model.Respond("h1.websim.test", model.PathOf({1, 7}), absl::ZeroDuration());
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(page.body, model.RenderPage({1, 7}, absl::ZeroDuration()));
  EXPECT_EQ(page.latency, model.LatencyOf(1));
  SiteResponse robots = model.Respond("h1.websim.test", "/robots.txt", absl::ZeroDuration());
  EXPECT_EQ(robots.status, 200);
  EXPECT_EQ(robots.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(model.Respond("h1.websim.test", "/sitemap.xml", absl::ZeroDuration()).content_type,
            "application/xml");
  EXPECT_EQ(model.Respond("h1.websim.test", "/nope", absl::ZeroDuration()).status, 404);
  EXPECT_EQ(model.Respond("h1.websim.test", model.PathOf({2, 7}) + "x", absl::ZeroDuration()).status,
            404);
  EXPECT_EQ(model.Respond("example.com", "/", absl::ZeroDuration()).status, 404);
}

TEST(WebsimOptions, ValidateRejectsOutOfRange) {
  auto invalid = [](auto mutate) {
    WebsimOptions o;
    mutate(o);
    return absl::IsInvalidArgument(o.Validate());
  };
  EXPECT_TRUE(WebsimOptions{}.Validate().ok());
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.num_hosts = 0; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.pages_per_host = 0; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.num_seed_hosts = 21; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.cross_host_fraction = 1.5; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.private_fraction = 0.6; o.nofollow_only_fraction = 0.6; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.page_bytes_min = 10; o.page_bytes_max = 5; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.latency_max = absl::Seconds(61); }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.host_suffix = "websim.test"; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.host_suffix = ".Websim.test"; }));
  EXPECT_TRUE(invalid([](WebsimOptions& o) { o.num_hosts = 100000; o.pages_per_host = 100000; }));
  EXPECT_FALSE(SiteModel::Create([] { WebsimOptions o; o.num_hosts = -1; return o; }()).ok());
}

}  // namespace
}  // namespace crawler::websim
