// CollectionManager over an in-memory fleet of real frontier cores (in_memory_fleet.h). The
// records' bytes are the service's own (ProtoRecordCodec), so reopening reads what it wrote.
#include "services/scheduler/collection_manager.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/partition/partition.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/local_frontier_client.h"
#include "services/scheduler/grpc/proto_record_codec.h"
#include "tests/unit/scheduler/in_memory_fleet.h"

namespace crawler::scheduler {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

Collection Named(const std::string& name, std::vector<std::string> seeds) {
  Collection c;
  c.name = name;
  c.seeds = std::move(seeds);
  return c;
}

FetcherReport Report(uint32_t partition, const std::string& incarnation) {
  return FetcherReport{.partition = partition, .incarnation = incarnation};
}

class CollectionManagerTest : public ::testing::Test {
 protected:
  CollectionManagerTest()
      : store_(CollectionManager::ColumnFamilies()), fleet_(2, clock_) {
    Reopen();
  }

  void Reopen() {
    manager_.reset();
    auto m = CollectionManager::Open({}, store_, fleet_, codec_, clock_);
    ASSERT_TRUE(m.ok()) << m.status();
    manager_ = *std::move(m);
  }

  // Every URL queued on every partition, leased (and left on lease).
  std::set<std::string> LeaseEverything(const std::string& name) {
    std::set<std::string> urls;
    for (uint32_t k = 0; k < fleet_.size(); ++k) {
      frontier::Frontier* core = fleet_.Core(k, name);
      if (core == nullptr) continue;
      const std::vector<frontier::LeasedTask> tasks = core->Lease(100'000, 100'000).value();
      for (const auto& t : tasks) {
        EXPECT_EQ(partition::Partition(t.host_key, fleet_.size()), k) << t.canonical_url;
        urls.insert(t.canonical_url);
      }
    }
    return urls;
  }

  FakeClock clock_;
  const ProtoRecordCodec codec_;
  kv::InMemoryKvStore store_;
  InMemoryFleet fleet_;
  std::unique_ptr<CollectionManager> manager_;
};

TEST_F(CollectionManagerTest, CreateStoresOpensEverywhereAndFeedsTheSeedsToTheirOwners) {
  auto info = manager_->Create(
      Named("news", {"http://a.test/", "http://b.test/", "http://c.test/", "http://d.test/"}));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->state, CollectionState::kActive);
  EXPECT_TRUE(fleet_.Holds(0, "news"));
  EXPECT_TRUE(fleet_.Holds(1, "news"));
  EXPECT_EQ(LeaseEverything("news"),
            (std::set<std::string>{"http://a.test/", "http://b.test/", "http://c.test/",
                                   "http://d.test/"}));
  // Durable: a new manager on the same store knows it.
  Reopen();
  auto again = manager_->Get("news");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->collection.seeds.size(), 4u);
}

TEST_F(CollectionManagerTest, BadDefinitionsAreRefusedNamingTheFieldOrTheCollection) {
  auto bad_name = manager_->Create(Named("Bad Name", {"http://a.test/"}));
  EXPECT_TRUE(absl::IsInvalidArgument(bad_name.status()));
  EXPECT_THAT(std::string(bad_name.status().message()), HasSubstr("collection.name"));
  auto no_seeds = manager_->Create(Named("x", {}));
  EXPECT_TRUE(absl::IsInvalidArgument(no_seeds.status()));
  EXPECT_THAT(std::string(no_seeds.status().message()), HasSubstr("seed"));
  Collection negative = Named("y", {"http://a.test/"});
  negative.politeness.min_delay = absl::Seconds(-1);
  auto bad_delay = manager_->Create(negative);
  EXPECT_TRUE(absl::IsInvalidArgument(bad_delay.status()));
  EXPECT_THAT(std::string(bad_delay.status().message()), HasSubstr("min_delay"));
  ASSERT_TRUE(manager_->Create(Named("z", {"http://a.test/"})).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(manager_->Create(Named("z", {"http://b.test/"})).status()));
  auto missing = manager_->Get("nope");
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("'nope'"));
}

// A collection none of whose seeds is in its scope would finish at once with nothing fetched:
// refused at creation, naming the seeds and why.
TEST_F(CollectionManagerTest, ACollectionWhoseEverySeedIsOutOfScopeIsRefused) {
  Collection outside = Named("outside", {"http://other.org/", "http://b.org/x"});
  outside.scope.allowed_host_suffixes = {"example"};
  auto created = manager_->Create(outside);
  EXPECT_TRUE(absl::IsInvalidArgument(created.status())) << created.status();
  EXPECT_THAT(std::string(created.status().message()),
              HasSubstr("http://other.org/: host_not_allowed"));
  EXPECT_TRUE(absl::IsNotFound(manager_->Get("outside").status()));
  // One seed in scope is enough.
  outside.seeds.push_back("http://a.example/");
  EXPECT_TRUE(manager_->Create(outside).ok());
}

TEST_F(CollectionManagerTest, SeedsOfACreateDuringAnOutageReachThePartitionsLater) {
  fleet_.SetDown(1, true);
  ASSERT_TRUE(manager_
                  ->Create(Named("c", {"http://a.test/", "http://b.test/", "http://c.test/",
                                       "http://d.test/"}))
                  .ok());
  // Even a restarted scheduler remembers the seeds still owed.
  Reopen();
  manager_->Tick(clock_.Now());
  EXPECT_TRUE(LeaseEverything("c").empty());
  fleet_.SetDown(1, false);
  manager_->Tick(clock_.Now());
  EXPECT_THAT(LeaseEverything("c"), SizeIs(4));
}

TEST_F(CollectionManagerTest, AHundredThousandSeedsArriveOnTheirPartitions) {
  ASSERT_TRUE(manager_->Create(Named("big", {"http://h0.test/"})).ok());
  std::vector<std::string> seeds;
  for (int i = 0; i < 100'000; ++i) {
    seeds.push_back(absl::StrCat("http://h", i % 500, ".test/p", i));
  }
  auto report = manager_->AddSeeds("big", seeds);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->seeds, 100'000u);
  EXPECT_EQ(report->queued + report->already_seen, 100'000u);
  uint64_t queued = 0;
  for (uint32_t k = 0; k < 2; ++k) queued += fleet_.Core(k, "big")->Stats().queued_urls;
  EXPECT_EQ(queued, 100'001u);
}

TEST_F(CollectionManagerTest, AddSeedsToAnUnknownCollectionOrDuringAnOutageFails) {
  EXPECT_TRUE(absl::IsNotFound(manager_->AddSeeds("none", {"http://a.test/"}).status()));
  ASSERT_TRUE(manager_->Create(Named("c", {"http://a.test/"})).ok());
  fleet_.SetDown(0, true);
  fleet_.SetDown(1, true);
  auto report = manager_->AddSeeds("c", {"http://b.test/"});
  EXPECT_TRUE(absl::IsUnavailable(report.status())) << report.status();
}

TEST_F(CollectionManagerTest, PauseResumeAndDeleteAreWhatFetchersSee) {
  ASSERT_TRUE(manager_->Create(Named("a", {"http://a.test/"})).ok());
  ASSERT_TRUE(manager_->Create(Named("b", {"http://b.test/"})).ok());
  ASSERT_EQ(manager_->Pause("a")->state, CollectionState::kPaused);
  const FetcherReport report = Report(1, "i1");
  auto live = manager_->TakeReport(report);
  ASSERT_TRUE(live.ok()) << live.status();
  ASSERT_THAT(*live, SizeIs(2));
  EXPECT_EQ((*live)[0].state, CollectionState::kPaused);
  EXPECT_EQ((*live)[1].state, CollectionState::kActive);
  EXPECT_EQ(manager_->Resume("a")->state, CollectionState::kActive);
  EXPECT_TRUE(absl::IsFailedPrecondition(manager_->Resume("b").status()) ||
              manager_->Resume("b").ok());

  fleet_.SetDown(1, true);
  ASSERT_TRUE(manager_->Delete("a").ok());
  EXPECT_TRUE(absl::IsNotFound(manager_->Get("a").status()));
  EXPECT_THAT(*manager_->TakeReport(report), SizeIs(1));
  EXPECT_FALSE(fleet_.Holds(0, "a"));
  EXPECT_TRUE(fleet_.Holds(1, "a"));  // down: dropped later
  EXPECT_TRUE(
      absl::IsFailedPrecondition(manager_->Create(Named("a", {"http://x.test/"})).status()));
  fleet_.SetDown(1, false);
  manager_->Tick(clock_.Now());
  EXPECT_FALSE(fleet_.Holds(1, "a"));
  EXPECT_TRUE(manager_->Create(Named("a", {"http://x.test/"})).ok());
}

TEST_F(CollectionManagerTest, ACollectionCreatedAgainAfterADeleteStartsFromZero) {
  ASSERT_TRUE(manager_->Create(Named("again", {"http://a.test/"})).ok());
  FetcherReport report = Report(0, "i");
  report.collections.push_back({.collection = "again", .robots_denied = 7});
  report.collections.push_back({.collection = "other", .robots_denied = 1});
  ASSERT_TRUE(manager_->TakeReport(report).ok());
  ASSERT_EQ(manager_->Stats("again")->robots_denied, 7u);
  ASSERT_TRUE(manager_->Delete("again").ok());
  ASSERT_TRUE(manager_->Create(Named("again", {"http://a.test/"})).ok());
  EXPECT_EQ(manager_->Stats("again")->robots_denied, 0u);
  Reopen();
  EXPECT_EQ(manager_->Stats("again")->robots_denied, 0u);
}

// Reports are answered with versions; a definition goes only to a fetcher that lacks it, and
// never with the seed list (only the seeds the scope needs).
TEST_F(CollectionManagerTest, ReportRepliesCarryDefinitionsOnlyWhenNeededAndNoSeedList) {
  std::vector<std::string> seeds;
  for (int i = 0; i < 500; ++i) seeds.push_back(absl::StrCat("http://h", i % 50, ".test/p", i));
  ASSERT_TRUE(manager_->Create(Named("big", seeds)).ok());
  Collection same_site = Named("site", seeds);
  same_site.scope.same_site_only = true;
  ASSERT_TRUE(manager_->Create(same_site).ok());
  FetcherReport report = Report(0, "i");
  auto live = manager_->TakeReport(report);
  ASSERT_TRUE(live.ok()) << live.status();
  ASSERT_THAT(*live, SizeIs(2));
  ASSERT_TRUE((*live)[0].definition.has_value());
  ASSERT_TRUE((*live)[1].definition.has_value());
  EXPECT_THAT((*live)[0].definition->seeds, SizeIs(1)) << "a scope without sites: one seed";
  EXPECT_THAT((*live)[1].definition->seeds, SizeIs(50)) << "same_site_only: a seed per site";
  for (const FetcherCollection& c : *live) {
    report.held.push_back({.name = c.name, .version = c.definition_version});
  }
  live = manager_->TakeReport(report);
  ASSERT_TRUE(live.ok());
  EXPECT_FALSE((*live)[0].definition.has_value());
  EXPECT_FALSE((*live)[1].definition.has_value());
  // A changed definition is sent again.
  ASSERT_TRUE(manager_
                  ->Update("big",
                           [](const Collection& current) {
                             Collection c = current;
                             c.limits.max_pages = 7;
                             return absl::StatusOr<Collection>(c);
                           })
                  .ok());
  live = manager_->TakeReport(report);
  ASSERT_TRUE(live.ok());
  ASSERT_TRUE((*live)[0].definition.has_value());
  EXPECT_EQ((*live)[0].definition->limits.max_pages, 7u);
  // The list carries counts, not seeds.
  auto listed = manager_->List(10, "");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->first[0].seed_count, 500u);
  EXPECT_TRUE(listed->first[0].collection.seeds.empty());
  EXPECT_EQ(manager_->Get("big")->seed_count, 500u);
}

// Counters reported for an earlier collection of the same name (a fetcher still crawling it
// when it was deleted and created again) are not the new one's.
TEST_F(CollectionManagerTest, CountersOfAnEarlierGenerationAreNotSummed) {
  ASSERT_TRUE(manager_->Create(Named("again", {"http://a.test/"})).ok());
  const uint64_t first = CollectionGeneration(manager_->Get("again")->create_time);
  ASSERT_TRUE(manager_->Delete("again").ok());
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(manager_->Create(Named("again", {"http://a.test/"})).ok());
  const uint64_t second = CollectionGeneration(manager_->Get("again")->create_time);
  ASSERT_NE(first, second);
  FetcherReport report = Report(0, "i");
  report.collections.push_back({.collection = "again", .generation = first, .robots_denied = 100});
  report.collections.push_back({.collection = "again", .generation = second, .robots_denied = 3});
  ASSERT_TRUE(manager_->TakeReport(report).ok());
  EXPECT_EQ(manager_->Stats("again")->robots_denied, 3u);
}

TEST_F(CollectionManagerTest, ListPagesByName) {
  for (const char* name : {"c", "a", "e", "b", "d"}) {
    ASSERT_TRUE(manager_->Create(Named(name, {"http://a.test/"})).ok());
  }
  auto first = manager_->List(2, "");
  ASSERT_TRUE(first.ok());
  ASSERT_THAT(first->first, SizeIs(2));
  EXPECT_EQ(first->first[0].collection.name, "a");
  EXPECT_EQ(first->second, "b");
  auto rest = manager_->List(10, first->second);
  ASSERT_THAT(rest->first, SizeIs(3));
  EXPECT_EQ(rest->first[0].collection.name, "c");
  EXPECT_EQ(rest->second, "");
  EXPECT_TRUE(absl::IsInvalidArgument(manager_->List(5000, "").status()));
}

TEST_F(CollectionManagerTest, AOneOffCollectionFinishesWhenEveryPartitionIsExhausted) {
  ASSERT_TRUE(manager_->Create(Named("once", {"http://a.test/", "http://b.test/"})).ok());
  manager_->Tick(clock_.Now());
  EXPECT_EQ(manager_->Get("once")->state, CollectionState::kActive);
  for (uint32_t k = 0; k < 2; ++k) {
    frontier::Frontier* core = fleet_.Core(k, "once");
    std::vector<frontier::FetchOutcome> outcomes;
    const std::vector<frontier::LeasedTask> tasks = core->Lease(100, 100).value();
    for (const auto& t : tasks) {
      outcomes.push_back({.lease_id = t.lease_id, .outcome = frontier::OutcomeClass::kFetched,
                          .http_status = 200, .fetch_time = clock_.Now()});
    }
    ASSERT_TRUE(core->Complete(outcomes).ok());
  }
  manager_->Tick(clock_.Now());
  EXPECT_EQ(manager_->Get("once")->state, CollectionState::kFinished);
  // New seeds make it active again.
  ASSERT_EQ(manager_->AddSeeds("once", {"http://c.test/"})->queued, 1u);
  EXPECT_EQ(manager_->Get("once")->state, CollectionState::kActive);
}

// Beyond max_incarnations_per_partition, the oldest incarnations' counters are folded, not lost.
TEST_F(CollectionManagerTest, OldFetcherIncarnationsAreFoldedNotLost) {
  manager_.reset();
  manager_ =
      CollectionManager::Open({.max_incarnations_per_partition = 2}, store_, fleet_, codec_, clock_)
          .value();
  ASSERT_TRUE(manager_->Create(Named("s", {"http://a.test/"})).ok());
  for (int i = 0; i < 5; ++i) {
    FetcherReport report = Report(0, absl::StrCat("inc", i));
    report.start_time = absl::FromUnixSeconds(100 + i);
    report.collections.push_back({.collection = "s", .robots_denied = 1, .urls_sent = {0, 3}});
    ASSERT_TRUE(manager_->TakeReport(report).ok());
  }
  Reopen();
  auto stats = manager_->Stats("s");
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->robots_denied, 5u);
  EXPECT_EQ(stats->urls_exchanged, 15u);
}

// The re-visit policy is solved here and pushed to every partition (RevisitTuner).
TEST_F(CollectionManagerTest, AReVisitingCollectionIsTunedOnEveryPartition) {
  Collection c;
  c.name = "fresh";
  c.seeds = {"http://a.test/", "http://b.test/"};
  c.revisit.options.enabled = true;
  c.revisit.options.policy = "optimal";
  c.revisit.budget_visits_per_day = 1000;
  ASSERT_TRUE(manager_->Create(c).ok());
  manager_->Tick(clock_.Now());
  EXPECT_EQ(fleet_.retunes(), 2);
  // A re-visiting collection never finishes.
  EXPECT_EQ(manager_->Get("fresh")->state, CollectionState::kActive);
  clock_.Advance(absl::Minutes(1));
  manager_->Tick(clock_.Now());
  EXPECT_EQ(fleet_.retunes(), 4);
}

TEST_F(CollectionManagerTest, StatsSumThePartitionsAndTheFetchersReports) {
  ASSERT_TRUE(
      manager_->Create(Named("s", {"http://a.test/", "http://b.test/", "http://c.test/"})).ok());
  for (uint32_t p = 0; p < 2; ++p) {
    for (const char* incarnation : {"old", "new"}) {
      FetcherReport report = Report(p, absl::StrCat(incarnation, p));
      report.collections.push_back({.collection = "s",
                                    .outcomes = {{frontier::OutcomeClass::kFetched, 10}},
                                    .robots_denied = 1,
                                    .duplicates = 2,
                                    .pages_rendered = 5,
                                    .renders_cut = 1,
                                    .urls_suppressed = 3,
                                    // to partition 0, to partition 1
                                    .urls_sent = {p == 0 ? 5u : 7u, p == 0 ? 11u : 13u}});
      report.collections.push_back({.collection = "other", .robots_denied = 100});
      ASSERT_TRUE(manager_->TakeReport(report).ok());
    }
  }
  Reopen();  // the reports are durable
  auto stats = manager_->Stats("s");
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->partitions_total, 2u);
  EXPECT_EQ(stats->partitions_reporting, 2u);
  EXPECT_EQ(stats->queued_urls, 3u);
  EXPECT_EQ(stats->seen_urls, 3u);
  EXPECT_FALSE(stats->exhausted);
  ASSERT_THAT(stats->outcomes, SizeIs(1));
  EXPECT_EQ(stats->outcomes.at(frontier::OutcomeClass::kFetched), 40u);
  EXPECT_EQ(stats->robots_denied, 4u);
  EXPECT_EQ(stats->duplicates, 8u);
  EXPECT_EQ(stats->urls_suppressed, 12u);
  EXPECT_EQ(stats->pages_rendered, 20u);
  EXPECT_EQ(stats->renders_cut, 4u);
  // Exchanged: what each fetcher sent to partitions other than its own (11 + 7, twice).
  EXPECT_EQ(stats->urls_exchanged, 36u);
  fleet_.SetDown(1, true);
  EXPECT_EQ(manager_->Stats("s")->partitions_reporting, 1u);
}

TEST_F(CollectionManagerTest, ExplainCanonicalisesScopesAndLooksUpOnTheOwningPartition) {
  Collection x = Named("x", {"http://a.test/"});
  x.scope.allowed_host_suffixes.push_back("a.test");
  ASSERT_TRUE(manager_->Create(x).ok());
  auto explained = manager_->Explain("x", {"HTTP://A.TEST:80/#top", "http://b.test/", "::"});
  ASSERT_TRUE(explained.ok()) << explained.status();
  ASSERT_THAT(*explained, SizeIs(3));
  const UrlExplanation& seed = (*explained)[0];
  EXPECT_EQ(seed.canonical_url, "http://a.test/");
  ASSERT_TRUE(seed.record.has_value());
  EXPECT_EQ(seed.scope_verdict, scope::Verdict::kInScope);
  EXPECT_EQ(seed.partition, partition::Partition("a.test", 2));
  EXPECT_EQ(seed.record->status, frontier::UrlStatus::kQueued);
  const UrlExplanation& other = (*explained)[1];
  EXPECT_FALSE(other.record.has_value());
  EXPECT_EQ(other.scope_verdict, scope::Verdict::kHostNotAllowed);
  EXPECT_FALSE((*explained)[2].error.empty());
  EXPECT_FALSE((*explained)[2].scope_verdict.has_value());
}

// Host control: each call reaches the partition that owns the host; ListHosts merges every
// partition's page in order and pages through all of them; bad input changes nothing.
TEST_F(CollectionManagerTest, HostControlIsRoutedToTheOwnerAndListHostsMergesThePartitions) {
  Collection h = Named("h", {});
  h.scope.allowed_host_suffixes.push_back("test");
  std::vector<std::string> hosts;
  for (int i = 0; i < 7; ++i) {
    const std::string host = absl::StrCat("h", i, ".test");
    hosts.push_back(host);
    for (int j = 0; j <= i; ++j) h.seeds.push_back(absl::StrCat("http://", host, "/", j));
  }
  ASSERT_TRUE(manager_->Create(h).ok());
  std::set<uint32_t> owners;
  for (const std::string& host : hosts) owners.insert(partition::Partition(host, 2));
  ASSERT_EQ(owners.size(), 2u) << "the hosts should spread over both partitions";

  // Most queued first, three a page, over both partitions.
  std::vector<std::string> listed;
  std::string token;
  for (int page = 0; page < 5; ++page) {
    auto got = manager_->ListHosts("h", {.page_size = 3, .page_token = token});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->matched, 7u);
    for (const frontier::HostSummary& s : got->hosts) {
      listed.push_back(s.host_key);
      EXPECT_EQ(s.partition, partition::Partition(s.host_key, 2));
    }
    token = got->next_page_token;
    if (token.empty()) break;
  }
  EXPECT_EQ(listed, std::vector<std::string>({"h6.test", "h5.test", "h4.test", "h3.test",
                                              "h2.test", "h1.test", "h0.test"}));
  auto filtered = manager_->ListHosts("h", {.suffix = "h3.test"});
  ASSERT_TRUE(filtered.ok());
  ASSERT_EQ(filtered->hosts.size(), 1u);
  EXPECT_EQ(filtered->hosts[0].queued, 4u);

  const std::string host = "h4.test";
  const uint32_t owner = partition::Partition(host, 2);
  auto blocked = manager_->ControlHost(
      "h", host,
      {.kind = frontier::HostControlChange::Kind::kBlock, .until = clock_.Now() + absl::Hours(1)});
  ASSERT_TRUE(blocked.ok()) << blocked.status();
  auto detail = fleet_.Core(owner, "h")->GetHost(host);
  ASSERT_TRUE(detail.ok());
  EXPECT_EQ(detail->summary.controls.blocked_until, clock_.Now() + absl::Hours(1));
  auto dropped = manager_->DropHostQueue("h", host);
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_EQ(dropped->dropped, 5u);
  auto urls = manager_->ListHostUrls("h", {.host_key = host,
                                           .state = frontier::HostUrlState::kDropped});
  ASSERT_TRUE(urls.ok()) << urls.status();
  EXPECT_EQ(urls->urls.size(), 5u);
  EXPECT_EQ(manager_->GetHost("h", host)->summary.dropped, 5u);
  // Explain shows the host's controls beside the URL's record.
  auto explained = manager_->Explain("h", {"http://h4.test/0", "http://new.test/"});
  ASSERT_TRUE(explained.ok()) << explained.status();
  ASSERT_TRUE((*explained)[0].host.has_value());
  EXPECT_EQ((*explained)[0].host->controls.blocked_until, clock_.Now() + absl::Hours(1));
  EXPECT_EQ((*explained)[0].host->controls.dropped_urls, 5u);
  EXPECT_FALSE((*explained)[1].host.has_value());

  // Bad input: a malformed key, a host the scope refuses, one never seen, a bad token, an
  // unknown collection.
  EXPECT_TRUE(absl::IsInvalidArgument(manager_->GetHost("h", "Not A Host").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(manager_->GetHost("h", "other.example").status()));
  EXPECT_TRUE(absl::IsNotFound(manager_->GetHost("h", "never.test").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(manager_->ListHosts("h", {.page_token = "1"}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(manager_->ListHosts("h", {.page_size = 1001}).status()));
  EXPECT_TRUE(absl::IsNotFound(manager_->GetHost("nope", host).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      manager_
          ->ControlHost("h", "h1.test",
                        {.kind = frontier::HostControlChange::Kind::kBlock,
                         .until = clock_.Now() - absl::Seconds(1)})
          .status()));
  EXPECT_EQ(manager_->GetHost("h", "h1.test")->summary.controls, frontier::HostControls{});
  // A partition that does not answer.
  fleet_.SetDown(partition::Partition("h1.test", 2), true);
  EXPECT_TRUE(absl::IsUnavailable(manager_->GetHost("h", "h1.test").status()));
  EXPECT_TRUE(absl::IsUnavailable(manager_->ListHosts("h", {}).status()));
}

TEST_F(CollectionManagerTest, UpdateChangesTheDefinitionButNeverNameOrSeeds) {
  ASSERT_TRUE(manager_->Create(Named("u", {"http://a.test/"})).ok());
  auto updated = manager_->Update("u", [](const Collection& current) {
    Collection changed = current;
    changed.name = "renamed";
    changed.seeds = {"http://ignored.test/"};
    changed.limits.max_pages = 50;
    return absl::StatusOr<Collection>(changed);
  });
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->collection.name, "u");
  EXPECT_EQ(updated->collection.limits.max_pages, 50u);
  EXPECT_EQ(updated->collection.seeds, std::vector<std::string>{"http://a.test/"});
  Reopen();
  EXPECT_EQ(manager_->Get("u")->collection.limits.max_pages, 50u);
  // The change's own refusal is the update's.
  auto refused = manager_->Update("u", [](const Collection&) -> absl::StatusOr<Collection> {
    return absl::InvalidArgumentError("update_mask: no");
  });
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("update_mask"));
  EXPECT_TRUE(absl::IsNotFound(
      manager_->Update("none", [](const Collection& c) { return absl::StatusOr<Collection>(c); })
          .status()));
}

// A focused collection runs on every partition with its bandit and an even share of the page
// budget; the split then moves what is left towards the partition whose pages brought links,
// never below what a partition spent, and the budgets add up to the collection's.
TEST_F(CollectionManagerTest, AFocusedCollectionsBudgetFollowsTheRewards) {
  // One seed host per partition.
  std::vector<std::string> hosts(2);
  for (int i = 0; hosts[0].empty() || hosts[1].empty(); ++i) {
    const std::string host = absl::StrCat("s", i, ".test");
    hosts[partition::Partition(host, 2)] = host;
  }
  Collection focused =
      Named("f", {absl::StrCat("http://", hosts[0], "/"), absl::StrCat("http://", hosts[1], "/")});
  focused.limits.max_pages = 100;
  focused.focus.target = "external_links";
  focused.focus.policy = "r3";
  auto created = manager_->Create(focused);
  ASSERT_TRUE(created.ok()) << created.status();
  // Partition 0's site has 20 pages; ten are fetched, each bringing 5 new links (the rest keep
  // it in the game); partition 1 fetches nothing.
  frontier::Frontier* rich = fleet_.Core(0, "f");
  ASSERT_NE(rich, nullptr);
  std::vector<frontier::UrlToAdd> more;
  for (int i = 1; i < 20; ++i) {
    more.push_back({.canonical_url = absl::StrCat("http://", hosts[0], "/", i),
                    .host_key = hosts[0],
                    .depth = 1});
  }
  ASSERT_TRUE(rich->AddUrls(more).ok());
  for (int completed = 0; completed < 10;) {
    const std::vector<frontier::LeasedTask> tasks = rich->Lease(10 - completed, 4).value();
    ASSERT_FALSE(tasks.empty());
    std::vector<frontier::FetchOutcome> outcomes;
    for (const frontier::LeasedTask& t : tasks) {
      outcomes.push_back({.lease_id = t.lease_id, .http_status = 200, .new_external_links = 5});
    }
    ASSERT_TRUE(rich->Complete(outcomes).ok());
    completed += static_cast<int>(tasks.size());
  }
  clock_.Advance(absl::Minutes(1));
  manager_->Tick(clock_.Now());
  auto stats = manager_->Stats("f");
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->focus_pulls, 10u);
  EXPECT_EQ(stats->focus_reward, 50u);
  // 90 pages left: posterior means (1 + 50) / (2 + 10) against 1 / 2, so 81 + 9 (rounded).
  EXPECT_THAT(stats->focus_page_budgets, ::testing::ElementsAre(10 + 81, 9));

  // Links are recorded (and counted) by the fetchers too: record_links is accepted.
  ASSERT_TRUE(manager_->Create(Named("g", {"http://a.test/"})).ok());
  auto updated = manager_->Update("g", [](const Collection& current) {
    Collection changed = current;
    changed.record_links = true;
    return absl::StatusOr<Collection>(changed);
  });
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_TRUE(manager_->Get("g")->collection.record_links);
}

}  // namespace
}  // namespace crawler::scheduler
