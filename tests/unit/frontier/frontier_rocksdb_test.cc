// The frontier on the real RocksDB store: a clean reopen, and a child process killed with
// SIGKILL in the middle of a crawl. Either way nothing queued is lost, leases come back, and
// nothing completed is handed out again (docs/architecture.md §2 "no URL is lost").
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/frontier/frontier.h"
#include "tests/unit/frontier/store_inspection.h"

namespace crawler::frontier {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "frontier_rocksdb_test_XXXXXX";
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string db() const { return path_ + "/db"; }

 private:
  std::string path_;
};

std::unique_ptr<kv::RocksDbKvStore> OpenStore(const std::string& path) {
  kv::RocksDbKvStoreOptions options;
  options.path = path;
  options.write_buffer_bytes = 1 << 20;
  options.block_cache_bytes = 4 << 20;
  absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store =
      kv::RocksDbKvStore::Open(options, Frontier::ColumnFamilies());
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

std::vector<UrlToAdd> Urls(int n) {
  std::vector<UrlToAdd> urls;
  for (int i = 0; i < n; ++i) {
    UrlToAdd url;
    url.host_key = "h" + std::to_string(i % 7) + ".test";
    url.canonical_url = "http://" + url.host_key + "/" + std::to_string(i);
    url.depth = static_cast<uint32_t>(i % 3);
    urls.push_back(url);
  }
  return urls;
}

FetchOutcome Fetched(const LeasedTask& task) {
  FetchOutcome outcome;
  outcome.lease_id = task.lease_id;
  outcome.outcome = OutcomeClass::kFetched;
  outcome.http_status = 200;
  return outcome;
}

// Leases and completes everything left; returns the URLs it completed.
std::vector<std::string> Drain(Frontier& frontier) {
  std::vector<std::string> completed;
  for (int round = 0; round < 1000 && !frontier.IsExhausted(); ++round) {
    absl::StatusOr<std::vector<LeasedTask>> tasks = frontier.Lease(64, 4);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    if (!tasks.ok()) break;
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& task : *tasks) {
      outcomes.push_back(Fetched(task));
      completed.push_back(task.canonical_url);
    }
    EXPECT_TRUE(frontier.Complete(outcomes).ok());
  }
  return completed;
}

TEST(FrontierOnRocksDb, ReopenedStoreResumesTheCrawl) {
  TempDir dir;
  FakeClock clock;
  FrontierOptions options;
  options.max_in_flight_per_host = 4;
  std::set<std::string> completed;
  {
    std::unique_ptr<kv::RocksDbKvStore> store = OpenStore(dir.db());
    ASSERT_NE(store, nullptr);
    auto frontier = Frontier::Open(options, *store, clock);
    ASSERT_TRUE(frontier.ok()) << frontier.status();
    ASSERT_EQ((*frontier)->AddUrls(Urls(100)).value().added, 100u);
    ASSERT_TRUE(store->Flush().ok());  // some state in files, some only in the log
    std::vector<LeasedTask> tasks = (*frontier)->Lease(20, 4).value();
    ASSERT_EQ(tasks.size(), 20u);
    std::vector<FetchOutcome> outcomes;
    for (size_t i = 0; i < 8; ++i) {
      outcomes.push_back(Fetched(tasks[i]));
      completed.insert(tasks[i].canonical_url);
    }
    ASSERT_EQ((*frontier)->Complete(outcomes).value().accepted, 8u);
  }  // frontier and store closed with 12 leases open

  std::unique_ptr<kv::RocksDbKvStore> store = OpenStore(dir.db());
  ASSERT_NE(store, nullptr);
  auto frontier = Frontier::Open(options, *store, clock);
  ASSERT_TRUE(frontier.ok()) << frontier.status();
  FrontierStats stats = (*frontier)->Stats();
  EXPECT_EQ(stats.leases_recovered, 12u);
  EXPECT_EQ(stats.queued_urls, 92u);
  EXPECT_EQ(stats.pages_completed, 8u);
  EXPECT_EQ(stats.seen_urls, 100u);
  EXPECT_EQ((*frontier)->AddUrls(Urls(100)).value().already_seen, 100u);

  std::vector<std::string> rest = Drain(**frontier);
  EXPECT_EQ(rest.size(), 92u);
  for (const std::string& url : rest) EXPECT_FALSE(completed.contains(url)) << url;
  EXPECT_EQ(std::set<std::string>(rest.begin(), rest.end()).size(), 92u);
  EXPECT_TRUE((*frontier)->IsExhausted());
  StoreInspection disk = Inspect(*store);
  EXPECT_TRUE(disk.queued.empty());
  EXPECT_TRUE(disk.leased.empty());
  EXPECT_EQ(disk.records.size(), 100u);
}

TEST(FrontierOnRocksDb, SigkillLosesNothing) {
  TempDir dir;
  // The child crawls until it is killed: it writes what it has completed to a pipe only after
  // Complete returned, so the parent knows a subset of what is durably done.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    FakeClock clock;
    std::unique_ptr<kv::RocksDbKvStore> store = OpenStore(dir.db());
    if (store == nullptr) _exit(2);
    FrontierOptions options;
    options.max_in_flight_per_host = 4;
    auto frontier = Frontier::Open(options, *store, clock);
    if (!frontier.ok() || !(*frontier)->AddUrls(Urls(200)).ok()) _exit(3);
    for (int round = 0; round < 5; ++round) {
      absl::StatusOr<std::vector<LeasedTask>> tasks = (*frontier)->Lease(16, 4);
      if (!tasks.ok()) _exit(4);
      std::vector<FetchOutcome> outcomes;
      for (size_t i = 0; i < tasks->size() / 2; ++i) outcomes.push_back(Fetched((*tasks)[i]));
      if (!(*frontier)->Complete(outcomes).ok()) _exit(5);
      for (size_t i = 0; i < tasks->size() / 2; ++i) {
        const std::string line = (*tasks)[i].canonical_url + "\n";
        if (write(fds[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
          _exit(6);
        }
      }
    }
    raise(SIGKILL);  // no destructors, no flush, no close
    _exit(7);
  }
  close(fds[1]);
  std::string reported;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;) reported.append(buffer, n);
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  ASSERT_EQ(WTERMSIG(status), SIGKILL);

  std::set<std::string> completed;
  for (size_t begin = 0, end; (end = reported.find('\n', begin)) != std::string::npos;
       begin = end + 1) {
    completed.insert(reported.substr(begin, end - begin));
  }
  ASSERT_FALSE(completed.empty());

  FakeClock clock;
  std::unique_ptr<kv::RocksDbKvStore> store = OpenStore(dir.db());
  ASSERT_NE(store, nullptr);
  FrontierOptions options;
  options.max_in_flight_per_host = 4;
  auto frontier = Frontier::Open(options, *store, clock);
  ASSERT_TRUE(frontier.ok()) << frontier.status();
  FrontierStats stats = (*frontier)->Stats();
  EXPECT_EQ(stats.seen_urls, 200u);
  EXPECT_EQ(stats.pages_completed, completed.size());
  EXPECT_GT(stats.leases_recovered, 0u);
  EXPECT_EQ(stats.queued_urls, 200u - completed.size());

  std::vector<std::string> rest = Drain(**frontier);
  EXPECT_EQ(rest.size(), 200u - completed.size());
  for (const std::string& url : rest) EXPECT_FALSE(completed.contains(url)) << url;
  std::set<std::string> all(rest.begin(), rest.end());
  all.insert(completed.begin(), completed.end());
  EXPECT_EQ(all.size(), 200u);
}

}  // namespace
}  // namespace crawler::frontier
