// CollectionManager over an in-memory fleet of real frontier cores (in_memory_fleet.h).
#include "services/scheduler/grpc/collection_manager.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/partition/partition.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/local_frontier_client.h"
#include "services/scheduler/grpc/collection_convert.h"
#include "tests/unit/scheduler/in_memory_fleet.h"

namespace crawler::scheduler {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

v1::Collection Proto(const std::string& name, std::vector<std::string> seeds) {
  Collection c;
  c.name = name;
  c.seeds = std::move(seeds);
  return ToProto(c);
}

class CollectionManagerTest : public ::testing::Test {
 protected:
  CollectionManagerTest()
      : store_(CollectionManager::ColumnFamilies()), fleet_(2, clock_) {
    Reopen();
  }

  void Reopen() {
    manager_.reset();
    auto m = CollectionManager::Open({}, store_, fleet_, clock_);
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
  kv::InMemoryKvStore store_;
  InMemoryFleet fleet_;
  std::unique_ptr<CollectionManager> manager_;
};

TEST_F(CollectionManagerTest, CreateStoresOpensEverywhereAndFeedsTheSeedsToTheirOwners) {
  auto info = manager_->Create(Proto("news", {"http://a.test/", "http://b.test/",
                                              "http://c.test/", "http://d.test/"}));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->state(), v1::COLLECTION_STATE_ACTIVE);
  EXPECT_TRUE(fleet_.Holds(0, "news"));
  EXPECT_TRUE(fleet_.Holds(1, "news"));
  EXPECT_EQ(LeaseEverything("news"),
            (std::set<std::string>{"http://a.test/", "http://b.test/", "http://c.test/",
                                   "http://d.test/"}));
  // Durable: a new manager on the same store knows it.
  Reopen();
  auto again = manager_->Get("news");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->collection().seeds_size(), 4);
}

TEST_F(CollectionManagerTest, BadDefinitionsAreRefusedNamingTheFieldOrTheCollection) {
  auto bad_name = manager_->Create(Proto("Bad Name", {"http://a.test/"}));
  EXPECT_TRUE(absl::IsInvalidArgument(bad_name.status()));
  EXPECT_THAT(std::string(bad_name.status().message()), HasSubstr("collection.name"));
  auto no_seeds = manager_->Create(Proto("x", {}));
  EXPECT_TRUE(absl::IsInvalidArgument(no_seeds.status()));
  EXPECT_THAT(std::string(no_seeds.status().message()), HasSubstr("seed"));
  v1::Collection negative = Proto("y", {"http://a.test/"});
  negative.mutable_politeness()->mutable_min_delay()->set_seconds(-1);
  auto bad_delay = manager_->Create(negative);
  EXPECT_TRUE(absl::IsInvalidArgument(bad_delay.status()));
  EXPECT_THAT(std::string(bad_delay.status().message()), HasSubstr("politeness.min_delay"));
  ASSERT_TRUE(manager_->Create(Proto("z", {"http://a.test/"})).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(manager_->Create(Proto("z", {"http://b.test/"})).status()));
  auto missing = manager_->Get("nope");
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("'nope'"));
}

// A collection none of whose seeds is in its scope would finish at once with nothing fetched:
// refused at creation, naming the seeds and why.
TEST_F(CollectionManagerTest, ACollectionWhoseEverySeedIsOutOfScopeIsRefused) {
  v1::Collection outside = Proto("outside", {"http://other.org/", "http://b.org/x"});
  outside.mutable_scope()->add_allowed_host_suffixes("example");
  auto created = manager_->Create(outside);
  EXPECT_TRUE(absl::IsInvalidArgument(created.status())) << created.status();
  EXPECT_THAT(std::string(created.status().message()),
              HasSubstr("http://other.org/: host_not_allowed"));
  EXPECT_TRUE(absl::IsNotFound(manager_->Get("outside").status()));
  // One seed in scope is enough.
  *outside.add_seeds() = "http://a.example/";
  EXPECT_TRUE(manager_->Create(outside).ok());
}

TEST_F(CollectionManagerTest, SeedsOfACreateDuringAnOutageReachThePartitionsLater) {
  fleet_.SetDown(1, true);
  ASSERT_TRUE(manager_->Create(Proto("c", {"http://a.test/", "http://b.test/", "http://c.test/",
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
  ASSERT_TRUE(manager_->Create(Proto("big", {"http://h0.test/"})).ok());
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
  ASSERT_TRUE(manager_->Create(Proto("c", {"http://a.test/"})).ok());
  fleet_.SetDown(0, true);
  fleet_.SetDown(1, true);
  auto report = manager_->AddSeeds("c", {"http://b.test/"});
  EXPECT_TRUE(absl::IsUnavailable(report.status())) << report.status();
}

TEST_F(CollectionManagerTest, PauseResumeAndDeleteAreWhatFetchersSee) {
  ASSERT_TRUE(manager_->Create(Proto("a", {"http://a.test/"})).ok());
  ASSERT_TRUE(manager_->Create(Proto("b", {"http://b.test/"})).ok());
  ASSERT_EQ(manager_->Pause("a")->state(), v1::COLLECTION_STATE_PAUSED);
  v1::ReportFetcherStatsRequest report;
  report.set_partition(1);
  report.set_incarnation("i1");
  auto live = manager_->FetcherReport(report);
  ASSERT_TRUE(live.ok()) << live.status();
  ASSERT_THAT(*live, SizeIs(2));
  EXPECT_EQ((*live)[0].state(), v1::COLLECTION_STATE_PAUSED);
  EXPECT_EQ((*live)[1].state(), v1::COLLECTION_STATE_ACTIVE);
  EXPECT_EQ(manager_->Resume("a")->state(), v1::COLLECTION_STATE_ACTIVE);
  EXPECT_TRUE(absl::IsFailedPrecondition(manager_->Resume("b").status()) ||
              manager_->Resume("b").ok());

  fleet_.SetDown(1, true);
  ASSERT_TRUE(manager_->Delete("a").ok());
  EXPECT_TRUE(absl::IsNotFound(manager_->Get("a").status()));
  EXPECT_THAT(*manager_->FetcherReport(report), SizeIs(1));
  EXPECT_FALSE(fleet_.Holds(0, "a"));
  EXPECT_TRUE(fleet_.Holds(1, "a"));  // down: dropped later
  EXPECT_TRUE(absl::IsFailedPrecondition(manager_->Create(Proto("a", {"http://x.test/"})).status()));
  fleet_.SetDown(1, false);
  manager_->Tick(clock_.Now());
  EXPECT_FALSE(fleet_.Holds(1, "a"));
  EXPECT_TRUE(manager_->Create(Proto("a", {"http://x.test/"})).ok());
}

TEST_F(CollectionManagerTest, ACollectionCreatedAgainAfterADeleteStartsFromZero) {
  ASSERT_TRUE(manager_->Create(Proto("again", {"http://a.test/"})).ok());
  v1::ReportFetcherStatsRequest report;
  report.set_partition(0);
  report.set_incarnation("i");
  v1::FetcherCollectionStats* c = report.add_collections();
  c->set_collection("again");
  c->set_robots_denied(7);
  v1::FetcherCollectionStats* other = report.add_collections();
  other->set_collection("other");
  other->set_robots_denied(1);
  ASSERT_TRUE(manager_->FetcherReport(report).ok());
  ASSERT_EQ(manager_->Stats("again")->robots_denied(), 7u);
  ASSERT_TRUE(manager_->Delete("again").ok());
  ASSERT_TRUE(manager_->Create(Proto("again", {"http://a.test/"})).ok());
  EXPECT_EQ(manager_->Stats("again")->robots_denied(), 0u);
  Reopen();
  EXPECT_EQ(manager_->Stats("again")->robots_denied(), 0u);
}

// Reports are answered with versions; a definition goes only to a fetcher that lacks it, and
// never with the seed list (only the seeds the scope needs).
TEST_F(CollectionManagerTest, ReportRepliesCarryDefinitionsOnlyWhenNeededAndNoSeedList) {
  std::vector<std::string> seeds;
  for (int i = 0; i < 500; ++i) seeds.push_back(absl::StrCat("http://h", i % 50, ".test/p", i));
  ASSERT_TRUE(manager_->Create(Proto("big", seeds)).ok());
  v1::Collection same_site = Proto("site", seeds);
  same_site.mutable_scope()->set_same_site_only(true);
  ASSERT_TRUE(manager_->Create(same_site).ok());
  v1::ReportFetcherStatsRequest report;
  report.set_partition(0);
  report.set_incarnation("i");
  auto live = manager_->FetcherReport(report);
  ASSERT_TRUE(live.ok()) << live.status();
  ASSERT_THAT(*live, SizeIs(2));
  EXPECT_EQ((*live)[0].definition().seeds_size(), 1) << "a scope without sites: one seed";
  EXPECT_EQ((*live)[1].definition().seeds_size(), 50) << "same_site_only: a seed per site";
  for (const v1::FetcherCollection& c : *live) {
    v1::HeldDefinition* held = report.add_held();
    held->set_name(c.name());
    held->set_version(c.definition_version());
  }
  live = manager_->FetcherReport(report);
  ASSERT_TRUE(live.ok());
  EXPECT_FALSE((*live)[0].has_definition());
  EXPECT_FALSE((*live)[1].has_definition());
  // A changed definition is sent again.
  v1::Collection slower = Proto("big", {});
  slower.mutable_limits()->set_max_pages(7);
  google::protobuf::FieldMask mask;
  mask.add_paths("limits.max_pages");
  ASSERT_TRUE(manager_->Update(slower, mask).ok());
  live = manager_->FetcherReport(report);
  ASSERT_TRUE(live.ok());
  EXPECT_TRUE((*live)[0].has_definition());
  EXPECT_EQ((*live)[0].definition().limits().max_pages(), 7u);
  // The list carries counts, not seeds.
  auto listed = manager_->List(10, "");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->first[0].seed_count(), 500u);
  EXPECT_EQ(listed->first[0].collection().seeds_size(), 0);
}

// Counters reported for an earlier collection of the same name (a fetcher still crawling it
// when it was deleted and created again) are not the new one's.
TEST_F(CollectionManagerTest, CountersOfAnEarlierGenerationAreNotSummed) {
  ASSERT_TRUE(manager_->Create(Proto("again", {"http://a.test/"})).ok());
  const uint64_t first = GenerationOf(manager_->Get("again")->create_time());
  ASSERT_TRUE(manager_->Delete("again").ok());
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(manager_->Create(Proto("again", {"http://a.test/"})).ok());
  const uint64_t second = GenerationOf(manager_->Get("again")->create_time());
  ASSERT_NE(first, second);
  v1::ReportFetcherStatsRequest report;
  report.set_partition(0);
  report.set_incarnation("i");
  v1::FetcherCollectionStats* old_one = report.add_collections();
  old_one->set_collection("again");
  old_one->set_generation(first);
  old_one->set_robots_denied(100);
  v1::FetcherCollectionStats* new_one = report.add_collections();
  new_one->set_collection("again");
  new_one->set_generation(second);
  new_one->set_robots_denied(3);
  ASSERT_TRUE(manager_->FetcherReport(report).ok());
  EXPECT_EQ(manager_->Stats("again")->robots_denied(), 3u);
}

TEST_F(CollectionManagerTest, ListPagesByName) {
  for (const char* name : {"c", "a", "e", "b", "d"}) {
    ASSERT_TRUE(manager_->Create(Proto(name, {"http://a.test/"})).ok());
  }
  auto first = manager_->List(2, "");
  ASSERT_TRUE(first.ok());
  ASSERT_THAT(first->first, SizeIs(2));
  EXPECT_EQ(first->first[0].collection().name(), "a");
  EXPECT_EQ(first->second, "b");
  auto rest = manager_->List(10, first->second);
  ASSERT_THAT(rest->first, SizeIs(3));
  EXPECT_EQ(rest->first[0].collection().name(), "c");
  EXPECT_EQ(rest->second, "");
  EXPECT_TRUE(absl::IsInvalidArgument(manager_->List(5000, "").status()));
}

TEST_F(CollectionManagerTest, AOneOffCollectionFinishesWhenEveryPartitionIsExhausted) {
  ASSERT_TRUE(manager_->Create(Proto("once", {"http://a.test/", "http://b.test/"})).ok());
  manager_->Tick(clock_.Now());
  EXPECT_EQ(manager_->Get("once")->state(), v1::COLLECTION_STATE_ACTIVE);
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
  EXPECT_EQ(manager_->Get("once")->state(), v1::COLLECTION_STATE_FINISHED);
  // New seeds make it active again.
  ASSERT_EQ(manager_->AddSeeds("once", {"http://c.test/"})->queued, 1u);
  EXPECT_EQ(manager_->Get("once")->state(), v1::COLLECTION_STATE_ACTIVE);
}

// Beyond max_incarnations_per_partition, the oldest incarnations' counters are folded, not lost.
TEST_F(CollectionManagerTest, OldFetcherIncarnationsAreFoldedNotLost) {
  manager_.reset();
  manager_ = CollectionManager::Open({.max_incarnations_per_partition = 2}, store_, fleet_, clock_)
                 .value();
  ASSERT_TRUE(manager_->Create(Proto("s", {"http://a.test/"})).ok());
  for (int i = 0; i < 5; ++i) {
    v1::ReportFetcherStatsRequest report;
    report.set_partition(0);
    report.set_incarnation(absl::StrCat("inc", i));
    *report.mutable_start_time() = google::protobuf::util::TimeUtil::SecondsToTimestamp(100 + i);
    v1::FetcherCollectionStats* c = report.add_collections();
    c->set_collection("s");
    c->set_robots_denied(1);
    c->add_urls_sent(0);
    c->add_urls_sent(3);
    ASSERT_TRUE(manager_->FetcherReport(report).ok());
  }
  Reopen();
  auto stats = manager_->Stats("s");
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->robots_denied(), 5u);
  EXPECT_EQ(stats->urls_exchanged(), 15u);
}

// The re-visit policy is solved here and pushed to every partition (RevisitTuner).
TEST_F(CollectionManagerTest, AReVisitingCollectionIsTunedOnEveryPartition) {
  Collection c;
  c.name = "fresh";
  c.seeds = {"http://a.test/", "http://b.test/"};
  c.revisit.options.enabled = true;
  c.revisit.options.policy = "optimal";
  c.revisit.budget_visits_per_day = 1000;
  ASSERT_TRUE(manager_->Create(ToProto(c)).ok());
  manager_->Tick(clock_.Now());
  EXPECT_EQ(fleet_.retunes(), 2);
  // A re-visiting collection never finishes.
  EXPECT_EQ(manager_->Get("fresh")->state(), v1::COLLECTION_STATE_ACTIVE);
  clock_.Advance(absl::Minutes(1));
  manager_->Tick(clock_.Now());
  EXPECT_EQ(fleet_.retunes(), 4);
}

TEST_F(CollectionManagerTest, StatsSumThePartitionsAndTheFetchersReports) {
  ASSERT_TRUE(manager_->Create(Proto("s", {"http://a.test/", "http://b.test/", "http://c.test/"}))
                  .ok());
  for (uint32_t p = 0; p < 2; ++p) {
    for (const char* incarnation : {"old", "new"}) {
      v1::ReportFetcherStatsRequest report;
      report.set_partition(p);
      report.set_incarnation(absl::StrCat(incarnation, p));
      v1::FetcherCollectionStats* c = report.add_collections();
      c->set_collection("s");
      v1::OutcomeCount* o = c->add_outcomes();
      o->set_outcome(v1::OUTCOME_CLASS_FETCHED);
      o->set_count(10);
      c->set_robots_denied(1);
      c->set_duplicates(2);
      c->set_urls_suppressed(3);
      c->add_urls_sent(p == 0 ? 5 : 7);  // to partition 0
      c->add_urls_sent(p == 0 ? 11 : 13);  // to partition 1
      v1::FetcherCollectionStats* other = report.add_collections();
      other->set_collection("other");
      other->set_robots_denied(100);
      ASSERT_TRUE(manager_->FetcherReport(report).ok());
    }
  }
  Reopen();  // the reports are durable
  auto stats = manager_->Stats("s");
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->partitions_total(), 2u);
  EXPECT_EQ(stats->partitions_reporting(), 2u);
  EXPECT_EQ(stats->queued_urls(), 3u);
  EXPECT_EQ(stats->seen_urls(), 3u);
  EXPECT_FALSE(stats->exhausted());
  ASSERT_THAT(stats->outcomes(), SizeIs(1));
  EXPECT_EQ(stats->outcomes(0).count(), 40u);
  EXPECT_EQ(stats->robots_denied(), 4u);
  EXPECT_EQ(stats->duplicates(), 8u);
  EXPECT_EQ(stats->urls_suppressed(), 12u);
  // Exchanged: what each fetcher sent to partitions other than its own (11 + 7, twice).
  EXPECT_EQ(stats->urls_exchanged(), 36u);
  fleet_.SetDown(1, true);
  EXPECT_EQ(manager_->Stats("s")->partitions_reporting(), 1u);
}

TEST_F(CollectionManagerTest, ExplainCanonicalisesScopesAndLooksUpOnTheOwningPartition) {
  v1::Collection proto = Proto("x", {"http://a.test/"});
  proto.mutable_scope()->add_allowed_host_suffixes("a.test");
  ASSERT_TRUE(manager_->Create(proto).ok());
  auto explained = manager_->Explain("x", {"HTTP://A.TEST:80/#top", "http://b.test/", "::"});
  ASSERT_TRUE(explained.ok()) << explained.status();
  ASSERT_THAT(explained->explanations(), SizeIs(3));
  const v1::UrlExplanation& seed = explained->explanations(0);
  EXPECT_EQ(seed.canonical_url(), "http://a.test/");
  EXPECT_TRUE(seed.found());
  EXPECT_EQ(seed.scope_verdict(), v1::SCOPE_VERDICT_IN_SCOPE);
  EXPECT_EQ(seed.partition(), partition::Partition("a.test", 2));
  EXPECT_EQ(seed.record().status(), v1::URL_STATUS_QUEUED);
  const v1::UrlExplanation& other = explained->explanations(1);
  EXPECT_FALSE(other.found());
  EXPECT_EQ(other.scope_verdict(), v1::SCOPE_VERDICT_HOST_NOT_ALLOWED);
  EXPECT_FALSE(explained->explanations(2).error().empty());
}

TEST_F(CollectionManagerTest, UpdateChangesOnlyTheMaskedFieldsAndNeverNameOrSeeds) {
  ASSERT_TRUE(manager_->Create(Proto("u", {"http://a.test/"})).ok());
  v1::Collection change = Proto("u", {"http://ignored.test/"});
  change.mutable_limits()->set_max_pages(50);
  change.mutable_politeness()->mutable_min_delay()->set_seconds(7);
  google::protobuf::FieldMask mask;
  mask.add_paths("limits");
  auto updated = manager_->Update(change, mask);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->collection().limits().max_pages(), 50u);
  EXPECT_NE(updated->collection().politeness().min_delay().seconds(), 7);
  EXPECT_EQ(updated->collection().seeds(0), "http://a.test/");
  mask.add_paths("seeds");
  auto refused = manager_->Update(change, mask);
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("update_mask"));
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
  v1::Collection focused =
      Proto("f", {absl::StrCat("http://", hosts[0], "/"), absl::StrCat("http://", hosts[1], "/")});
  focused.mutable_limits()->set_max_pages(100);
  focused.mutable_focus()->set_target("external_links");
  focused.mutable_focus()->set_policy("r3");
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
  EXPECT_EQ(stats->focus_pulls(), 10u);
  EXPECT_EQ(stats->focus_reward(), 50u);
  // 90 pages left: posterior means (1 + 50) / (2 + 10) against 1 / 2, so 81 + 9 (rounded).
  EXPECT_THAT(stats->focus_page_budgets(), ::testing::ElementsAre(10 + 81, 9));

  // Links are recorded (and counted) by the fetchers too: record_links is accepted.
  ASSERT_TRUE(manager_->Create(Proto("g", {"http://a.test/"})).ok());
  v1::Collection change = Proto("g", {});
  change.set_record_links(true);
  google::protobuf::FieldMask mask;
  mask.add_paths("record_links");
  auto updated = manager_->Update(change, mask);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_TRUE(manager_->Get("g")->collection().record_links());
}

}  // namespace
}  // namespace crawler::scheduler
