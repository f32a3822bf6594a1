// The banditsim engine (tools/banditsim): the breadth-first oracle against hand-worked cases, the
// site model's accounting, and the driver's retire-on-exhaustion rule.
#include <memory>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "lib/bandit/explore_then_commit.h"
#include "lib/bandit/random.h"
#include "tools/banditsim/simulator.h"
#include "tools/banditsim/site_set.h"

namespace crawler::banditsim {
namespace {

Site SiteWith(std::vector<int32_t> new_links) {
  Site site;
  site.spec.pages = static_cast<int64_t>(new_links.size());
  site.new_links = std::move(new_links);
  return site;
}

TEST(Oracle, BestBreadthFirstPrefixesNotBestPages) {
  // Site A hides 5 links on its third page; site B has 2 then 1. The best 3 pages ignoring the
  // order would be 5 + 2 + 1 = 8, but reaching A's third page costs its first two.
  const std::vector<Site> sites = {SiteWith({0, 0, 5}), SiteWith({2, 1, 0})};
  EXPECT_EQ(OracleLinks(sites, 1), 2);
  EXPECT_EQ(OracleLinks(sites, 2), 3);
  EXPECT_EQ(OracleLinks(sites, 3), 5);  // A's three pages; a greedy next-best-page crawler gets 3
  EXPECT_EQ(OracleLinks(sites, 4), 7);  // A's three pages + B's first
  EXPECT_EQ(OracleLinks(sites, 6), 8);
  EXPECT_EQ(OracleLinks(sites, 100), 8);
}

TEST(RunPolicy, RetiresExhaustedSitesAndStopsWhenNothingIsLeft) {
  const std::vector<Site> sites = {SiteWith({1, 0, 0}), SiteWith({0, 4})};
  bandit::ExploreThenCommit policy(2, {.explore_pulls = 1});
  EXPECT_EQ(RunPolicy(sites, policy, 100), 5);
  EXPECT_EQ(policy.total_pulls(), 5);
  EXPECT_EQ(policy.active_arms(), 0);
}

TEST(RunPolicy, StopsAtTheBudget) {
  const std::vector<Site> sites = {SiteWith({1, 1, 1, 1}), SiteWith({0, 0})};
  bandit::ExploreThenCommit policy(2, {.explore_pulls = 1});
  EXPECT_EQ(RunPolicy(sites, policy, 3), 2);
  EXPECT_EQ(policy.total_pulls(), 3);
}

TEST(SiteModel, EveryTargetFirstSeenOnceAndDeterministic) {
  for (const std::string& type : SetTypeNames()) {
    bandit::Random a(9);
    bandit::Random b(9);
    absl::StatusOr<std::vector<SiteSpec>> specs = DrawSiteSpecs(type, 6, a);
    ASSERT_TRUE(specs.ok()) << type;
    ASSERT_EQ(specs->size(), 6u);
    ASSERT_TRUE(DrawSiteSpecs(type, 6, b).ok());
    for (const SiteSpec& spec : *specs) {
      const Site site = BuildSite(spec, {.occurrences_per_link = 3, .zipf = 1}, a);
      const Site same = BuildSite(spec, {.occurrences_per_link = 3, .zipf = 1}, b);
      EXPECT_EQ(site.new_links, same.new_links);
      ASSERT_EQ(static_cast<int64_t>(site.new_links.size()), spec.pages);
      const int64_t total = std::accumulate(site.new_links.begin(), site.new_links.end(), 0ll);
      EXPECT_EQ(total, site.distinct_links) << type;
      EXPECT_EQ(site.distinct_links, std::max<int64_t>(1, std::llround(spec.density * spec.pages)));
      EXPECT_EQ(site.occurrences, 3 * site.distinct_links);
    }
  }
  bandit::Random random(1);
  EXPECT_FALSE(DrawSiteSpecs("portal", 3, random).ok());
  EXPECT_FALSE(DrawSiteSpecs("table1", 0, random).ok());
}

TEST(SiteModel, PlacementsPutLinksWhereTheySay) {
  bandit::Random random(4);
  const DuplicateModel no_repeats = {.occurrences_per_link = 1, .zipf = 1};
  const Site late = BuildSite(
      {.pages = 1000, .density = 0.2, .placement = Placement::kLate, .start = 300, .scale = 100},
      no_repeats, random);
  EXPECT_EQ(std::accumulate(late.new_links.begin(), late.new_links.begin() + 300, 0), 0);
  EXPECT_EQ(std::accumulate(late.new_links.begin() + 300, late.new_links.begin() + 400, 0), 200);
  const Site bursty = BuildSite({.pages = 1000,
                                 .density = 0.2,
                                 .placement = Placement::kBursty,
                                 .start = 0,
                                 .scale = 1000,
                                 .bursts = 2,
                                 .burst_links = 50},
                                no_repeats, random);
  EXPECT_GE(*std::max_element(bursty.new_links.begin(), bursty.new_links.end()), 30);
}

TEST(Experiment, SameSeedSameSummariesWhateverTheThreads) {
  ExperimentConfig config{.set_types = {"university", "institute"},
                          .policies = {"r1", "r2", "r3", "rested-thompson"},
                          .sites = 4,
                          .budget = 200,
                          .seeds = 6,
                          .seed = 3};
  absl::StatusOr<std::vector<Summary>> one = RunExperiment(config);
  config.threads = 3;
  absl::StatusOr<std::vector<Summary>> three = RunExperiment(config);
  ASSERT_TRUE(one.ok());
  ASSERT_TRUE(three.ok());
  ASSERT_EQ(one->size(), 10u);  // (oracle + 4 policies) x 2 set types
  for (size_t i = 0; i < one->size(); ++i) {
    EXPECT_EQ((*one)[i].policy, (*three)[i].policy);
    EXPECT_EQ((*one)[i].mean_links, (*three)[i].mean_links);
    EXPECT_LE((*one)[i].mean_ratio_to_oracle, 1.0);
  }
  config.policies = {"r9"};
  EXPECT_EQ(RunExperiment(config).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::banditsim
