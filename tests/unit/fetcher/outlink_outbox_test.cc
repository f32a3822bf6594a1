// OutlinkOutbox and its OutlinkSpool: a partition that fails or does not answer holds up only
// its own outlinks, which are kept on disk (durable before AddUrls returns), survive a restart,
// and reach the partition once it answers; the home partition's share goes at once.
#include "services/fetcher/outlink_outbox.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/log/recording_log_sink.h"
#include "lib/partition/partition.h"
#include "services/fetcher/outlink_spool.h"
#include "services/frontier/routed_frontier_client.h"

namespace crawler::fetcher {
namespace {

using frontier::UrlToAdd;

// A partition's frontier as the outbox sees it: AddUrls records what it took; it can refuse
// (down) or hang until let go (a frozen process: the call returns only at its deadline).
class FakePartition final : public frontier::FrontierClient {
 public:
  absl::StatusOr<frontier::AddResult> AddUrls(const std::vector<UrlToAdd>& urls) override {
    absl::MutexLock lock(&mu_);
    ++calls_;
    mu_.Await(absl::Condition(+[](bool* frozen) { return !*frozen; }, &frozen_));
    if (down_) return absl::UnavailableError("connection refused");
    for (const UrlToAdd& u : urls) {
      if (owner_count_ > 0 && partition::Partition(u.host_key, owner_count_) != owner_index_) {
        // As a frontier refuses a batch with a host of another partition (after a reshard).
        return absl::FailedPreconditionError("host " + u.host_key + " belongs to another partition");
      }
    }
    for (const UrlToAdd& u : urls) taken_.push_back(u.canonical_url);
    return frontier::AddResult{.added = urls.size()};
  }
  absl::StatusOr<std::vector<frontier::LeasedTask>> Lease(size_t, size_t) override {
    return std::vector<frontier::LeasedTask>{};
  }
  absl::StatusOr<frontier::CompleteResult> Complete(
      const std::vector<frontier::FetchOutcome>&) override {
    return frontier::CompleteResult{};
  }
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<frontier::LeaseId>&) override {
    return 0;
  }
  absl::StatusOr<frontier::FetcherControlTable> HostControls(uint64_t) override {
    return frontier::FetcherControlTable{};
  }
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<frontier::HostTime>&) override {
    return 0;
  }
  absl::StatusOr<bool> IsExhausted() override { return true; }
  absl::StatusOr<frontier::FrontierStats> Stats() override {
    frontier::FrontierStats s;
    s.exhausted = true;
    return s;
  }
  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> LookupUrls(
      const std::vector<std::string>&) override {
    return std::vector<std::optional<frontier::UrlRecord>>{};
  }
  absl::StatusOr<frontier::RevisitStatus> GetRevisitStatus() override {
    return frontier::RevisitStatus{};
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary&) override { return absl::OkStatus(); }

  void SetDown(bool down) {
    absl::MutexLock lock(&mu_);
    down_ = down;
  }
  // Refuses batches with a host that is not partition k's of `count` (0: takes any).
  void SetOwnership(uint32_t k, uint32_t count) {
    absl::MutexLock lock(&mu_);
    owner_index_ = k;
    owner_count_ = count;
  }
  void SetFrozen(bool frozen) {
    absl::MutexLock lock(&mu_);
    frozen_ = frozen;
  }
  std::vector<std::string> Taken() const {
    absl::MutexLock lock(&mu_);
    return taken_;
  }
  int calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  mutable absl::Mutex mu_;
  bool down_ ABSL_GUARDED_BY(mu_) = false;
  bool frozen_ ABSL_GUARDED_BY(mu_) = false;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  uint32_t owner_index_ ABSL_GUARDED_BY(mu_) = 0;
  uint32_t owner_count_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> taken_ ABSL_GUARDED_BY(mu_);
};

// Hosts owned by partition `k` of `partitions`.
std::string HostOf(uint32_t k, int i, uint32_t partitions = 2) {
  for (int n = i;; n += 1000) {
    std::string host = "h" + std::to_string(n) + ".example";
    if (partition::Partition(host, partitions) == k) return host;
  }
}

std::vector<UrlToAdd> Links(uint32_t k, int first, int count, uint32_t partitions = 2) {
  std::vector<UrlToAdd> out;
  for (int i = first; i < first + count; ++i) {
    const std::string host = HostOf(k, i, partitions);
    out.push_back({.canonical_url = "http://" + host + "/p" + std::to_string(i),
                   .host_key = host,
                   .depth = 1});
  }
  return out;
}

// Polls `done` (under a bound) while the couriers work; the clock moves so back-offs pass.
template <typename Done>
bool WaitFor(FakeClock& clock, Done done) {
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (!done()) {
    if (absl::Now() > deadline) return false;
    clock.Advance(absl::Seconds(1));
    absl::SleepFor(absl::Milliseconds(2));
  }
  return true;
}

class OutlinkOutboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "outlink_outbox_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    router_ = *frontier::RoutedFrontierClient::Create({.popular_cache_entries = 0},
                                                      {&home_, &other_}, 0);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<OutlinkOutbox> NewOutbox(uint64_t max_spool_bytes = uint64_t{1} << 30,
                                           frontier::RoutedFrontierClient* router = nullptr) {
    absl::StatusOr<std::unique_ptr<OutlinkOutbox>> outbox = OutlinkOutbox::Create(
        {.dir = dir_.string(),
         .handoff_wait = absl::Milliseconds(50),
         .max_spool_bytes = max_spool_bytes},
        router != nullptr ? *router : *router_, clock_, Logger(log_, "fetcher"));
    EXPECT_TRUE(outbox.ok()) << outbox.status();
    return outbox.ok() ? *std::move(outbox) : nullptr;
  }
  std::vector<std::string> Log() { return log_.lines(); }

  std::filesystem::path dir_;
  FakeClock clock_;
  FakePartition home_, other_, third_;
  std::unique_ptr<frontier::RoutedFrontierClient> router_;
  RecordingLogSink log_;
};

TEST_F(OutlinkOutboxTest, EachPartitionGetsItsShareWhenAllAnswer) {
  std::unique_ptr<OutlinkOutbox> outbox = NewOutbox();
  std::vector<UrlToAdd> links = Links(0, 0, 3);
  for (UrlToAdd& u : Links(1, 0, 2)) links.push_back(u);
  ASSERT_TRUE(outbox->AddUrls(links).ok());
  EXPECT_EQ(home_.Taken().size(), 3u);
  EXPECT_EQ(other_.Taken().size(), 2u) << "taken before AddUrls returned";
  EXPECT_EQ(outbox->Outbox().held_urls, 0u);
  EXPECT_EQ(outbox->Outbox().partitions_unreachable, 0u);
  EXPECT_TRUE(Log().empty());
}

TEST_F(OutlinkOutboxTest, AFrozenPartitionHoldsUpOnlyItsOwnOutlinks) {
  std::unique_ptr<OutlinkOutbox> outbox = NewOutbox();
  other_.SetFrozen(true);
  // The first hand-over waits handoff_wait for partition 1, then keeps its share on disk.
  ASSERT_TRUE(outbox->AddUrls(Links(1, 0, 4)).ok());
  EXPECT_EQ(outbox->Outbox().partitions_unreachable, 1u);
  EXPECT_EQ(outbox->Outbox().held_urls, 4u);
  // Later hand-overs keep its share without calling it; the home share goes at once.
  const int calls = other_.calls();
  for (int round = 0; round < 5; ++round) {
    std::vector<UrlToAdd> links = Links(0, 10 * round, 2);
    for (UrlToAdd& u : Links(1, 100 + 10 * round, 3)) links.push_back(u);
    ASSERT_TRUE(outbox->AddUrls(links).ok());
  }
  EXPECT_EQ(home_.Taken().size(), 10u);
  EXPECT_EQ(outbox->Outbox().held_urls, 4u + 15u);
  EXPECT_EQ(other_.calls(), calls) << "no call per hand-over to a partition known unreachable";
  EXPECT_FALSE(*outbox->IsExhausted()) << "URLs held for a partition make work";
  ASSERT_EQ(Log().size(), 1u);
  EXPECT_NE(Log()[0].find("frontier partition 1 unreachable"), std::string::npos) << Log()[0];

  // Thawed: everything kept reaches it, and the outbox says so once.
  other_.SetFrozen(false);
  ASSERT_TRUE(WaitFor(clock_, [&] { return outbox->Outbox().held_urls == 0; }));
  ASSERT_TRUE(WaitFor(clock_, [&] { return outbox->Outbox().partitions_unreachable == 0; }));
  std::vector<std::string> taken = other_.Taken();
  std::sort(taken.begin(), taken.end());
  taken.erase(std::unique(taken.begin(), taken.end()), taken.end());
  EXPECT_EQ(taken.size(), 19u);
  EXPECT_EQ(outbox->Outbox().urls_delivered_late, 19u);
  ASSERT_EQ(Log().size(), 2u);
  EXPECT_NE(Log()[1].find("answers again"), std::string::npos) << Log()[1];
  // Reachable again: shares go straight to it.
  ASSERT_TRUE(outbox->AddUrls(Links(1, 500, 2)).ok());
  EXPECT_EQ(outbox->Outbox().held_urls, 0u);
  EXPECT_TRUE(*outbox->IsExhausted());
}

TEST_F(OutlinkOutboxTest, AFailingPartitionsShareIsKeptAndSurvivesARestart) {
  other_.SetDown(true);
  {
    std::unique_ptr<OutlinkOutbox> outbox = NewOutbox();
    ASSERT_TRUE(outbox->AddUrls(Links(1, 0, 5)).ok());
    ASSERT_TRUE(outbox->AddUrls(Links(1, 5, 5)).ok());
    EXPECT_EQ(outbox->Outbox().held_urls, 10u);
  }  // the fetcher stops (or crashes: every share was synced before AddUrls returned)
  EXPECT_TRUE(other_.Taken().empty());
  other_.SetDown(false);
  std::unique_ptr<OutlinkOutbox> next = NewOutbox();
  EXPECT_EQ(next->Outbox().held_urls, 10u);
  ASSERT_TRUE(WaitFor(clock_, [&] { return next->Outbox().held_urls == 0; }));
  EXPECT_EQ(other_.Taken().size(), 10u);
}

// The URLs of `links` whose hosts partition k of `count` owns, sorted.
std::vector<std::string> OwnedBy(const std::vector<UrlToAdd>& links, uint32_t k, uint32_t count) {
  std::vector<std::string> out;
  for (const UrlToAdd& u : links) {
    if (partition::Partition(u.host_key, count) == k) out.push_back(u.canonical_url);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool LogHas(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& line : lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_F(OutlinkOutboxTest, URLsAPartitionRefusesAsAnothersAfterAReshardAreRoutedAgain) {
  // Routed by 2 of 3 partitions (a reshard to 3 under way), partition 1 down: its share is kept.
  std::unique_ptr<frontier::RoutedFrontierClient> router = *frontier::RoutedFrontierClient::Create(
      {.popular_cache_entries = 0}, {&home_, &other_, &third_}, 0);
  ASSERT_TRUE(router->SetRoutingCount(2).ok());
  std::unique_ptr<OutlinkOutbox> outbox = NewOutbox(uint64_t{1} << 30, router.get());
  other_.SetDown(true);
  const std::vector<UrlToAdd> links = Links(1, 0, 60);
  ASSERT_TRUE(outbox->AddUrls(links).ok());
  EXPECT_EQ(outbox->Outbox().held_urls, 60u);
  // The flip: routed by 3 now, and partition 1 answers again but, settled, refuses the hosts
  // that moved to partition 2. Each URL reaches its owner by 3, none is lost or stuck.
  ASSERT_TRUE(router->SetRoutingCount(3).ok());
  other_.SetOwnership(1, 3);
  third_.SetOwnership(2, 3);
  other_.SetDown(false);
  ASSERT_TRUE(WaitFor(clock_, [&] { return outbox->Outbox().held_urls == 0; }));
  ASSERT_FALSE(OwnedBy(links, 2, 3).empty()) << "some hosts move to partition 2";
  EXPECT_EQ(Sorted(other_.Taken()), OwnedBy(links, 1, 3));
  EXPECT_EQ(Sorted(third_.Taken()), OwnedBy(links, 2, 3));
  EXPECT_TRUE(home_.Taken().empty()) << "growing, hosts move only to the new partition";
  EXPECT_TRUE(*outbox->IsExhausted());
  EXPECT_TRUE(LogHas(Log(), "belong to other partitions now")) << testing::PrintToString(Log());
}

TEST_F(OutlinkOutboxTest, ASpoolOfAPartitionTheLayoutNoLongerHasIsRoutedAgain) {
  // Kept for partition 2 of 3 while it was down, and the fetcher stops.
  const std::vector<UrlToAdd> links = Links(2, 0, 40, /*partitions=*/3);
  {
    std::unique_ptr<frontier::RoutedFrontierClient> router =
        *frontier::RoutedFrontierClient::Create({.popular_cache_entries = 0},
                                                {&home_, &other_, &third_}, 0);
    std::unique_ptr<OutlinkOutbox> outbox = NewOutbox(uint64_t{1} << 30, router.get());
    third_.SetDown(true);
    ASSERT_TRUE(outbox->AddUrls(links).ok());
    EXPECT_EQ(outbox->Outbox().held_urls, 40u);
  }
  // The crawl shrank back to 2 partitions meanwhile: the next fetcher routes by 2, and what
  // was kept for partition 2 goes to the owners by 2 (the home partition's at once).
  std::unique_ptr<OutlinkOutbox> outbox = NewOutbox();
  ASSERT_TRUE(WaitFor(clock_, [&] { return outbox->Outbox().held_urls == 0; }));
  EXPECT_EQ(Sorted(home_.Taken()), OwnedBy(links, 0, 2));
  EXPECT_EQ(Sorted(other_.Taken()), OwnedBy(links, 1, 2));
  EXPECT_EQ(home_.Taken().size() + other_.Taken().size(), 40u);
  EXPECT_TRUE(third_.Taken().empty());
  EXPECT_TRUE(LogHas(Log(), "which the partition layout no longer has"))
      << testing::PrintToString(Log());
}

TEST_F(OutlinkOutboxTest, TheSpoolIsBounded) {
  other_.SetDown(true);
  std::unique_ptr<OutlinkOutbox> outbox = NewOutbox(/*max_spool_bytes=*/2000);
  absl::Status status = absl::OkStatus();
  for (int round = 0; round < 100 && status.ok(); ++round) {
    status = outbox->AddUrls(Links(1, 10 * round, 10)).status();
  }
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;  // retryable: the caller waits
  EXPECT_LE(outbox->Outbox().held_bytes, 2000u);
}

TEST(OutlinkSpoolTest, ATornTailIsDroppedAndTheRestDelivered) {
  std::string pattern = ::testing::TempDir() + "outlink_spool_test_XXXXXX";
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::filesystem::path dir = pattern;
  {
    std::unique_ptr<OutlinkSpool> spool = *OutlinkSpool::Open(dir.string(), 1 << 20);
    ASSERT_TRUE(spool->Append(Links(1, 0, 3)).ok());
    ASSERT_TRUE(spool->Sync().ok());
  }
  // A crash mid-append: half a record at the end.
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ofstream(e.path(), std::ios::app | std::ios::binary) << "\x30http://half";
  }
  std::unique_ptr<OutlinkSpool> spool = *OutlinkSpool::Open(dir.string(), 1 << 20);
  EXPECT_EQ(spool->urls(), 3u);
  absl::StatusOr<std::vector<UrlToAdd>> urls = spool->Peek(10);
  ASSERT_TRUE(urls.ok());
  ASSERT_EQ(urls->size(), 3u);
  EXPECT_EQ((*urls)[2], Links(1, 0, 3)[2]);
  ASSERT_TRUE(spool->Consume(3).ok());
  EXPECT_TRUE(spool->empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "a segment taken whole is deleted";
  std::filesystem::remove_all(dir);
}

// Sitemaps and the pages they list keep their level and hints through the spool; plain links
// keep the shorter record.
TEST(OutlinkSpoolTest, SitemapFieldsSurviveTheSpool) {
  std::string pattern = ::testing::TempDir() + "outlink_spool_sitemap_XXXXXX";
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::filesystem::path dir = pattern;
  std::vector<UrlToAdd> links = Links(1, 0, 3);
  links[0].sitemap_level = 2;
  links[1].sitemap = {.lastmod = absl::FromUnixSeconds(1'700'000'000) - absl::Microseconds(1),
                      .changefreq = 4,
                      .priority_permille = 750};
  links[2].sitemap.priority_permille = 0;
  {
    std::unique_ptr<OutlinkSpool> spool = *OutlinkSpool::Open(dir.string(), 1 << 20);
    ASSERT_TRUE(spool->Append(links).ok());
    ASSERT_TRUE(spool->Sync().ok());
  }
  std::unique_ptr<OutlinkSpool> spool = *OutlinkSpool::Open(dir.string(), 1 << 20);
  absl::StatusOr<std::vector<UrlToAdd>> back = spool->Peek(10);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, links);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace crawler::fetcher
