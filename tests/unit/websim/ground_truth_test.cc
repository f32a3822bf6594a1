// The ground truth must be exactly what a correct crawler finds. The oracle here crawls the
// rendered web (robots.txt, HTML) with an independent HTML parser, URL resolver and robots
// matcher (reference_crawler.h) and must reach the same sets as ComputeGroundTruth.
#include "tools/websim/ground_truth.h"

#include <algorithm>
#include <deque>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "tests/unit/websim/reference_crawler.h"
#include "tools/websim/site_model.h"

namespace crawler::websim {
namespace {

using testing_support::CanonicalHttpUrl;
using testing_support::ExtractLinks;
using testing_support::Resolve;
using testing_support::RobotsAllowed;
using testing_support::SplitHttpUrl;

constexpr char kUserAgent[] = "testbot";

std::set<std::string> Urls(const SiteModel& model, const std::vector<PageRef>& refs) {
  std::set<std::string> urls;
  for (PageRef ref : refs) urls.insert(model.UrlOf(ref));
  return urls;
}

struct OracleResult {
  std::set<std::string> fetched;
  std::set<std::string> disallowed_linked;
  std::set<std::string> nofollow_linked;
  std::set<std::string> broken;  // links to our hosts that 404
};

// Breadth-first crawl through SiteModel::Respond only, as a crawler over HTTP would.
OracleResult OracleCrawl(const SiteModel& model) {
  OracleResult result;
  std::map<std::string, std::string> robots;
  auto allowed = [&](const std::string& url) {
    auto [host, path] = SplitHttpUrl(url);
    auto it = robots.find(host);
    if (it == robots.end()) {
      SiteResponse r = model.Respond(host, "/robots.txt", absl::ZeroDuration());
      // RFC 9309 §2.3.1.3: an unavailable (4xx) robots.txt allows everything.
      it = robots.emplace(host, r.status == 200 ? r.body : "").first;
    }
    return RobotsAllowed(it->second, kUserAgent, path);
  };
  std::deque<std::string> queue;
  std::set<std::string> queued;
  for (absl::string_view line : absl::StrSplit(FormatSeeds(model), '\n', absl::SkipEmpty())) {
    std::string seed(line);
    if (allowed(seed) && queued.insert(seed).second) queue.push_back(seed);
  }
  while (!queue.empty()) {
    const std::string url = queue.front();
    queue.pop_front();
    auto [host, target] = SplitHttpUrl(url);
    SiteResponse response = model.Respond(host, target, absl::ZeroDuration());
    if (response.status != 200) {
      result.broken.insert(url);
      continue;
    }
    result.fetched.insert(url);
    for (const auto& link : ExtractLinks(response.body)) {
      std::optional<std::string> to = CanonicalHttpUrl(Resolve(url, link.href));
      if (!to) continue;  // mailto:, javascript:
      if (!allowed(*to)) {
        result.disallowed_linked.insert(*to);
      } else if (link.nofollow) {
        result.nofollow_linked.insert(*to);
      } else if (queued.insert(*to).second) {
        queue.push_back(*to);
      }
    }
  }
  return result;
}

struct Config {
  const char* name;
  int hosts;
  int pages;
  uint64_t seed;
  int seed_hosts;
  int sitemap_only;
  bool equal_host_sizes = false;
  friend void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }
};

class GroundTruthMatchesOracle : public testing::TestWithParam<Config> {};

TEST_P(GroundTruthMatchesOracle, SameSets) {
  const Config& c = GetParam();
  WebsimOptions options;
  options.num_hosts = c.hosts;
  options.pages_per_host = c.pages;
  options.seed = c.seed;
  options.num_seed_hosts = c.seed_hosts;
  options.sitemap_only_pages = c.sitemap_only;
  options.equal_host_sizes = c.equal_host_sizes;
  options.page_bytes_min = 0;
  options.page_bytes_max = 600;
  absl::StatusOr<SiteModel> model = SiteModel::Create(options);
  ASSERT_TRUE(model.ok()) << model.status();
  const GroundTruth truth = ComputeGroundTruth(*model);
  const OracleResult oracle = OracleCrawl(*model);

  EXPECT_TRUE(oracle.broken.empty()) << "first broken link: " << *oracle.broken.begin();
  EXPECT_EQ(Urls(*model, truth.pages), oracle.fetched);
  EXPECT_EQ(Urls(*model, truth.disallowed), oracle.disallowed_linked);
  std::set<std::string> nofollow_only;
  for (const std::string& url : oracle.nofollow_linked) {
    if (!oracle.fetched.count(url)) nofollow_only.insert(url);
  }
  EXPECT_EQ(Urls(*model, truth.nofollow_only), nofollow_only);

  // By construction every public and private-open page is reachable, whatever the seeds.
  int expected_pages = 0;
  for (int h = 0; h < c.hosts; ++h) {
    for (int p = 0; p < c.pages; ++p) {
      PageClass cls = model->ClassOf(PageRef{h, p});
      expected_pages += cls == PageClass::kPublic || cls == PageClass::kPrivateOpen;
    }
  }
  EXPECT_EQ(static_cast<int>(truth.pages.size()), expected_pages);
  EXPECT_EQ(static_cast<int>(truth.sitemap_only.size()), c.hosts * c.sitemap_only);
}

INSTANTIATE_TEST_SUITE_P(
    Webs, GroundTruthMatchesOracle,
    testing::Values(Config{"default_shape", 6, 60, 1, 0, 0},
                    Config{"one_seed_ring", 8, 40, 7, 1, 0},
                    Config{"single_host", 1, 200, 3, 0, 0},
                    Config{"single_page_hosts", 5, 1, 4, 1, 0},
                    Config{"sitemap_only", 4, 30, 5, 2, 3},
                    Config{"big_host", 2, 1500, 11, 1, 0},
                    Config{"equal_host_sizes", 6, 60, 1, 2, 1, true}),
    [](const testing::TestParamInfo<Config>& param_info) { return std::string(param_info.param.name); });

TEST(WebsimGroundTruth, NonTrivialSetsWithDefaultOptions) {
  absl::StatusOr<SiteModel> model = SiteModel::Create(WebsimOptions{});
  ASSERT_TRUE(model.ok());
  const GroundTruth truth = ComputeGroundTruth(*model);
  // Each category must be populated or the crawler tests built on it check nothing.
  EXPECT_GT(truth.pages.size(), 500u);
  EXPECT_GT(truth.disallowed.size(), 20u);
  EXPECT_GT(truth.nofollow_only.size(), 5u);
  EXPECT_EQ(truth.seeds.size(), 20u);
  // Some allowed pages live under /private/open/.
  int open = 0;
  for (PageRef p : truth.pages) open += model->ClassOf(p) == PageClass::kPrivateOpen;
  EXPECT_GT(open, 0);
}

// Pages of the ground truth per host.
std::map<int, int> PagesPerHost(const GroundTruth& truth) {
  std::map<int, int> per_host;
  for (PageRef p : truth.pages) ++per_host[p.host];
  return per_host;
}

// docs/websim.md, "Ground truth": with --equal-host-sizes every host has the same number of
// pages, so a crawl limited by a per-host delay can keep all hosts busy to its end. The web of
// bench/standalone (200 x 60, seed 1) without it has hosts of different sizes.
TEST(WebsimGroundTruth, EqualHostSizesGiveEveryHostTheSamePageCount) {
  WebsimOptions options;
  options.num_hosts = 200;
  options.pages_per_host = 60;
  options.page_bytes_min = 0;
  options.page_bytes_max = 0;
  absl::StatusOr<SiteModel> unequal = SiteModel::Create(options);
  ASSERT_TRUE(unequal.ok());
  const std::map<int, int> unequal_sizes = PagesPerHost(ComputeGroundTruth(*unequal));
  ASSERT_EQ(unequal_sizes.size(), 200u);
  int smallest = 60;
  int largest = 0;
  for (const auto& [host, pages] : unequal_sizes) {
    smallest = std::min(smallest, pages);
    largest = std::max(largest, pages);
  }
  EXPECT_LT(smallest, largest);

  options.equal_host_sizes = true;
  absl::StatusOr<SiteModel> equal = SiteModel::Create(options);
  ASSERT_TRUE(equal.ok());
  const GroundTruth truth = ComputeGroundTruth(*equal);
  const std::map<int, int> sizes = PagesPerHost(truth);
  ASSERT_EQ(sizes.size(), 200u);
  const int per_host = sizes.begin()->second;
  for (const auto& [host, pages] : sizes) EXPECT_EQ(pages, per_host) << "host " << host;
  EXPECT_EQ(truth.pages.size(), 200u * per_host);
  // 60 pages: 15 inner pages, 45 leaves, of which round(0.1 x 60) = 6 are private and
  // round(0.03 x 60) = 2 nofollow-only (and 2 private-open, which count as pages).
  EXPECT_EQ(per_host, 52);
  // Still every class, at different ids per host: the option makes hosts alike in size only.
  int open = 0;
  std::set<int> private_ids;
  for (int h = 0; h < 200; ++h) {
    for (int p = 0; p < 60; ++p) {
      const PageClass cls = equal->ClassOf(PageRef{h, p});
      open += cls == PageClass::kPrivateOpen;
      if (cls == PageClass::kPrivate) private_ids.insert(p);
    }
  }
  EXPECT_EQ(open, 200 * 2);
  EXPECT_GT(private_ids.size(), 6u);
  EXPECT_FALSE(truth.disallowed.empty());
  EXPECT_FALSE(truth.nofollow_only.empty());
  EXPECT_NE(FormatGroundTruth(*equal, truth).find(" equal_host_sizes=1\n"), std::string::npos);
  EXPECT_EQ(FormatGroundTruth(*unequal, ComputeGroundTruth(*unequal)).find("equal_host_sizes"),
            std::string::npos);
}

TEST(WebsimGroundTruth, FormatIsTabSeparatedKindAndUrl) {
  WebsimOptions options;
  options.num_hosts = 2;
  options.pages_per_host = 20;
  options.sitemap_only_pages = 1;
  absl::StatusOr<SiteModel> model = SiteModel::Create(options);
  ASSERT_TRUE(model.ok());
  const GroundTruth truth = ComputeGroundTruth(*model);
  const std::string text = FormatGroundTruth(*model, truth);
  std::map<std::string, int> counts;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (line[0] == '#') continue;
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    ASSERT_EQ(fields.size(), 2u) << line;
    EXPECT_EQ(fields[1].rfind("http://h", 0), 0u) << line;
    EXPECT_EQ(fields[1].find('#'), std::string::npos) << line;
    ++counts[fields[0]];
  }
  EXPECT_EQ(counts["seed"], 2);
  EXPECT_EQ(counts["page"], static_cast<int>(truth.pages.size()));
  EXPECT_EQ(counts["disallowed"], static_cast<int>(truth.disallowed.size()));
  EXPECT_EQ(counts["nofollow_only"], static_cast<int>(truth.nofollow_only.size()));
  EXPECT_EQ(counts["sitemap_only"], 2);
  EXPECT_EQ(counts.size(), 5u);
  EXPECT_EQ(FormatSeeds(*model), "http://h0.websim.test/\nhttp://h1.websim.test/\n");
}

}  // namespace
}  // namespace crawler::websim
