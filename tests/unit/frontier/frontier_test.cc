// Frontier core tests on InMemoryKvStore and FakeClock (no RocksDB): the seen-set, queue order,
// leases and their expiry, completions, budgets, recovery after the process dies, and a
// randomised check that no URL is ever lost or completed twice (docs/architecture.md §2, §3).
#include "services/frontier/frontier.h"

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"
#include "tests/unit/frontier/counting_kv_store.h"
#include "tests/unit/frontier/store_inspection.h"

namespace crawler::frontier {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAreArray;

UrlToAdd U(const std::string& host, const std::string& path, uint32_t depth = 0,
           uint8_t priority = 0) {
  UrlToAdd url;
  url.canonical_url = "http://" + host + path;
  url.host_key = host;
  url.depth = depth;
  url.priority = priority;
  return url;
}

std::string Href(const std::string& host, const std::string& path) {
  return "http://" + host + path;
}

std::vector<std::string> UrlsOf(const std::vector<LeasedTask>& tasks) {
  std::vector<std::string> urls;
  for (const LeasedTask& task : tasks) urls.push_back(task.canonical_url);
  return urls;
}

FetchOutcome Outcome(const LeasedTask& task, OutcomeClass outcome = OutcomeClass::kFetched,
                     bool retry = false) {
  FetchOutcome out;
  out.lease_id = task.lease_id;
  out.outcome = outcome;
  out.http_status = outcome == OutcomeClass::kFetched ? 200 : 0;
  out.retry = retry;
  return out;
}

class FrontierTest : public ::testing::Test {
 protected:
  FrontierTest() : memory_(Frontier::ColumnFamilies()), store_(memory_) {}

  void Open(const FrontierOptions& options = FrontierOptions()) {
    options_ = options;
    frontier_.reset();  // like a killed process: nothing is flushed or completed
    absl::StatusOr<std::unique_ptr<Frontier>> frontier = Frontier::Open(options, store_, clock_);
    ASSERT_TRUE(frontier.ok()) << frontier.status();
    frontier_ = std::move(*frontier);
  }
  void Reopen() { Open(options_); }

  AddResult Add(const std::vector<UrlToAdd>& urls) {
    absl::StatusOr<AddResult> result = frontier_->AddUrls(urls);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(AddResult{});
  }
  std::vector<LeasedTask> Lease(size_t max_urls, size_t max_per_host) {
    absl::StatusOr<std::vector<LeasedTask>> tasks = frontier_->Lease(max_urls, max_per_host);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    return tasks.value_or(std::vector<LeasedTask>{});
  }
  CompleteResult Complete(const std::vector<FetchOutcome>& outcomes) {
    absl::StatusOr<CompleteResult> result = frontier_->Complete(outcomes);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(CompleteResult{});
  }
  // Leases everything currently leasable, host caps permitting.
  std::vector<LeasedTask> LeaseAll() { return Lease(100000, 100000); }

  UrlRecord Record(const std::string& url) {
    absl::StatusOr<UrlRecord> record = frontier_->LookupUrl(url);
    EXPECT_TRUE(record.ok()) << record.status();
    return record.value_or(UrlRecord{});
  }

  kv::InMemoryKvStore memory_;
  kv::CountingKvStore store_;
  FakeClock clock_;
  FrontierOptions options_;
  std::unique_ptr<Frontier> frontier_;
};

FrontierOptions Wide() {
  FrontierOptions options;
  options.max_in_flight_per_host = 1000;
  return options;
}

// ---- seen-set ----

TEST_F(FrontierTest, AddUrlsInsertsOnlyNewUrls) {
  Open();
  AddResult first = Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1")});
  EXPECT_EQ(first.added, 3u);
  EXPECT_EQ(first.already_seen, 0u);

  AddResult second = Add({U("a.test", "/2"), U("b.test", "/2"), U("b.test", "/2")});
  EXPECT_EQ(second.added, 1u);
  EXPECT_EQ(second.already_seen, 2u);  // one stored, one repeated within the batch

  FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.seen_urls, 4u);
  EXPECT_EQ(stats.queued_urls, 4u);
  EXPECT_EQ(stats.hosts, 2u);
  EXPECT_EQ(stats.hosts_with_queued_urls, 2u);
  EXPECT_EQ(Inspect(memory_).queued.size(), 4u);
}

TEST_F(FrontierTest, CompletedUrlsStaySeen) {
  Open();
  Add({U("a.test", "/1")});
  std::vector<LeasedTask> tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  Complete({Outcome(tasks[0])});
  AddResult again = Add({U("a.test", "/1")});
  EXPECT_EQ(again.added, 0u);
  EXPECT_EQ(again.already_seen, 1u);
  EXPECT_THAT(Lease(10, 10), IsEmpty());
}

TEST_F(FrontierTest, InvalidUrlsAreCountedNotStored) {
  FrontierOptions options;
  options.max_url_bytes = 64;
  Open(options);
  UrlToAdd no_host = U("a.test", "/x");
  no_host.host_key.clear();
  UrlToAdd long_host = U(std::string(256, 'h'), "/");
  UrlToAdd empty_url = U("a.test", "");
  empty_url.canonical_url.clear();
  AddResult result = Add(
      {no_host, long_host, empty_url, U("a.test", "/" + std::string(64, 'p')), U("a.test", "/ok")});
  EXPECT_EQ(result.invalid, 4u);
  EXPECT_EQ(result.added, 1u);
  EXPECT_EQ(frontier_->Stats().seen_urls, 1u);
}

TEST_F(FrontierTest, AddUrlsIsOneWriteBatch) {
  Open();
  std::vector<UrlToAdd> batch;
  for (int i = 0; i < 512; ++i)
    batch.push_back(U("h" + std::to_string(i % 40) + ".test", "/" + std::to_string(i)));
  const int before = store_.writes();
  EXPECT_EQ(Add(batch).added, 512u);
  EXPECT_EQ(store_.writes() - before, 1);
  const int before_lease = store_.writes();
  EXPECT_EQ(Lease(64, 1).size(), 40u);
  EXPECT_EQ(store_.writes() - before_lease, 1);
}

TEST_F(FrontierTest, LookupUrlTellsWhereAUrlStands) {
  Open();
  UrlToAdd url = U("a.test", "/page", 2, 5);
  url.discovered_from = "http://a.test/";
  Add({url});
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/other").status().code(),
            absl::StatusCode::kNotFound);
  UrlRecord record = Record(url.canonical_url);
  EXPECT_EQ(record.status, UrlStatus::kQueued);
  EXPECT_EQ(record.depth, 2u);
  EXPECT_EQ(record.priority, 5);
  EXPECT_EQ(record.discovered_from, "http://a.test/");
  EXPECT_EQ(record.first_seen, clock_.Now());
  EXPECT_FALSE(record.last_outcome.has_value());
}

// ---- order ----

TEST_F(FrontierTest, EachHostPopsBreadthFirst) {
  Open(Wide());
  Add({U("a.test", "/d2", 2), U("a.test", "/d0", 0), U("a.test", "/d1-first", 1)});
  Add({U("a.test", "/d1-second", 1), U("a.test", "/d0-second", 0)});
  std::vector<LeasedTask> tasks = Lease(10, 10);
  EXPECT_THAT(UrlsOf(tasks), ElementsAre(Href("a.test", "/d0"), Href("a.test", "/d0-second"),
                                         Href("a.test", "/d1-first"), Href("a.test", "/d1-second"),
                                         Href("a.test", "/d2")));
  EXPECT_EQ(tasks[0].depth, 0u);
  EXPECT_EQ(tasks[4].depth, 2u);
  EXPECT_EQ(tasks[0].host_key, "a.test");
}

TEST_F(FrontierTest, PriorityHintGoesBeforeDepth) {
  Open(Wide());
  Add({U("a.test", "/shallow", 0), U("a.test", "/deep-but-urgent", 3, 9),
       U("a.test", "/medium", 1, 1)});
  std::vector<LeasedTask> tasks = Lease(10, 10);
  EXPECT_THAT(UrlsOf(tasks), ElementsAre(Href("a.test", "/deep-but-urgent"),
                                         Href("a.test", "/medium"), Href("a.test", "/shallow")));
  EXPECT_EQ(tasks[0].priority, 9);
}

TEST_F(FrontierTest, MaxPerHostSpreadsALeaseOverHosts) {
  Open(Wide());
  for (const char* host : {"a.test", "b.test", "c.test"}) {
    for (int i = 0; i < 5; ++i) Add({U(host, "/" + std::to_string(i))});
  }
  std::vector<LeasedTask> tasks = Lease(100, 1);
  std::set<std::string> hosts;
  for (const LeasedTask& t : tasks) hosts.insert(t.host_key);
  EXPECT_EQ(tasks.size(), 3u);
  EXPECT_EQ(hosts.size(), 3u);
  EXPECT_EQ(Lease(100, 2).size(), 6u);
  EXPECT_EQ(Lease(4, 5).size(), 4u);  // max_urls binds before max_per_host
  EXPECT_THAT(Lease(0, 5), IsEmpty());
  EXPECT_THAT(Lease(5, 0), IsEmpty());
}

TEST_F(FrontierTest, ShallowerUrlAddedLaterStillPopsFirst) {
  Open(Wide());
  Add({U("a.test", "/d2-a", 2), U("a.test", "/d2-b", 2), U("a.test", "/d2-c", 2)});
  EXPECT_THAT(UrlsOf(Lease(1, 1)), ElementsAre(Href("a.test", "/d2-a")));
  Add({U("a.test", "/d1", 1)});  // sorts before where the last scan stopped
  EXPECT_THAT(UrlsOf(Lease(2, 2)), ElementsAre(Href("a.test", "/d1"), Href("a.test", "/d2-b")));
  EXPECT_EQ(frontier_->Stats().repairs, 0u);
}

TEST_F(FrontierTest, InFlightCapPerHost) {
  FrontierOptions options;
  options.max_in_flight_per_host = 2;
  Open(options);
  for (int i = 0; i < 5; ++i) Add({U("a.test", "/" + std::to_string(i))});
  std::vector<LeasedTask> first = Lease(10, 10);
  EXPECT_EQ(first.size(), 2u);
  EXPECT_THAT(Lease(10, 10), IsEmpty());
  EXPECT_EQ(frontier_->Stats().ready_hosts, 0u);
  Complete({Outcome(first[0])});
  std::vector<LeasedTask> next = Lease(10, 10);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].canonical_url, Href("a.test", "/2"));
}

TEST_F(FrontierTest, ReadyHostsGoInOrderOfNextAllowed) {
  Open();
  for (const char* host : {"a.test", "b.test", "c.test"}) Add({U(host, "/1"), U(host, "/2")});
  const absl::Time now = clock_.Now();
  ASSERT_TRUE(frontier_
                  ->ReportHostTimes({{"a.test", now - absl::Seconds(1)},
                                     {"b.test", now - absl::Seconds(3)},
                                     {"c.test", now - absl::Seconds(2)},
                                     {"unknown.test", now}})
                  .ok());
  std::vector<std::string> order;
  for (int i = 0; i < 4; ++i) {
    std::vector<LeasedTask> tasks = Lease(1, 1);
    ASSERT_EQ(tasks.size(), 1u);
    order.push_back(tasks[0].host_key);
    clock_.Advance(absl::Seconds(1));
  }
  // Leasing moved each host's hint to its lease time, so b.test's turn comes again first.
  EXPECT_THAT(order, ElementsAre("b.test", "c.test", "a.test", "b.test"));
}

TEST_F(FrontierTest, HostsNotYetAllowedAreNotLeased) {
  Open();
  for (const char* host : {"a.test", "b.test", "c.test"}) Add({U(host, "/")});
  const absl::Time now = clock_.Now();
  ASSERT_EQ(frontier_
                ->ReportHostTimes(
                    {{"a.test", now + absl::Seconds(5)}, {"b.test", now + absl::Seconds(10)}})
                .value(),
            2u);
  EXPECT_EQ(frontier_->Stats().next_ready_time, absl::InfinitePast());  // c: no hint
  std::vector<LeasedTask> tasks = Lease(10, 10);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].host_key, "c.test");
  EXPECT_EQ(frontier_->Stats().next_ready_time, now + absl::Seconds(5));
  clock_.Advance(absl::Seconds(5));
  tasks = Lease(10, 10);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].host_key, "a.test");
  clock_.Advance(absl::Seconds(4));
  EXPECT_THAT(Lease(10, 10), IsEmpty());
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(Lease(10, 10).size(), 1u);
}

TEST_F(FrontierTest, ReadyHorizonLeasesAhead) {
  FrontierOptions options;
  options.ready_horizon = absl::Seconds(3);
  Open(options);
  Add({U("a.test", "/"), U("b.test", "/")});
  const absl::Time now = clock_.Now();
  ASSERT_TRUE(frontier_
                  ->ReportHostTimes(
                      {{"a.test", now + absl::Seconds(3)}, {"b.test", now + absl::Seconds(4)}})
                  .ok());
  std::vector<LeasedTask> tasks = Lease(10, 10);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].host_key, "a.test");
}

TEST_F(FrontierTest, CompletionHintOrdersHosts) {
  Open();
  Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1"), U("b.test", "/2")});
  std::vector<LeasedTask> tasks = Lease(2, 1);
  ASSERT_EQ(tasks.size(), 2u);
  std::vector<FetchOutcome> outcomes;
  for (const LeasedTask& t : tasks) {
    FetchOutcome o = Outcome(t);
    o.host_next_allowed =
        clock_.Now() + (t.host_key == "a.test" ? absl::Seconds(20) : absl::Seconds(10));
    outcomes.push_back(o);
  }
  Complete(outcomes);
  clock_.Advance(absl::Seconds(30));
  EXPECT_EQ(Lease(1, 1)[0].host_key, "b.test");
}

// A retry is leased when both its backoff and its host's hint have passed: the fetcher hints a
// host whose robots.txt is unreachable until robots.txt is due again.
TEST_F(FrontierTest, RetryWaitsForTheHostHint) {
  Open();
  Add({U("a.test", "/1")});
  std::vector<LeasedTask> tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  FetchOutcome o = Outcome(tasks[0]);
  o.outcome = OutcomeClass::kRobotsDenied;
  o.retry = true;
  o.host_next_allowed = clock_.Now() + absl::Minutes(30);
  Complete({o});
  clock_.Advance(absl::Minutes(2));  // past the first retry's backoff (1 min)
  EXPECT_TRUE(Lease(1, 1).empty());
  clock_.Advance(absl::Minutes(29));
  tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].canonical_url, "http://a.test/1");
  EXPECT_EQ(tasks[0].attempt, 2u);
}

// ---- leases ----

TEST_F(FrontierTest, LeaseCarriesDeadlineAndUniqueIds) {
  Open(Wide());
  Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1")});
  const StoreInspection before = Inspect(memory_);
  std::vector<LeasedTask> tasks = Lease(10, 10);
  ASSERT_EQ(tasks.size(), 3u);
  std::set<LeaseId> ids;
  for (const LeasedTask& t : tasks) {
    EXPECT_NE(t.lease_id, 0u);
    ids.insert(t.lease_id);
    EXPECT_EQ(t.deadline, clock_.Now() + absl::Minutes(2));
    EXPECT_EQ(t.attempt, 1u);
    EXPECT_FALSE(t.previous.has_value());
  }
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(frontier_->Stats().in_flight_urls, 3u);
  // Leased URLs keep their queue entries (nothing per URL is written), and the host records
  // are not rewritten: the meta family counts the leases out.
  StoreInspection disk = Inspect(memory_);
  EXPECT_EQ(disk.hosts, before.hosts);
  EXPECT_EQ(disk.queued.size(), 3u);
  EXPECT_TRUE(disk.leased.empty());
  EXPECT_EQ(disk.hosts_queued, 3u);
  EXPECT_EQ(disk.hosts_leased, 0u);
  EXPECT_EQ(disk.leases_out, 3u);
  EXPECT_EQ(frontier_->Stats().queued_urls, 0u);
  // Complete removes them.
  std::vector<FetchOutcome> outcomes;
  for (const LeasedTask& t : tasks) outcomes.push_back(Outcome(t));
  Complete(outcomes);
  disk = Inspect(memory_);
  EXPECT_TRUE(disk.queued.empty());
  EXPECT_EQ(disk.hosts_queued, 0u);
  EXPECT_EQ(disk.hosts_leased, 0u);
  EXPECT_EQ(disk.leases_out, 0u);
}

TEST_F(FrontierTest, LeaseRecordsOfAnEarlierVersionAreRequeued) {
  // Earlier versions moved a leased URL out of its queue into frontier.leases. Build that state
  // by hand: /1 leased (lease id 7), /2 queued.
  Open();
  Add({U("a.test", "/1"), U("a.test", "/2")});
  frontier_.reset();
  StoreInspection before = Inspect(memory_);
  ASSERT_EQ(before.queued.size(), 2u);
  const UrlRecord first = before.records.at(Href("a.test", "/1"));
  const storage::QueuePos pos{storage::BandOfPriority(first.priority), first.depth, first.seq};
  storage::HostRecord host = before.hosts.at("a.test");
  host.queued = 1;
  storage::LeaseRecord lease;
  lease.host_id = first.host_id;
  lease.pos = pos;
  lease.url = Href("a.test", "/1");
  kv::WriteBatch batch;
  batch.Delete(storage::kQueueFamily, storage::QueueKey(first.host_id, pos));
  batch.Put(storage::kLeasesFamily, storage::LeaseKey(7), storage::EncodeLeaseRecord(lease));
  batch.Put(storage::kHostsFamily, "a.test", storage::EncodeHostRecord(host));
  batch.Put(storage::kMetaFamily, storage::kMetaNextLeaseIdKey, storage::EncodeFixed64(8));
  ASSERT_TRUE(memory_.Write(batch).ok());

  Reopen();
  FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.leases_recovered, 1u);
  EXPECT_EQ(stats.queued_urls, 2u);
  StoreInspection after = Inspect(memory_);
  EXPECT_TRUE(after.leased.empty());
  EXPECT_EQ(after.queued.size(), 2u);
  EXPECT_EQ(after.hosts_queued, 2u);
  std::vector<LeasedTask> tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].canonical_url, Href("a.test", "/1"));  // back at its place in the queue
  EXPECT_GT(tasks[0].lease_id, 7u);                         // lease ids are never reused
}

TEST_F(FrontierTest, LeasesOfAPreviousProcessAreCountedOnce) {
  Open(Wide());
  Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1")});
  ASSERT_EQ(Lease(10, 10).size(), 3u);
  Reopen();
  EXPECT_EQ(frontier_->Stats().leases_recovered, 3u);
  EXPECT_EQ(Inspect(memory_).hosts_leased, 0u);
  Reopen();  // nothing was leased in between
  EXPECT_EQ(frontier_->Stats().leases_recovered, 0u);
  EXPECT_EQ(frontier_->Stats().queued_urls, 3u);
}

FrontierOptions Restoring() {
  FrontierOptions options = Wide();
  options.restored_lease_grace = absl::Seconds(15);
  return options;
}

TEST_F(FrontierTest, WithAGraceLeasesOutlastARestartAndTheirCompletionsAreTaken) {
  Open(Restoring());
  Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1")});
  std::vector<LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(Inspect(memory_).leased.size(), 3u) << "a mark per lease";
  Complete({Outcome(tasks[0])});
  EXPECT_EQ(Inspect(memory_).leased.size(), 2u) << "the completion deletes its mark";

  Reopen();
  FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.leases_restored, 2u);
  EXPECT_EQ(stats.leases_recovered, 0u);
  EXPECT_EQ(stats.in_flight_urls, 2u);
  EXPECT_TRUE(LeaseAll().empty()) << "restored leases are not handed out again";
  // The fetcher that held them completes them after the restart.
  CompleteResult result = Complete({Outcome(tasks[1]), Outcome(tasks[2])});
  EXPECT_EQ(result.accepted, 2u);
  EXPECT_TRUE(result.unknown_leases.empty());
  EXPECT_EQ(Record(tasks[1].canonical_url).status, UrlStatus::kDone);
  StoreInspection after = Inspect(memory_);
  EXPECT_TRUE(after.leased.empty());
  EXPECT_TRUE(after.queued.empty());
  EXPECT_EQ(after.hosts_leased, 0u);
  // New lease ids stay above the restored ones.
  Add({U("c.test", "/1")});
  std::vector<LeasedTask> later = LeaseAll();
  ASSERT_EQ(later.size(), 1u);
  EXPECT_GT(later[0].lease_id, tasks[2].lease_id);
}

TEST_F(FrontierTest, RestoredLeasesComeBackAfterTheGraceAndStaleOnesAtOnce) {
  FrontierOptions options = Restoring();
  options.lease_duration = absl::Minutes(2);
  Open(options);
  Add({U("a.test", "/1"), U("b.test", "/1")});
  std::vector<LeasedTask> old = Lease(1, 1);  // a.test/1, deadline in 2 min
  ASSERT_EQ(old.size(), 1u);
  clock_.Advance(absl::Minutes(3));
  std::vector<LeasedTask> fresh = Lease(1, 1);  // the first expired and came back
  ASSERT_EQ(fresh.size(), 1u);
  std::vector<LeasedTask> other = Lease(1, 1);
  ASSERT_EQ(other.size(), 1u);

  clock_.Advance(absl::Seconds(30));
  Reopen();
  EXPECT_EQ(frontier_->Stats().leases_restored, 2u);
  EXPECT_TRUE(LeaseAll().empty());
  clock_.Advance(absl::Seconds(16));  // past the grace, well before the leases' own deadlines
  std::vector<LeasedTask> again = LeaseAll();
  EXPECT_EQ(again.size(), 2u);
  EXPECT_EQ(frontier_->Stats().leases_expired, 2u);
  EXPECT_EQ(Inspect(memory_).leased.size(), 2u) << "the new leases' marks only";
  CompleteResult late = Complete({Outcome(fresh[0])});
  EXPECT_EQ(late.unknown_leases.size(), 1u) << "a lease that expired is not taken";

  // A mark whose deadline passed while the frontier was down: leased again at once.
  clock_.Advance(absl::Minutes(3));
  Reopen();
  EXPECT_EQ(frontier_->Stats().leases_restored, 0u);
  EXPECT_EQ(frontier_->Stats().leases_recovered, 2u);
  EXPECT_TRUE(Inspect(memory_).leased.empty());
  EXPECT_EQ(LeaseAll().size(), 2u);
}

TEST_F(FrontierTest, ReleasedLeasesDropTheirMarksAndWithoutAGraceNoneAreWritten) {
  Open(Restoring());
  Add({U("a.test", "/1"), U("a.test", "/2")});
  std::vector<LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 2u);
  ASSERT_EQ(frontier_->ReleaseLeases({tasks[0].lease_id}).value(), 1u);
  EXPECT_EQ(Inspect(memory_).leased.size(), 1u);

  Open(Wide());  // no grace: the mark left is dropped and its URL leased again
  EXPECT_EQ(frontier_->Stats().leases_restored, 0u);
  EXPECT_EQ(frontier_->Stats().leases_recovered, 1u);
  EXPECT_TRUE(Inspect(memory_).leased.empty());
  EXPECT_EQ(LeaseAll().size(), 2u);
  EXPECT_TRUE(Inspect(memory_).leased.empty()) << "no marks without a grace";
}

TEST_F(FrontierTest, ExpiredLeaseReturnsToTheHeadOfItsQueue) {
  Open();
  Add({U("a.test", "/first"), U("a.test", "/second")});
  std::vector<LeasedTask> first = Lease(1, 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].canonical_url, Href("a.test", "/first"));

  clock_.Advance(absl::Minutes(2) - absl::Microseconds(1));
  EXPECT_EQ(frontier_->ExpireLeases().value(), 0u);
  clock_.Advance(absl::Microseconds(1));
  EXPECT_EQ(frontier_->ExpireLeases().value(), 1u);
  EXPECT_EQ(frontier_->Stats().in_flight_urls, 0u);
  EXPECT_EQ(frontier_->Stats().queued_urls, 2u);

  std::vector<LeasedTask> again = Lease(1, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].canonical_url, Href("a.test", "/first"));
  EXPECT_NE(again[0].lease_id, first[0].lease_id);

  // The old lease is gone: its late completion is reported and ignored.
  CompleteResult late = Complete({Outcome(first[0])});
  EXPECT_EQ(late.accepted, 0u);
  EXPECT_THAT(late.unknown_leases, ElementsAre(first[0].lease_id));
  EXPECT_EQ(Record(first[0].canonical_url).status, UrlStatus::kQueued);
  EXPECT_EQ(frontier_->Stats().leases_expired, 1u);
}

// A fetcher that stops hands back the leases it did not start: their URLs are leased again at
// once, at the head of their queue, and the attempt is not counted.
TEST_F(FrontierTest, ReleasedLeaseIsLeasedAgainAtOnce) {
  FrontierOptions options;
  options.max_in_flight_per_host = 1;
  Open(options);
  Add({U("a.test", "/first"), U("a.test", "/second"), U("b.test", "/1")});
  std::vector<LeasedTask> first = Lease(10, 1);
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(first[0].canonical_url, Href("a.test", "/first"));
  EXPECT_THAT(Lease(10, 10), IsEmpty());  // a.test is at its in-flight cap

  // Unknown and repeated ids are ignored.
  absl::StatusOr<size_t> released =
      frontier_->ReleaseLeases({first[0].lease_id, 987654, first[0].lease_id});
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(*released, 1u);
  FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.leases_released, 1u);
  EXPECT_EQ(stats.leases_expired, 0u);
  EXPECT_EQ(stats.in_flight_urls, 1u);
  EXPECT_EQ(stats.queued_urls, 2u);  // both of a.test; b.test/1 is on lease

  // No clock movement: the URL is back at the head of its queue.
  std::vector<LeasedTask> again = Lease(10, 10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].canonical_url, Href("a.test", "/first"));
  EXPECT_EQ(again[0].attempt, first[0].attempt);
  EXPECT_NE(again[0].lease_id, first[0].lease_id);
  EXPECT_EQ(Record(Href("a.test", "/first")).attempts, 0u);

  // The released lease is gone: its completion is reported unknown and ignored.
  CompleteResult late = Complete({Outcome(first[0])});
  EXPECT_EQ(late.accepted, 0u);
  EXPECT_THAT(late.unknown_leases, ElementsAre(first[0].lease_id));
  EXPECT_EQ(Record(Href("a.test", "/first")).status, UrlStatus::kQueued);
  // ...and releasing it again (or an empty list) changes nothing.
  EXPECT_EQ(frontier_->ReleaseLeases({first[0].lease_id}).value(), 0u);
  EXPECT_EQ(frontier_->ReleaseLeases({}).value(), 0u);
  EXPECT_EQ(frontier_->Stats().leases_released, 1u);

  // The new lease completes normally; the released one never expires later.
  EXPECT_EQ(Complete({Outcome(again[0]), Outcome(first[1])}).accepted, 2u);
  clock_.Advance(absl::Minutes(10));
  EXPECT_EQ(frontier_->ExpireLeases().value(), 0u);
  EXPECT_EQ(LeaseAll().size(), 1u);  // a.test/second
}

// A released lease survives a restart as any queued URL does (nothing of it was on lease).
TEST_F(FrontierTest, ReleasedLeaseIsNotRecoveredAsALease) {
  Open();
  Add({U("a.test", "/1"), U("a.test", "/2")});
  std::vector<LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(frontier_->ReleaseLeases({tasks[0].lease_id}).value(), 1u);
  Reopen();
  EXPECT_EQ(frontier_->Stats().leases_recovered, 1u);
  EXPECT_EQ(frontier_->Stats().queued_urls, 2u);
  EXPECT_EQ(LeaseAll().size(), 2u);
}

TEST_F(FrontierTest, LeaseExpiresOverdueLeasesItself) {
  Open();
  Add({U("a.test", "/1")});
  ASSERT_EQ(Lease(1, 1).size(), 1u);
  clock_.Advance(absl::Minutes(3));
  EXPECT_EQ(Lease(1, 1).size(), 1u);
}

// ---- completions ----

TEST_F(FrontierTest, CompletionRecordsTheOutcome) {
  Open();
  Add({U("a.test", "/")});
  std::vector<LeasedTask> tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  FetchOutcome outcome = Outcome(tasks[0]);
  outcome.etag = "\"v1\"";
  outcome.last_modified = "Mon, 01 Jan 2024 00:00:00 GMT";
  outcome.content_fingerprint = 0xfeedface;
  outcome.content_length = 1234;
  outcome.fetch_time = clock_.Now() - absl::Seconds(1);
  CompleteResult result = Complete({outcome});
  EXPECT_EQ(result.accepted, 1u);
  EXPECT_THAT(result.unknown_leases, IsEmpty());

  UrlRecord record = Record(tasks[0].canonical_url);
  EXPECT_EQ(record.status, UrlStatus::kDone);
  EXPECT_EQ(record.last_outcome, OutcomeClass::kFetched);
  EXPECT_EQ(record.http_status, 200);
  EXPECT_EQ(record.etag, "\"v1\"");
  EXPECT_EQ(record.last_modified, "Mon, 01 Jan 2024 00:00:00 GMT");
  EXPECT_EQ(record.content_fingerprint, 0xfeedfaceu);
  EXPECT_EQ(record.content_length, 1234u);
  EXPECT_EQ(record.fetch_time, outcome.fetch_time);
  EXPECT_EQ(record.fetch_count, 1u);

  FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.in_flight_urls, 0u);
  EXPECT_EQ(stats.pages_completed, 1u);
  EXPECT_EQ(stats.completions_accepted, 1u);
  EXPECT_TRUE(Inspect(memory_).leased.empty());
  EXPECT_TRUE(frontier_->IsExhausted());
}

TEST_F(FrontierTest, MissingFetchTimeIsTheCompletionTime) {
  Open();
  Add({U("a.test", "/")});
  std::vector<LeasedTask> tasks = Lease(1, 1);
  clock_.Advance(absl::Seconds(7));
  Complete({Outcome(tasks[0])});
  EXPECT_EQ(Record(tasks[0].canonical_url).fetch_time, clock_.Now());
}

TEST_F(FrontierTest, OversizedValidatorsAreDropped) {
  Open();
  Add({U("a.test", "/")});
  std::vector<LeasedTask> tasks = Lease(1, 1);
  FetchOutcome outcome = Outcome(tasks[0]);
  outcome.etag = std::string(2000, 'e');
  outcome.last_modified = "ok";
  Complete({outcome});
  UrlRecord record = Record(tasks[0].canonical_url);
  EXPECT_EQ(record.etag, "");
  EXPECT_EQ(record.last_modified, "ok");
}

TEST_F(FrontierTest, UnknownAndRepeatedLeasesAreReported) {
  Open();
  Add({U("a.test", "/")});
  std::vector<LeasedTask> tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  FetchOutcome bogus;
  bogus.lease_id = 987654;
  CompleteResult result = Complete({Outcome(tasks[0]), Outcome(tasks[0]), bogus});
  EXPECT_EQ(result.accepted, 1u);
  EXPECT_THAT(result.unknown_leases, ElementsAre(tasks[0].lease_id, 987654u));
  EXPECT_EQ(Record(tasks[0].canonical_url).fetch_count, 1u);
  EXPECT_EQ(frontier_->Stats().pages_completed, 1u);
  result = Complete({Outcome(tasks[0])});
  EXPECT_THAT(result.unknown_leases, ElementsAre(tasks[0].lease_id));
  EXPECT_EQ(frontier_->Stats().completions_unknown, 3u);
}

TEST_F(FrontierTest, OutOfRangeOutcomeClassChangesNothing) {
  Open();
  Add({U("a.test", "/")});
  std::vector<LeasedTask> tasks = Lease(1, 1);
  FetchOutcome bad = Outcome(tasks[0]);
  bad.outcome = static_cast<OutcomeClass>(0);
  EXPECT_EQ(frontier_->Complete({Outcome(tasks[0]), bad}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(frontier_->Stats().in_flight_urls, 1u);
  EXPECT_EQ(Complete({Outcome(tasks[0])}).accepted, 1u);
}

TEST_F(FrontierTest, RetriesBackOffThenGiveUp) {
  FrontierOptions options;
  options.max_attempts = 3;
  options.retry_backoff_initial = absl::Minutes(1);
  options.retry_backoff_max = absl::Minutes(10);
  Open(options);
  Add({U("a.test", "/flaky")});
  const std::string url = Href("a.test", "/flaky");

  std::vector<LeasedTask> tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  CompleteResult result = Complete({Outcome(tasks[0], OutcomeClass::kNetworkError, true)});
  EXPECT_EQ(result.retries_scheduled, 1u);
  UrlRecord record = Record(url);
  EXPECT_EQ(record.status, UrlStatus::kWaiting);
  EXPECT_EQ(record.attempts, 1u);
  EXPECT_EQ(record.next_visit, clock_.Now() + absl::Minutes(1));
  EXPECT_EQ(frontier_->Stats().waiting_urls, 1u);
  EXPECT_FALSE(frontier_->IsExhausted());
  EXPECT_THAT(Inspect(memory_).waiting, ElementsAre(url));

  clock_.Advance(absl::Minutes(1) - absl::Microseconds(1));
  EXPECT_THAT(Lease(1, 1), IsEmpty());
  clock_.Advance(absl::Microseconds(1));
  tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].attempt, 2u);
  ASSERT_TRUE(tasks[0].previous.has_value());
  EXPECT_EQ(tasks[0].previous->outcome, OutcomeClass::kNetworkError);
  EXPECT_EQ(frontier_->Stats().due_promoted, 1u);

  FetchOutcome unavailable = Outcome(tasks[0], OutcomeClass::kHttpError, true);
  unavailable.http_status = 503;
  Complete({unavailable});
  EXPECT_EQ(Record(url).next_visit, clock_.Now() + absl::Minutes(2));
  clock_.Advance(absl::Minutes(2));
  tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].attempt, 3u);
  EXPECT_EQ(tasks[0].previous->http_status, 503);

  result = Complete({Outcome(tasks[0], OutcomeClass::kNetworkError, true)});
  EXPECT_EQ(result.retries_scheduled, 0u);  // third attempt was the last
  record = Record(url);
  EXPECT_EQ(record.status, UrlStatus::kDone);
  EXPECT_EQ(record.attempts, 0u);
  EXPECT_EQ(record.last_outcome, OutcomeClass::kNetworkError);
  EXPECT_EQ(frontier_->Stats().pages_completed, 0u);  // no response: not a page
  EXPECT_TRUE(frontier_->IsExhausted());
}

TEST_F(FrontierTest, RetryCarriesValidatorsForAConditionalGet) {
  Open();
  Add({U("a.test", "/")});
  std::vector<LeasedTask> tasks = Lease(1, 1);
  FetchOutcome outcome = Outcome(tasks[0], OutcomeClass::kFetched, /*retry=*/true);
  outcome.etag = "\"abc\"";
  outcome.content_fingerprint = 77;
  Complete({outcome});
  clock_.Advance(absl::Hours(1));
  tasks = Lease(1, 1);
  ASSERT_EQ(tasks.size(), 1u);
  ASSERT_TRUE(tasks[0].previous.has_value());
  EXPECT_EQ(tasks[0].previous->etag, "\"abc\"");
  EXPECT_EQ(tasks[0].previous->content_fingerprint, 77u);
  // A 304 keeps the stored validators and content.
  FetchOutcome not_modified = Outcome(tasks[0], OutcomeClass::kNotModified);
  not_modified.http_status = 304;
  Complete({not_modified});
  UrlRecord record = Record(tasks[0].canonical_url);
  EXPECT_EQ(record.etag, "\"abc\"");
  EXPECT_EQ(record.content_fingerprint, 77u);
  EXPECT_EQ(record.http_status, 304);
}

// ---- limits ----

TEST_F(FrontierTest, MaxDepthRejects) {
  FrontierOptions options;
  options.max_depth = 1;
  Open(options);
  AddResult result = Add({U("a.test", "/0", 0), U("a.test", "/1", 1), U("a.test", "/2", 2)});
  EXPECT_EQ(result.added, 2u);
  EXPECT_EQ(result.rejected_by_limit, 1u);
  EXPECT_EQ(frontier_->LookupUrl(Href("a.test", "/2")).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(FrontierTest, MaxPagesTotalStopsTheCrawl) {
  FrontierOptions options = Wide();
  options.max_pages_total = 2;
  Open(options);
  Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1"), U("b.test", "/2")});
  std::vector<LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 2u);  // the budget counts leases in flight
  EXPECT_FALSE(frontier_->IsExhausted());
  Complete({Outcome(tasks[0]), Outcome(tasks[1])});
  EXPECT_EQ(frontier_->Stats().pages_completed, 2u);
  EXPECT_THAT(LeaseAll(), IsEmpty());
  EXPECT_EQ(Add({U("c.test", "/")}).rejected_by_limit, 1u);
  EXPECT_TRUE(frontier_->IsExhausted());
  EXPECT_EQ(frontier_->Stats().queued_urls, 2u);  // kept for a later run with a larger budget
}

TEST_F(FrontierTest, FailuresWithoutResponseDoNotSpendThePageBudget) {
  FrontierOptions options;
  options.max_pages_total = 1;
  Open(options);
  Add({U("a.test", "/1"), U("b.test", "/1")});
  std::vector<LeasedTask> tasks = Lease(10, 10);
  ASSERT_EQ(tasks.size(), 1u);
  Complete({Outcome(tasks[0], OutcomeClass::kRobotsDenied)});
  tasks = Lease(10, 10);
  ASSERT_EQ(tasks.size(), 1u);
  Complete({Outcome(tasks[0], OutcomeClass::kHttpError)});
  EXPECT_EQ(frontier_->Stats().pages_completed, 1u);
  EXPECT_TRUE(frontier_->IsExhausted());
}

TEST_F(FrontierTest, MaxPagesPerHostCapsOneHostOnly) {
  FrontierOptions options = Wide();
  options.max_pages_per_host = 1;
  Open(options);
  Add({U("a.test", "/1"), U("a.test", "/2"), U("a.test", "/3"), U("b.test", "/1")});
  std::vector<LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 2u);  // one per host
  Complete({Outcome(tasks[0]), Outcome(tasks[1])});
  EXPECT_THAT(LeaseAll(), IsEmpty());
  AddResult more = Add({U("a.test", "/4"), U("c.test", "/1")});
  EXPECT_EQ(more.rejected_by_limit, 1u);
  EXPECT_EQ(more.added, 1u);
  EXPECT_FALSE(frontier_->IsExhausted());
  tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].host_key, "c.test");
  Complete({Outcome(tasks[0])});
  EXPECT_TRUE(frontier_->IsExhausted());  // a.test still has 2 queued, but it is capped
}

TEST_F(FrontierTest, MaxUrlsPerHostBoundsTraps) {
  FrontierOptions options;
  options.max_urls_per_host = 2;
  Open(options);
  AddResult result = Add({U("cal.test", "/2024/01"), U("cal.test", "/2024/02"),
                          U("cal.test", "/2024/03"), U("b.test", "/")});
  EXPECT_EQ(result.added, 3u);
  EXPECT_EQ(result.rejected_by_limit, 1u);
  EXPECT_EQ(Add({U("cal.test", "/2024/04")}).rejected_by_limit, 1u);
}

// ---- failures and recovery ----

TEST_F(FrontierTest, FailedWriteChangesNothing) {
  Open();
  store_.FailWritesWith(absl::UnavailableError("disk gone"));
  EXPECT_EQ(frontier_->AddUrls({U("a.test", "/")}).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(frontier_->Stats().seen_urls, 0u);
  EXPECT_EQ(frontier_->Stats().hosts, 0u);
  store_.FailWritesWith(absl::OkStatus());
  EXPECT_EQ(Add({U("a.test", "/"), U("a.test", "/2")}).added, 2u);

  store_.FailWritesWith(absl::UnavailableError("disk gone"));
  EXPECT_FALSE(frontier_->Lease(10, 10).ok());
  EXPECT_EQ(frontier_->Stats().in_flight_urls, 0u);
  EXPECT_EQ(frontier_->Stats().queued_urls, 2u);
  store_.FailWritesWith(absl::OkStatus());
  std::vector<LeasedTask> tasks = Lease(10, 1);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].canonical_url, Href("a.test", "/"));

  store_.FailWritesWith(absl::UnavailableError("disk gone"));
  EXPECT_FALSE(frontier_->Complete({Outcome(tasks[0])}).ok());
  EXPECT_EQ(frontier_->Stats().in_flight_urls, 1u);
  store_.FailWritesWith(absl::OkStatus());
  EXPECT_EQ(Complete({Outcome(tasks[0])}).accepted, 1u);  // the caller's retry works
}

TEST_F(FrontierTest, OpenRejectsBadOptionsAndMissingFamilies) {
  FrontierOptions bad;
  bad.max_in_flight_per_host = 0;
  EXPECT_EQ(Frontier::Open(bad, store_, clock_).status().code(),
            absl::StatusCode::kInvalidArgument);
  kv::InMemoryKvStore empty({{"other", 0}});
  EXPECT_EQ(Frontier::Open(FrontierOptions(), empty, clock_).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(FrontierTest, OpenRefusesAnUnknownFormatVersion) {
  Open();
  frontier_.reset();
  kv::WriteBatch batch;
  batch.Put(storage::kMetaFamily, storage::kMetaFormatVersionKey, storage::EncodeFixed64(99));
  ASSERT_TRUE(memory_.Write(batch).ok());
  EXPECT_EQ(Frontier::Open(FrontierOptions(), store_, clock_).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(FrontierTest, RestartLosesNothingAndRedoesNothingCompleted) {
  FrontierOptions options = Wide();
  options.retry_backoff_initial = absl::Minutes(1);
  Open(options);
  std::vector<UrlToAdd> urls;
  std::vector<std::string> all;
  for (int i = 0; i < 10; ++i) {
    urls.push_back(U("h" + std::to_string(i % 3) + ".test", "/" + std::to_string(i), i % 2));
    all.push_back(urls.back().canonical_url);
  }
  ASSERT_EQ(Add(urls).added, 10u);
  std::vector<LeasedTask> leased = Lease(5, 5);
  ASSERT_EQ(leased.size(), 5u);
  LeaseId highest = 0;
  for (const LeasedTask& t : leased) highest = std::max(highest, t.lease_id);
  Complete({Outcome(leased[0]), Outcome(leased[1], OutcomeClass::kHttpError),
            Outcome(leased[2], OutcomeClass::kNetworkError, /*retry=*/true)});
  const std::set<std::string> done = {leased[0].canonical_url, leased[1].canonical_url};
  const std::string waiting = leased[2].canonical_url;

  Reopen();  // the old Frontier is dropped without completing its two open leases

  FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.in_flight_urls, 0u);
  EXPECT_EQ(stats.leases_recovered, 2u);
  EXPECT_EQ(stats.queued_urls, 7u);
  EXPECT_EQ(stats.waiting_urls, 1u);
  EXPECT_EQ(stats.seen_urls, 10u);
  EXPECT_EQ(stats.pages_completed, 2u);
  EXPECT_EQ(stats.hosts, 3u);
  EXPECT_TRUE(Inspect(memory_).leased.empty());

  std::vector<LeasedTask> rest = LeaseAll();
  std::vector<std::string> expected;
  for (const std::string& url : all) {
    if (!done.contains(url) && url != waiting) expected.push_back(url);
  }
  EXPECT_THAT(UrlsOf(rest), UnorderedElementsAreArray(expected));
  for (const LeasedTask& t : rest) EXPECT_GT(t.lease_id, highest);

  clock_.Advance(absl::Minutes(1));
  std::vector<LeasedTask> retried = LeaseAll();
  EXPECT_THAT(UrlsOf(retried), ElementsAre(waiting));
  EXPECT_EQ(Add(urls).already_seen, 10u);
}

TEST_F(FrontierTest, RestartKeepsQueueOrderAndHints) {
  Open();
  Add({U("a.test", "/d1", 1), U("a.test", "/d0", 0), U("b.test", "/")});
  ASSERT_TRUE(frontier_->ReportHostTimes({{"b.test", clock_.Now() + absl::Seconds(30)}}).ok());
  std::vector<LeasedTask> first = Lease(1, 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].canonical_url, Href("a.test", "/d0"));
  Reopen();
  // a.test's lease came back to the head of its queue; b.test is still not allowed.
  std::vector<LeasedTask> tasks = Lease(10, 1);
  EXPECT_THAT(UrlsOf(tasks), ElementsAre(Href("a.test", "/d0")));
  EXPECT_EQ(Add({U("c.test", "/")}).added, 1u);  // host ids keep counting after a restart
  EXPECT_EQ(frontier_->Stats().hosts, 3u);
}

TEST_F(FrontierTest, RestartResumesEachQueueAtItsStoredCursor) {
  // A host's queue scan starts where the previous process had read to, not at the host's first
  // key: on RocksDB the keys before it are the deleted entries of fetched URLs, which a scan
  // from the first key would have to step over until a compaction drops them.
  Open();
  Add({U("a.test", "/0"), U("a.test", "/1"), U("a.test", "/2"), U("a.test", "/3")});
  std::vector<LeasedTask> first = Lease(2, 2);
  ASSERT_EQ(first.size(), 2u);
  Complete({Outcome(first[0]), Outcome(first[1])});
  // A stray entry before the cursor (where only deleted ones lie): a scan from the first key
  // would find it; the stored cursor passes it.
  kv::WriteBatch stray;
  stray.Put(storage::kQueueFamily, storage::QueueKey(0, storage::QueuePos{255, 0, 0}),
            storage::EncodeQueueValue(0, Href("a.test", "/stray")));
  ASSERT_TRUE(memory_.Write(stray).ok());
  Reopen();
  EXPECT_THAT(UrlsOf(Lease(1, 1)), ElementsAre(Href("a.test", "/2")));
}

TEST_F(FrontierTest, LeasesTakenAfterAHostsLastWriteComeBackAfterARestart) {
  // The Complete writes a.test's record with its cursor past /0; the Lease after it moves the
  // cursor past /2 without writing the record. The restart voids that lease and reads /1 and /2
  // again from the stored cursor, in their order.
  Open(Wide());
  Add({U("a.test", "/0"), U("a.test", "/1"), U("a.test", "/2"), U("a.test", "/3")});
  std::vector<LeasedTask> first = Lease(1, 1);
  ASSERT_EQ(first.size(), 1u);
  Complete({Outcome(first[0])});
  ASSERT_THAT(UrlsOf(Lease(2, 2)), ElementsAre(Href("a.test", "/1"), Href("a.test", "/2")));
  EXPECT_EQ(Inspect(memory_).hosts.at("a.test").leased, 0u);
  Reopen();
  EXPECT_EQ(frontier_->Stats().leases_recovered, 2u);
  EXPECT_THAT(UrlsOf(Lease(10, 10)),
              ElementsAre(Href("a.test", "/1"), Href("a.test", "/2"), Href("a.test", "/3")));
}

TEST_F(FrontierTest, RepeatedRestartsWhileLeasing) {
  Open(Wide());
  for (int i = 0; i < 30; ++i)
    Add({U("h" + std::to_string(i % 4) + ".test", "/" + std::to_string(i))});
  std::multiset<std::string> completed;
  for (int round = 0; round < 20 && !frontier_->IsExhausted(); ++round) {
    std::vector<LeasedTask> tasks = Lease(4, 2);
    if (!tasks.empty()) {
      Complete({Outcome(tasks[0])});
      completed.insert(tasks[0].canonical_url);
    }
    Reopen();
  }
  for (std::vector<LeasedTask> tasks = LeaseAll(); !tasks.empty(); tasks = LeaseAll()) {
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& t : tasks) {
      outcomes.push_back(Outcome(t));
      completed.insert(t.canonical_url);
    }
    Complete(outcomes);
  }
  EXPECT_TRUE(frontier_->IsExhausted());
  EXPECT_EQ(completed.size(), 30u);
  EXPECT_EQ(std::set<std::string>(completed.begin(), completed.end()).size(), 30u);
}

// ---- no URL lost, none completed twice, under random interleavings ----

class FrontierPropertyTest : public FrontierTest, public ::testing::WithParamInterface<int> {};

TEST_P(FrontierPropertyTest, EveryUrlIsInExactlyOnePlace) {
  std::mt19937_64 rng(GetParam());
  auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  FrontierOptions options;
  options.max_in_flight_per_host = 3;
  options.lease_duration = absl::Minutes(1);
  options.max_attempts = 2;
  options.retry_backoff_initial = absl::Seconds(10);
  options.retry_backoff_max = absl::Seconds(40);
  Open(options);

  enum class Where { kQueued, kLeased, kDone };  // kQueued includes waiting for a retry
  std::map<std::string, Where> model;
  std::map<LeaseId, LeasedTask> open_leases;
  std::map<std::string, int> final_completions;
  std::vector<LeaseId> dead_leases;

  auto check = [&](const std::string& after) {
    SCOPED_TRACE(after);
    StoreInspection disk = Inspect(memory_);
    std::map<std::string, int> places;
    for (const auto& url : disk.queued) ++places[url];
    for (const auto& url : disk.leased) ++places[url];
    for (const auto& url : disk.waiting) ++places[url];
    for (const auto& [url, record] : disk.records) {
      if (record.status == UrlStatus::kDone) ++places[url];
    }
    ASSERT_EQ(places.size(), model.size());
    for (const auto& [url, where] : model) {
      ASSERT_EQ(places[url], 1) << url;
      const UrlRecord& record = disk.records.at(url);
      ASSERT_EQ(record.status == UrlStatus::kDone, where == Where::kDone) << url;
    }
    // Leased URLs keep their queue entries; the meta family counts them (the host records'
    // counts are as of each record's last write).
    std::set<std::string> queued_on_disk(disk.queued.begin(), disk.queued.end());
    for (const auto& [id, task] : open_leases) {
      ASSERT_TRUE(queued_on_disk.contains(task.canonical_url)) << task.canonical_url;
    }
    ASSERT_TRUE(disk.leased.empty());
    FrontierStats stats = frontier_->Stats();
    ASSERT_EQ(stats.in_flight_urls, open_leases.size());
    ASSERT_EQ(stats.queued_urls + stats.in_flight_urls, disk.queued.size());
    ASSERT_EQ(disk.hosts_queued, disk.queued.size());
    ASSERT_EQ(disk.leases_out, open_leases.size());
    ASSERT_EQ(stats.waiting_urls, disk.waiting.size());
    ASSERT_EQ(stats.seen_urls, model.size());
    for (const auto& [url, n] : final_completions) ASSERT_LE(n, 1) << url;
  };
  // Leases past their deadline when the frontier sweeps (Lease, ExpireLeases) go back.
  auto sweep_model = [&]() {
    for (auto it = open_leases.begin(); it != open_leases.end();) {
      if (it->second.deadline <= clock_.Now()) {
        model[it->second.canonical_url] = Where::kQueued;
        dead_leases.push_back(it->first);
        it = open_leases.erase(it);
      } else {
        ++it;
      }
    }
  };

  for (int step = 0; step < 300; ++step) {
    const int op = uniform(0, 9);
    if (op <= 2) {  // add
      std::vector<UrlToAdd> batch;
      std::set<std::string> fresh;
      for (int n = uniform(1, 15); n > 0; --n) {
        UrlToAdd url = U("h" + std::to_string(uniform(0, 5)) + ".test",
                         "/" + std::to_string(uniform(0, 120)), uniform(0, 3));
        if (!model.contains(url.canonical_url)) fresh.insert(url.canonical_url);
        batch.push_back(url);
      }
      ASSERT_EQ(Add(batch).added, fresh.size());
      for (const auto& url : fresh) model[url] = Where::kQueued;
    } else if (op <= 4) {  // lease
      sweep_model();
      for (const LeasedTask& task : Lease(uniform(1, 12), uniform(1, 3))) {
        ASSERT_EQ(model.at(task.canonical_url), Where::kQueued) << task.canonical_url;
        model[task.canonical_url] = Where::kLeased;
        open_leases[task.lease_id] = task;
      }
    } else if (op <= 6) {  // complete some, plus a stale id
      std::vector<FetchOutcome> outcomes;
      std::vector<LeasedTask> chosen;
      for (const auto& [id, task] : open_leases) {
        if (uniform(0, 2) == 0) continue;
        const OutcomeClass outcome = static_cast<OutcomeClass>(uniform(1, kMaxOutcomeClass));
        outcomes.push_back(Outcome(task, outcome, uniform(0, 2) == 0));
        chosen.push_back(task);
      }
      if (!dead_leases.empty()) {
        FetchOutcome stale;
        stale.lease_id = dead_leases[uniform(0, static_cast<int>(dead_leases.size()) - 1)];
        outcomes.push_back(stale);
      }
      CompleteResult result = Complete(outcomes);
      ASSERT_EQ(result.accepted, chosen.size());
      ASSERT_EQ(result.unknown_leases.size(), outcomes.size() - chosen.size());
      for (size_t i = 0; i < chosen.size(); ++i) {
        const LeasedTask& task = chosen[i];
        open_leases.erase(task.lease_id);
        dead_leases.push_back(task.lease_id);
        UrlRecord record = Record(task.canonical_url);
        if (record.status == UrlStatus::kDone) {
          model[task.canonical_url] = Where::kDone;
          ++final_completions[task.canonical_url];
        } else {
          ASSERT_TRUE(outcomes[i].retry);
          ASSERT_EQ(record.status, UrlStatus::kWaiting);
          model[task.canonical_url] = Where::kQueued;
        }
      }
    } else if (op == 7) {
      clock_.Advance(absl::Seconds(uniform(0, 45)));
    } else if (op == 8) {
      sweep_model();
      ASSERT_TRUE(frontier_->ExpireLeases().ok());
    } else {  // crash and restart
      Reopen();
      for (const auto& [id, task] : open_leases) {
        model[task.canonical_url] = Where::kQueued;
        dead_leases.push_back(id);
      }
      open_leases.clear();
    }
    check("step " + std::to_string(step) + " op " + std::to_string(op));
    if (HasFatalFailure()) return;
  }

  // Drain: everything added ends up completed exactly once.
  for (int round = 0; round < 1000 && !frontier_->IsExhausted(); ++round) {
    clock_.Advance(absl::Minutes(2));
    sweep_model();
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& task : Lease(100, 3)) {
      outcomes.push_back(Outcome(task));
      open_leases[task.lease_id] = task;
    }
    Complete(outcomes);
    for (const FetchOutcome& o : outcomes) {
      const std::string url = open_leases.at(o.lease_id).canonical_url;
      open_leases.erase(o.lease_id);
      model[url] = Where::kDone;
      ++final_completions[url];
    }
  }
  // Leases still open from before the drain expired and were re-leased in it.
  open_leases.clear();
  ASSERT_TRUE(frontier_->IsExhausted());
  for (const auto& [url, where] : model) {
    EXPECT_EQ(where, Where::kDone) << url;
    EXPECT_EQ(final_completions[url], 1) << url;
  }
  FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.queued_urls + stats.waiting_urls + stats.in_flight_urls, 0u);
  EXPECT_EQ(stats.repairs, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FrontierPropertyTest, ::testing::Range(1, 21));

}  // namespace
}  // namespace crawler::frontier
