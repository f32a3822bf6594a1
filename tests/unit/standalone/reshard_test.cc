// A standalone data dir resumed with another partition count (services/standalone/reshard.h):
// every host ends on its owner under the new count with the state it had, the count file says
// the new count, partitions beyond it are gone, a move cut short is finished only with its own
// count, and a collection whose hosts cannot move keeps its count.
#include "services/standalone/reshard.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/clock.h"
#include "lib/partition/partition.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/host_api.h"

namespace crawler::standalone {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

frontier::FrontierOptions OptionsFor(uint32_t k, uint32_t n) {
  frontier::FrontierOptions o;
  o.partition_index = k;
  o.partition_count = n;
  o.max_in_flight_per_host = 10;
  return o;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class ReshardTest : public ::testing::Test {
 protected:
  ReshardTest() {
    dir_ = fs::temp_directory_path() /
           absl::StrCat("reshard_test_", ::getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~ReshardTest() override { fs::remove_all(dir_); }

  struct Open {
    std::unique_ptr<kv::RocksDbKvStore> store;
    std::unique_ptr<frontier::Frontier> frontier;
  };
  Open OpenPartition(uint32_t k, uint32_t n) {
    Open p;
    auto store = kv::RocksDbKvStore::Open({.path = PartitionDir(dir_, k).string()},
                                          frontier::Frontier::ColumnFamilies());
    EXPECT_TRUE(store.ok()) << store.status();
    p.store = *std::move(store);
    auto opened = frontier::Frontier::Open(OptionsFor(k, n), *p.store, clock_);
    EXPECT_TRUE(opened.ok()) << opened.status();
    p.frontier = *std::move(opened);
    return p;
  }

  // 30 hosts of 3 URLs over n partitions, each on its owner; the first URL of every host
  // fetched. Returns each host's summary.
  std::map<std::string, frontier::HostSummary> Populate(uint32_t n) {
    std::map<std::string, frontier::HostSummary> hosts;
    for (uint32_t k = 0; k < n; ++k) {
      Open p = OpenPartition(k, n);
      std::vector<frontier::UrlToAdd> urls;
      for (int h = 0; h < 30; ++h) {
        const std::string host = absl::StrCat("h", h, ".test");
        if (partition::Partition(host, n) != k) continue;
        for (int i = 0; i < 3; ++i) {
          urls.push_back({.canonical_url = absl::StrCat("http://", host, "/", i),
                          .host_key = host,
                          .depth = static_cast<uint32_t>(i)});
        }
      }
      EXPECT_TRUE(p.frontier->AddUrls(urls).ok());
      auto tasks = p.frontier->Lease(1000, 1);
      EXPECT_TRUE(tasks.ok());
      std::vector<frontier::FetchOutcome> outcomes;
      for (const frontier::LeasedTask& t : *tasks) {
        outcomes.push_back(
            {.lease_id = t.lease_id, .http_status = 200, .fetch_time = clock_.Now()});
      }
      EXPECT_TRUE(p.frontier->Complete(outcomes).ok());
      auto listed = p.frontier->ListHosts({.page_size = 1000});
      EXPECT_TRUE(listed.ok());
      for (const frontier::HostSummary& s : listed->hosts) hosts[s.host_key] = s;
    }
    std::ofstream(dir_ / "partitions") << n << "\n";
    return hosts;
  }

  // Every host on its owner among n, as `want` says; nowhere else.
  void ExpectHeld(uint32_t n, const std::map<std::string, frontier::HostSummary>& want) {
    std::map<std::string, frontier::HostSummary> got;
    for (uint32_t k = 0; k < n; ++k) {
      Open p = OpenPartition(k, n);
      auto listed = p.frontier->ListHosts({.page_size = 1000});
      ASSERT_TRUE(listed.ok()) << listed.status();
      for (frontier::HostSummary s : listed->hosts) {
        EXPECT_EQ(partition::Partition(s.host_key, n), k) << s.host_key;
        EXPECT_TRUE(got.find(s.host_key) == got.end()) << s.host_key << " held twice";
        Normalize(s);
        got[s.host_key] = s;
      }
    }
    std::map<std::string, frontier::HostSummary> expected = want;
    for (auto& [key, s] : expected) Normalize(s);
    EXPECT_EQ(got, expected);
  }

  // What a summary says apart from where and when it was taken: its partition, "now" as the
  // next due time of a ready host, and the hint's nanoseconds (the store keeps microseconds).
  static void Normalize(frontier::HostSummary& s) {
    s.partition = 0;
    s.next_due = absl::InfiniteFuture();
    s.next_allowed = absl::FromUnixMicros(absl::ToUnixMicros(s.next_allowed));
  }

  absl::Status Ensure(int partitions, bool movable = true) {
    return EnsurePartitionCount({.data_dir = dir_,
                                 .partitions = partitions,
                                 .options_for = OptionsFor,
                                 .movable = movable,
                                 .not_movable_reason = "cannot move"});
  }

  fs::path dir_;
  SystemClock clock_;
};

TEST_F(ReshardTest, HostsMoveToTheirOwnersUnderTheNewCount) {
  const auto hosts = Populate(2);
  ASSERT_EQ(hosts.size(), 30u);
  ASSERT_TRUE(Ensure(3).ok());
  EXPECT_EQ(ReadFile(dir_ / "partitions"), "3\n");
  EXPECT_FALSE(fs::exists(dir_ / "partitions.moving"));
  ExpectHeld(3, hosts);
  ASSERT_TRUE(Ensure(3).ok());  // kept: nothing to do
  ASSERT_TRUE(Ensure(1).ok());
  EXPECT_EQ(ReadFile(dir_ / "partitions"), "1\n");
  EXPECT_FALSE(fs::exists(PartitionDir(dir_, 1)));
  EXPECT_FALSE(fs::exists(PartitionDir(dir_, 2)));
  ExpectHeld(1, hosts);
}

TEST_F(ReshardTest, AMoveCutShortIsFinishedWithItsOwnCount) {
  const auto hosts = Populate(1);
  // Cut short: one host's first URL imported on its new owner (no header yet), another's
  // import finished but not yet forgotten by the old owner.
  std::vector<std::string> moving;
  for (const auto& [key, s] : hosts) {
    if (partition::Partition(key, 2) == 1 && moving.size() < 2) moving.push_back(key);
  }
  ASSERT_EQ(moving.size(), 2u);
  {
    Open from = OpenPartition(0, 1);
    Open to = OpenPartition(1, 2);
    auto first = from.frontier->ExportHost(moving[0], "", 1);
    ASSERT_TRUE(first.ok() && !first->header.has_value());
    ASSERT_TRUE(to.frontier->ImportHost(*first).ok());
    auto whole = from.frontier->ExportHost(moving[1], "", 100);
    ASSERT_TRUE(whole.ok() && whole->header.has_value());
    ASSERT_TRUE(to.frontier->ImportHost(*whole).ok());
  }
  std::ofstream(dir_ / "partitions.moving") << "1 2\n";
  const absl::Status other = Ensure(3);
  EXPECT_TRUE(absl::IsFailedPrecondition(other)) << other;
  EXPECT_THAT(std::string(other.message()), HasSubstr("--partitions 2"));
  ASSERT_TRUE(Ensure(2).ok());
  EXPECT_EQ(ReadFile(dir_ / "partitions"), "2\n");
  ExpectHeld(2, hosts);
}

TEST_F(ReshardTest, HostsThatCannotMoveKeepTheCount) {
  Populate(2);
  const absl::Status refused = Ensure(3, /*movable=*/false);
  EXPECT_TRUE(absl::IsFailedPrecondition(refused)) << refused;
  EXPECT_THAT(std::string(refused.message()), HasSubstr("cannot move"));
  EXPECT_THAT(std::string(refused.message()), HasSubstr("--partitions 2"));
  EXPECT_EQ(ReadFile(dir_ / "partitions"), "2\n");
  EXPECT_FALSE(fs::exists(PartitionDir(dir_, 2)));
  std::ofstream(dir_ / "partitions") << "zero\n";
  EXPECT_TRUE(absl::IsDataLoss(Ensure(2)));
}

}  // namespace
}  // namespace crawler::standalone
