// A reshard of a running crawl, in the frontier core (Frontier::SetLayout, ListHostsToMove,
// BeginHostMove, ListHeldUrls, DeleteHeldUrls; docs/architecture.md §4), between two
// partitions on InMemoryKvStore and FakeClock: partition 0 of 1 grows to 2. URLs of a host that
// moves are taken while it is still here, held once it is moving or gone (and for new hosts
// that will live elsewhere), delivered to the new owner after the host lands; a moving host is
// not leased; its mark and the held URLs survive a restart; a reshard called off lets the host
// work again; after the flip the old layout's stragglers are held, and a misrouted URL is still
// refused.
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/partition/layout.h"
#include "lib/partition/partition.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/host_transfer.h"

namespace crawler::frontier {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

UrlToAdd U(const std::string& host, const std::string& path) {
  return UrlToAdd{.canonical_url = "http://" + host + path, .host_key = host, .depth = 1};
}

// The first host "hN.test" with Partition(host, 2) == `partition`, after `skip` such hosts.
std::string HostOf(uint32_t partition, int skip = 0) {
  for (int i = 0; i < 1000; ++i) {
    const std::string host = "h" + std::to_string(i) + ".test";
    if (partition::Partition(host, 2) == partition && skip-- == 0) return host;
  }
  return "";
}

struct Side {
  Side(uint32_t index, const FakeClock& fake_clock)
      : clock(fake_clock), store(Frontier::ColumnFamilies()) {
    options.max_in_flight_per_host = 100;
    options.partition_index = index;
    options.partition_count = 1;
    options.reshard_to = 2;
    Reopen();
  }
  void Reopen() {
    frontier.reset();
    absl::StatusOr<std::unique_ptr<Frontier>> opened = Frontier::Open(options, store, clock);
    ASSERT_TRUE(opened.ok()) << opened.status();
    frontier = *std::move(opened);
  }
  std::vector<std::string> LeasedHosts() {
    std::vector<std::string> hosts;
    absl::StatusOr<std::vector<LeasedTask>> tasks = frontier->Lease(1000, 1000);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    std::vector<LeaseId> ids;
    for (const LeasedTask& t : tasks.value_or(std::vector<LeasedTask>{})) {
      hosts.push_back(t.host_key);
      ids.push_back(t.lease_id);
    }
    EXPECT_TRUE(frontier->ReleaseLeases(ids).ok());
    return hosts;
  }
  AddResult Add(const std::vector<UrlToAdd>& urls) {
    absl::StatusOr<AddResult> result = frontier->AddUrls(urls);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(AddResult{});
  }

  const FakeClock& clock;
  FrontierOptions options;
  kv::InMemoryKvStore store;
  std::unique_ptr<Frontier> frontier;
};

void MoveHost(Frontier& from, Frontier& to, const std::string& host) {
  std::string after;
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<HostChunk> chunk = from.ExportHost(host, after, 2);
    ASSERT_TRUE(chunk.ok()) << chunk.status();
    ASSERT_TRUE(to.ImportHost(*chunk).ok());
    if (chunk->next.empty()) break;
    after = chunk->next;
  }
  ASSERT_TRUE(from.ForgetHost(host).ok());
}

std::vector<std::string> Held(Frontier& frontier) {
  absl::StatusOr<HeldUrls> page = frontier.ListHeldUrls(0, 100);
  EXPECT_TRUE(page.ok()) << page.status();
  std::vector<std::string> urls;
  for (const HeldUrl& held : page.value_or(HeldUrls{}).urls) urls.push_back(held.url.canonical_url);
  return urls;
}

class FrontierReshardTest : public ::testing::Test {
 protected:
  FrontierReshardTest()
      : stays_(HostOf(0)), moves_(HostOf(1)), other_(HostOf(1, 1)), old_(0, clock_),
        new_(1, clock_) {
    // Partition 0 crawled alone (1 partition) before the reshard to 2 began.
    old_.options.reshard_to = 0;
    old_.Reopen();
    old_.Add({U(stays_, "/"), U(moves_, "/"), U(moves_, "/a")});
    EXPECT_TRUE(old_.frontier->SetLayout({.epoch = 2, .count = 1, .reshard_to = 2}).ok());
  }

  FakeClock clock_;
  const std::string stays_;
  const std::string moves_;
  const std::string other_;
  Side old_;
  Side new_;
};

TEST_F(FrontierReshardTest, AHostMovesWithWhatArrivedBeforeAndGetsWhatArrivedAfter) {
  absl::StatusOr<HostsToMove> to_move = old_.frontier->ListHostsToMove(0, 10);
  ASSERT_TRUE(to_move.ok()) << to_move.status();
  EXPECT_THAT(to_move->host_keys, ElementsAre(moves_));
  EXPECT_EQ(to_move->total, 1u);

  // Still here and not moving: taken, and it moves with the host.
  EXPECT_EQ(old_.Add({U(moves_, "/b")}).added, 1u);
  // A new host that will live on partition 1: held from the start.
  EXPECT_EQ(old_.Add({U(other_, "/")}).held, 1u);

  absl::StatusOr<uint32_t> leased = old_.frontier->BeginHostMove(moves_);
  ASSERT_TRUE(leased.ok()) << leased.status();
  EXPECT_EQ(*leased, 0u);
  EXPECT_THAT(old_.LeasedHosts(), ElementsAre(stays_));  // a moving host is not leased
  const AddResult during = old_.Add({U(moves_, "/c"), U(moves_, "/a"), U(stays_, "/x")});
  EXPECT_EQ(during.held, 2u);  // /a too: only its new owner knows whether it is seen
  EXPECT_EQ(during.added, 1u);
  // Held URLs of a host still here wait for it; the new host's can go now.
  EXPECT_THAT(Held(*old_.frontier), ElementsAre("http://" + other_ + "/"));
  EXPECT_FALSE(old_.frontier->IsExhausted());
  EXPECT_EQ(old_.frontier->Stats().held_urls, 3u);
  EXPECT_EQ(old_.frontier->Stats().hosts_moving, 1u);

  MoveHost(*old_.frontier, *new_.frontier, moves_);
  EXPECT_EQ(old_.frontier->Stats().hosts_moving, 0u);
  absl::StatusOr<HeldUrls> held = old_.frontier->ListHeldUrls(0, 100);
  ASSERT_TRUE(held.ok());
  std::vector<UrlToAdd> deliver;
  std::vector<uint64_t> seqs;
  for (const HeldUrl& h : held->urls) {
    deliver.push_back(h.url);
    seqs.push_back(h.seq);
  }
  EXPECT_EQ(deliver.size(), 3u);
  // The new owner takes them: /a is seen there already (it came with the host).
  const AddResult delivered = new_.Add(deliver);
  EXPECT_EQ(delivered.added, 2u);
  EXPECT_EQ(delivered.already_seen, 1u);
  ASSERT_TRUE(old_.frontier->DeleteHeldUrls(seqs).ok());
  ASSERT_TRUE(old_.frontier->DeleteHeldUrls(seqs).ok());  // repeated: harmless
  EXPECT_EQ(old_.frontier->Stats().held_urls, 0u);
  EXPECT_THAT(new_.LeasedHosts(), UnorderedElementsAre(moves_, moves_, moves_, moves_, other_));
  absl::StatusOr<HostsToMove> after = old_.frontier->ListHostsToMove(0, 10);
  ASSERT_TRUE(after.ok());
  EXPECT_THAT(after->host_keys, IsEmpty());
}

// A sitemap held for its host's new owner is delivered as a sitemap, and a page a sitemap
// listed keeps what the entry said: the held value carries them (storage::HeldUrl).
TEST_F(FrontierReshardTest, AHeldSitemapIsDeliveredAsASitemap) {
  UrlToAdd sitemap = U(other_, "/sitemap.xml");
  sitemap.sitemap_level = 1;
  UrlToAdd listed = U(other_, "/page");
  listed.sitemap = {.lastmod = absl::FromUnixSeconds(1'700'000'000), .changefreq = 3};
  EXPECT_EQ(old_.Add({sitemap, listed}).held, 2u);
  absl::StatusOr<HeldUrls> held = old_.frontier->ListHeldUrls(0, 100);
  ASSERT_TRUE(held.ok()) << held.status();
  ASSERT_EQ(held->urls.size(), 2u);
  EXPECT_EQ(held->urls[0].url, sitemap);
  EXPECT_EQ(held->urls[1].url, listed);
  EXPECT_EQ(new_.Add({held->urls[0].url, held->urls[1].url}).added, 2u);
  absl::StatusOr<std::vector<LeasedTask>> tasks = new_.frontier->Lease(10, 10);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  ASSERT_EQ(tasks->size(), 2u);
  for (const LeasedTask& task : *tasks) {
    EXPECT_EQ(task.sitemap_level, task.canonical_url == sitemap.canonical_url ? 1 : 0)
        << task.canonical_url;
  }
}

TEST_F(FrontierReshardTest, TheMoveMarkAndTheHeldUrlsSurviveARestart) {
  ASSERT_TRUE(old_.frontier->BeginHostMove(moves_).ok());
  EXPECT_EQ(old_.Add({U(moves_, "/c")}).held, 1u);
  old_.options.reshard_to = 2;  // the layout the settings file keeps
  old_.Reopen();
  EXPECT_EQ(old_.frontier->Stats().hosts_moving, 1u);
  EXPECT_EQ(old_.frontier->Stats().held_urls, 1u);
  EXPECT_THAT(old_.LeasedHosts(), ElementsAre(stays_));
  EXPECT_EQ(old_.Add({U(moves_, "/d")}).held, 1u);  // numbered after the first
  MoveHost(*old_.frontier, *new_.frontier, moves_);
  absl::StatusOr<HeldUrls> held = old_.frontier->ListHeldUrls(0, 100);
  ASSERT_TRUE(held.ok());
  ASSERT_EQ(held->urls.size(), 2u);
  EXPECT_LT(held->urls[0].seq, held->urls[1].seq);
  EXPECT_EQ(held->urls[0].url.canonical_url, "http://" + moves_ + "/c");
}

TEST_F(FrontierReshardTest, AReshardCalledOffLetsItsMovingHostsWorkAgain) {
  ASSERT_TRUE(old_.frontier->BeginHostMove(moves_).ok());
  EXPECT_THAT(old_.LeasedHosts(), ElementsAre(stays_));
  ASSERT_TRUE(old_.frontier->SetLayout({.epoch = 3, .count = 1}).ok());
  EXPECT_EQ(old_.frontier->Stats().hosts_moving, 0u);
  EXPECT_THAT(old_.LeasedHosts(), UnorderedElementsAre(stays_, moves_, moves_));
  old_.options.reshard_to = 2;
  old_.Reopen();  // the mark is gone from the store too: a moving layout would restore it
  EXPECT_EQ(old_.frontier->Stats().hosts_moving, 0u);
}

TEST_F(FrontierReshardTest, AfterTheFlipTheOldLayoutsStragglersAreHeldAndOthersRefused) {
  MoveHost(*old_.frontier, *new_.frontier, moves_);
  // BeginHostMove was skipped: a host with nothing on lease may move unmarked too.
  const partition::PartitionLayout flipped{.epoch = 3, .count = 2, .resharded_from = 1};
  ASSERT_TRUE(old_.frontier->SetLayout(flipped).ok());
  ASSERT_TRUE(new_.frontier->SetLayout(flipped).ok());
  // A fetcher that routes by 1 partition still sends partition 1's hosts here.
  EXPECT_EQ(old_.Add({U(moves_, "/late")}).held, 1u);
  EXPECT_EQ(old_.Add({U(stays_, "/y")}).added, 1u);
  // Partition 1 never owned partition 0's hosts: refused, as any misrouted URL.
  const absl::StatusOr<AddResult> wrong = new_.frontier->AddUrls({U(stays_, "/z")});
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Held(*old_.frontier), ElementsAre("http://" + moves_ + "/late"));
  // Moving is over: nothing to move, no host can be marked.
  absl::StatusOr<HostsToMove> to_move = old_.frontier->ListHostsToMove(0, 10);
  ASSERT_TRUE(to_move.ok());
  EXPECT_EQ(to_move->total, 0u);
  EXPECT_EQ(old_.frontier->BeginHostMove(stays_).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(FrontierReshardTest, TheOperatorWaitsForAMovingHost) {
  ASSERT_TRUE(old_.frontier->BeginHostMove(moves_).ok());
  EXPECT_EQ(old_.frontier->DropHostQueue(moves_).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_TRUE(old_.frontier->GetHost(moves_).ok());  // reading is fine
}

TEST(FrontierLayoutTest, ALayoutOutsideThePartitionIsRefused) {
  FakeClock clock;
  kv::InMemoryKvStore store(Frontier::ColumnFamilies());
  FrontierOptions options;
  options.partition_index = 2;
  options.partition_count = 2;
  EXPECT_EQ(Frontier::Open(options, store, clock).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.reshard_to = 3;  // the partition a growing crawl adds
  absl::StatusOr<std::unique_ptr<Frontier>> opened = Frontier::Open(options, store, clock);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ((*opened)->SetLayout({.count = 2}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*opened)->SetLayout({.count = 2, .reshard_to = 2}).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::frontier
