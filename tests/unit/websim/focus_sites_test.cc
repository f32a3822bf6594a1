#include "tools/websim/focus_sites.h"

#include <deque>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tools/websim/site_model.h"

namespace crawler::websim {
namespace {

SiteModel FocusedWeb() {
  WebsimOptions options;
  options.seed = 7;
  options.UseFocusSites({
      banditsim::SiteSpec{.pages = 300, .density = 0.2, .placement = banditsim::Placement::kDiffuse,
                          .start = 0, .scale = 300},
      banditsim::SiteSpec{.pages = 120, .density = 0.1, .placement = banditsim::Placement::kBursty,
                          .start = 20, .scale = 60, .bursts = 2, .burst_links = 8},
      banditsim::SiteSpec{.pages = 50, .density = 0.3, .placement = banditsim::Placement::kLate,
                          .start = 30, .scale = 20},
  });
  absl::StatusOr<SiteModel> model = SiteModel::Create(options);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

// A crawler that walks each site breadth-first in discovery order and counts the external links
// no earlier page linked to sees exactly the model's per-page rewards, in page-id order.
TEST(FocusSites, BreadthFirstWalkEarnsTheModelsRewards) {
  const SiteModel model = FocusedWeb();
  ASSERT_NE(model.focus(), nullptr);
  std::set<std::string> seen_external;
  for (int host = 0; host < model.num_hosts(); ++host) {
    std::deque<int> queue = {0};
    std::set<int> queued = {0};
    std::vector<int> order;
    std::vector<int32_t> rewards;
    while (!queue.empty()) {
      const int page = queue.front();
      queue.pop_front();
      order.push_back(page);
      for (const OutLink& link : model.LinksOf(PageRef{host, page})) {
        ASSERT_EQ(link.target.host, host);
        if (queued.insert(link.target.page).second) queue.push_back(link.target.page);
      }
      const std::string html = model.RenderPage(PageRef{host, page}, absl::ZeroDuration());
      int32_t fresh = 0;
      for (const ExternalLink& link : model.ExternalLinksOf(PageRef{host, page})) {
        EXPECT_TRUE(absl::StrContains(html, link.url)) << link.url;
        EXPECT_FALSE(absl::StrContains(link.url, model.HostName(host) + "/") &&
                     absl::StartsWith(link.url, "http://" + model.HostName(host)));
        if (seen_external.insert(link.url).second) ++fresh;
      }
      rewards.push_back(fresh);
    }
    ASSERT_EQ(static_cast<int>(order.size()), model.PagesOf(host));
    for (size_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], static_cast<int>(i));
    EXPECT_EQ(rewards, model.focus()->site(host).new_links) << "host " << host;
  }
  // Pages past a site's size do not exist.
  EXPECT_FALSE(model.FindPage(2, model.PathOf(PageRef{2, 60})).has_value());
  EXPECT_EQ(model.Respond(model.HostName(2), model.PathOf(PageRef{2, 60}), absl::ZeroDuration())
                .status,
            404);
}

TEST(FocusSites, ReplayRoundTrips) {
  const SiteModel model = FocusedWeb();
  const std::string text = model.focus()->FormatReplay({"a", "b", "c"});
  absl::StatusOr<std::vector<banditsim::Site>> sites = banditsim::ParseReplay(text);
  ASSERT_TRUE(sites.ok()) << sites.status();
  ASSERT_EQ(sites->size(), 3u);
  for (int s = 0; s < 3; ++s) EXPECT_EQ((*sites)[s].new_links, model.focus()->site(s).new_links);
  EXPECT_FALSE(banditsim::ParseReplay("a 1,2\n").ok());
  EXPECT_FALSE(banditsim::ParseReplay("a\t1,-2\n").ok());
  EXPECT_FALSE(banditsim::ParseReplay("# nothing\n").ok());
}

TEST(FocusSites, ParsesSiteSpecs) {
  absl::StatusOr<banditsim::SiteSpec> diffuse = ParseFocusSite("500:0.1:diffuse");
  ASSERT_TRUE(diffuse.ok());
  EXPECT_EQ(diffuse->pages, 500);
  EXPECT_DOUBLE_EQ(diffuse->scale, 500);
  absl::StatusOr<banditsim::SiteSpec> bursty = ParseFocusSite("900:0.05:bursty:100:400:3:40");
  ASSERT_TRUE(bursty.ok());
  EXPECT_EQ(bursty->bursts, 3);
  EXPECT_DOUBLE_EQ(bursty->burst_links, 40);
  for (const char* bad : {"", "500", "500:0.1", "0:0.1:diffuse", "500:-1:diffuse",
                          "500:0.1:sideways", "500:0.1:bursty", "500:0.1:late:10"}) {
    EXPECT_FALSE(ParseFocusSite(bad).ok()) << bad;
  }
}

TEST(FocusSites, OptionsMustComeFromUseFocusSites) {
  WebsimOptions options;
  options.UseFocusSites({banditsim::SiteSpec{.pages = 10, .density = 0.5}});
  EXPECT_TRUE(options.Validate().ok());
  options.links_per_page = 3;
  EXPECT_FALSE(options.Validate().ok());
}

}  // namespace
}  // namespace crawler::websim
