// Resharder (services/scheduler/resharder.h) over an InMemoryFleet of real frontier cores: a
// collection crawled by one partition grows to two while URLs keep arriving and one host has a
// URL on lease. Every host ends on its owner under two partitions with all its URLs (the leased
// one's host only once its lease is over), what arrived meanwhile is delivered, the layout
// flips and then settles; the progress survives a restart of the scheduler; a focused
// collection keeps a reshard from starting.
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/partition/layout.h"
#include "lib/partition/partition.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/scheduler/collection_manager.h"
#include "services/scheduler/grpc/proto_record_codec.h"
#include "services/scheduler/resharder.h"
#include "tests/unit/scheduler/in_memory_fleet.h"

namespace crawler::scheduler {
namespace {

std::vector<kv::ColumnFamilySpec> Families() {
  std::vector<kv::ColumnFamilySpec> families = CollectionManager::ColumnFamilies();
  for (const kv::ColumnFamilySpec& f : Resharder::ColumnFamilies()) families.push_back(f);
  return families;
}

frontier::UrlToAdd U(const std::string& host, const std::string& path) {
  return {.canonical_url = absl::StrCat("http://", host, path), .host_key = host, .depth = 1};
}

class ResharderTest : public ::testing::Test {
 protected:
  ResharderTest() : store_(Families()), fleet_(1, clock_, /*reachable=*/2) {
    for (int i = 0; i < 20; ++i) hosts_.push_back(absl::StrCat("h", i, ".test"));
    OpenScheduler();
    Collection news;
    news.name = "news";
    for (const std::string& h : hosts_) news.seeds.push_back(absl::StrCat("http://", h, "/"));
    EXPECT_TRUE(manager_->Create(news).ok());
    manager_->Tick(clock_.Now());
  }

  // The scheduler's start: the stored layout first, then the collections, then the resharder.
  void OpenScheduler(uint32_t partitions = 2) {
    resharder_.reset();
    manager_.reset();
    absl::StatusOr<ReshardStatus> loaded = Resharder::Load(store_, 1);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ASSERT_TRUE(fleet_.SetLayout(loaded->layout).ok());
    auto m = CollectionManager::Open({}, store_, fleet_, codec_, clock_);
    ASSERT_TRUE(m.ok()) << m.status();
    manager_ = *std::move(m);
    auto r = Resharder::Open({.partitions = partitions, .settle = absl::Seconds(10)}, *loaded,
                             store_, fleet_, *manager_, clock_);
    ASSERT_TRUE(r.ok()) << r.status();
    resharder_ = *std::move(r);
  }

  void Step() {
    resharder_->Tick(clock_.Now());
    manager_->Tick(clock_.Now());
    clock_.Advance(absl::Seconds(1));
  }

  // The hosts partition k holds URLs of, and their URLs.
  std::set<std::string> HostsOn(uint32_t k) {
    std::set<std::string> held;
    frontier::Frontier* core = fleet_.Core(k, "news");
    if (core == nullptr) return held;
    for (const std::string& h : hosts_) {
      if (core->GetHost(h).ok()) held.insert(h);
    }
    return held;
  }

  FakeClock clock_;
  const ProtoRecordCodec codec_;
  kv::InMemoryKvStore store_;
  InMemoryFleet fleet_;
  std::vector<std::string> hosts_;
  std::unique_ptr<CollectionManager> manager_;
  std::unique_ptr<Resharder> resharder_;
};

TEST_F(ResharderTest, OnePartitionGrowsToTwoWhileTheCrawlGoesOn) {
  std::vector<std::string> moving;
  for (const std::string& h : hosts_) {
    if (partition::Partition(h, 2) == 1) moving.push_back(h);
  }
  ASSERT_GE(moving.size(), 3u);
  frontier::Frontier* zero = fleet_.Core(0, "news");
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->Stats().seen_urls, 20u);
  // A fetcher holds a URL of one moving host on lease.
  std::vector<frontier::LeasedTask> leased = zero->Lease(100, 100).value();
  std::vector<frontier::LeaseId> others;
  frontier::LeasedTask held_back;
  for (const frontier::LeasedTask& t : leased) {
    if (t.host_key == moving[0]) {
      held_back = t;
    } else {
      others.push_back(t.lease_id);
    }
  }
  ASSERT_EQ(held_back.host_key, moving[0]);
  ASSERT_TRUE(zero->ReleaseLeases(others).ok());

  Step();  // starts: moving to 2
  EXPECT_EQ(resharder_->Status().layout.reshard_to, 2u);
  EXPECT_EQ(resharder_->Status().phase, ReshardStatus::Phase::kMoving);
  for (int i = 0; i < 3; ++i) {
    Step();
    // The crawl goes on: new URLs of every host, routed by the layout the fleet has now.
    std::vector<frontier::UrlToAdd> more;
    for (const std::string& h : hosts_) more.push_back(U(h, absl::StrCat("/", i)));
    const partition::PartitionLayout layout = fleet_.layout();
    for (const frontier::UrlToAdd& u : more) {
      ASSERT_TRUE(fleet_.Partition(layout.Owner(u.host_key), "news").AddUrls({u}).ok());
    }
  }
  // Everything moved but the host with a URL on lease.
  EXPECT_EQ(resharder_->Status().phase, ReshardStatus::Phase::kMoving);
  EXPECT_EQ(resharder_->Status().hosts_left, 1u);
  EXPECT_TRUE(HostsOn(0).contains(moving[0]));
  // Its fetch completes; the host moves, with that page done.
  ASSERT_TRUE(zero->Complete({{.lease_id = held_back.lease_id,
                               .outcome = frontier::OutcomeClass::kFetched,
                               .http_status = 200,
                               .fetch_time = clock_.Now()}})
                  .ok());
  for (int i = 0; i < 3; ++i) Step();
  ReshardStatus status = resharder_->Status();
  EXPECT_EQ(status.phase, ReshardStatus::Phase::kSettling);
  EXPECT_EQ(status.layout.count, 2u);
  EXPECT_EQ(status.layout.resharded_from, 1u);
  EXPECT_EQ(status.hosts_moved, moving.size());

  // Every host on its owner, whole: 1 seed and 3 URLs each, counted once over the fleet.
  std::set<std::string> on_one(moving.begin(), moving.end());
  EXPECT_EQ(HostsOn(1), on_one);
  for (const std::string& h : HostsOn(0)) EXPECT_EQ(partition::Partition(h, 2), 0u) << h;
  uint64_t seen = 0;
  uint64_t pages = 0;
  for (uint32_t k = 0; k < 2; ++k) {
    const frontier::FrontierStats stats = fleet_.Core(k, "news")->Stats();
    seen += stats.seen_urls;
    pages += stats.pages_completed;
    EXPECT_EQ(stats.held_urls, 0u);
  }
  EXPECT_EQ(seen, 80u);
  EXPECT_EQ(pages, 1u);
  absl::StatusOr<frontier::HostDetail> moved = fleet_.Core(1, "news")->GetHost(moving[0]);
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved->summary.pages, 1u);

  // A URL routed by the old layout after the flip is held by its old owner and delivered.
  ASSERT_TRUE(fleet_.Partition(0, "news").AddUrls({U(moving[1], "/late")}).ok());
  for (int i = 0; i < 12; ++i) Step();
  status = resharder_->Status();
  EXPECT_EQ(status.phase, ReshardStatus::Phase::kSteady);
  EXPECT_EQ(status.layout, (partition::PartitionLayout{.epoch = 3, .count = 2}));
  EXPECT_TRUE(fleet_.Core(1, "news")->LookupUrl(absl::StrCat("http://", moving[1], "/late")).ok());
  EXPECT_GE(status.held_delivered, 1u);
}

TEST_F(ResharderTest, AMoveCutShortByARestartGoesOnFromWhereItWas) {
  Step();
  Step();
  const ReshardStatus before = resharder_->Status();
  ASSERT_TRUE(before.layout.moving() || before.layout.resharded_from != 0);
  OpenScheduler();
  EXPECT_EQ(resharder_->Status().layout, before.layout);
  EXPECT_EQ(resharder_->Status().started, before.started);
  for (int i = 0; i < 15; ++i) Step();
  EXPECT_EQ(resharder_->Status().layout, (partition::PartitionLayout{.epoch = 3, .count = 2}));
  for (const std::string& h : HostsOn(1)) EXPECT_EQ(partition::Partition(h, 2), 1u) << h;
  for (const std::string& h : HostsOn(0)) EXPECT_EQ(partition::Partition(h, 2), 0u) << h;
  EXPECT_EQ(HostsOn(0).size() + HostsOn(1).size(), hosts_.size());
}

TEST_F(ResharderTest, AFocusedCollectionKeepsTheCountAsItIs) {
  Collection focused;
  focused.name = "f";
  focused.seeds = {"http://f.test/"};
  focused.limits.max_pages = 100;
  focused.focus.target = "external_links";
  focused.focus.policy = "r3";
  ASSERT_TRUE(manager_->Create(focused).ok());
  Step();
  const ReshardStatus status = resharder_->Status();
  EXPECT_EQ(status.phase, ReshardStatus::Phase::kBlocked);
  EXPECT_THAT(status.blocked_reason, ::testing::HasSubstr("collection f is focused"));
  EXPECT_EQ(status.layout.count, 1u);
  EXPECT_FALSE(status.layout.moving());
}

}  // namespace
}  // namespace crawler::scheduler
