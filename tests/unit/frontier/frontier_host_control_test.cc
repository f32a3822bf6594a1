// Frontier host control on InMemoryKvStore and FakeClock: blocks, delays and page limits as
// Lease follows them, DropHostQueue, the listings, bad input refused with nothing changed, and
// every control surviving a restart (services/frontier/host_api.h, docs/api.md "Host control").
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/partition/partition.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/host_api.h"
#include "services/frontier/url_record.h"
#include "tests/unit/frontier/counting_kv_store.h"

namespace crawler::frontier {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Kind = HostControlChange::Kind;

UrlToAdd U(const std::string& host, const std::string& path) {
  return UrlToAdd{.canonical_url = "http://" + host + path, .host_key = host};
}

std::vector<std::string> HostsOf(const std::vector<LeasedTask>& tasks) {
  std::vector<std::string> hosts;
  for (const LeasedTask& task : tasks) hosts.push_back(task.host_key);
  return hosts;
}

FetchOutcome Done(const LeasedTask& task, absl::Time at, int status = 200) {
  return FetchOutcome{.lease_id = task.lease_id,
                      .outcome = status == 200 ? OutcomeClass::kFetched : OutcomeClass::kHttpError,
                      .http_status = status,
                      .fetch_time = at};
}

class HostControlTest : public ::testing::Test {
 protected:
  HostControlTest() : memory_(Frontier::ColumnFamilies()), store_(memory_) {
    options_.max_in_flight_per_host = 100;
    Reopen();
  }

  void Reopen() {
    frontier_.reset();  // like a killed process
    absl::StatusOr<std::unique_ptr<Frontier>> frontier = Frontier::Open(options_, store_, clock_);
    ASSERT_TRUE(frontier.ok()) << frontier.status();
    frontier_ = std::move(*frontier);
  }

  std::vector<LeasedTask> LeaseAll() {
    absl::StatusOr<std::vector<LeasedTask>> tasks = frontier_->Lease(1000, 1000);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    return tasks.value_or(std::vector<LeasedTask>{});
  }

  void AddSite(const std::string& host, int pages) {
    std::vector<UrlToAdd> urls;
    for (int i = 0; i < pages; ++i) urls.push_back(U(host, "/" + std::to_string(i)));
    ASSERT_TRUE(frontier_->AddUrls(urls).ok());
  }

  absl::StatusOr<HostChangeResult> Control(const std::string& host, HostControlChange change) {
    return frontier_->ControlHost(host, change);
  }

  HostSummary Summary(const std::string& host) {
    absl::StatusOr<HostDetail> detail = frontier_->GetHost(host);
    EXPECT_TRUE(detail.ok()) << detail.status();
    return detail.ok() ? detail->summary : HostSummary{};
  }

  kv::InMemoryKvStore memory_;
  kv::CountingKvStore store_;
  FakeClock clock_;
  FrontierOptions options_;
  std::unique_ptr<Frontier> frontier_;
};

TEST_F(HostControlTest, BlockedHostIsNotLeasedUntilItsBlockEndsEvenAfterARestart) {
  AddSite("a.test", 3);
  AddSite("b.test", 3);
  const absl::Time until = clock_.Now() + absl::Minutes(10);
  absl::StatusOr<HostChangeResult> blocked =
      Control("a.test", {.kind = Kind::kBlock, .until = until});
  ASSERT_TRUE(blocked.ok()) << blocked.status();
  EXPECT_EQ(blocked->host.controls.blocked_until, until);
  EXPECT_EQ(blocked->host.next_due, until);

  Reopen();
  EXPECT_EQ(Summary("a.test").controls.blocked_until, until);
  std::vector<LeasedTask> tasks = LeaseAll();
  EXPECT_THAT(HostsOf(tasks), ElementsAre("b.test", "b.test", "b.test"));
  for (const LeasedTask& task : tasks) {
    ASSERT_TRUE(frontier_->Complete({Done(task, clock_.Now())}).ok());
  }
  // Within the lease horizon of its end, still nothing: the block is not a hint.
  clock_.Advance(absl::Minutes(10) - absl::Seconds(1));
  EXPECT_THAT(LeaseAll(), IsEmpty());
  clock_.Advance(absl::Seconds(1));
  EXPECT_THAT(HostsOf(LeaseAll()), ElementsAre("a.test", "a.test", "a.test"));
}

TEST_F(HostControlTest, UnblockLeasesAtOnce) {
  AddSite("a.test", 1);
  ASSERT_TRUE(Control("a.test", {.kind = Kind::kBlock, .until = clock_.Now() + absl::Hours(1)})
                  .ok());
  EXPECT_THAT(LeaseAll(), IsEmpty());
  ASSERT_TRUE(Control("a.test", {.kind = Kind::kUnblock}).ok());
  EXPECT_THAT(HostsOf(LeaseAll()), ElementsAre("a.test"));
}

TEST_F(HostControlTest, DelayLeasesOneAtATimeTheDelayAfterEachFetch) {
  AddSite("a.test", 3);
  ASSERT_TRUE(Control("a.test", {.kind = Kind::kSetDelay, .delay = absl::Seconds(30)}).ok());
  Reopen();
  std::vector<LeasedTask> first = LeaseAll();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_THAT(LeaseAll(), IsEmpty());  // one in flight
  const absl::Time fetched = clock_.Now() + absl::Seconds(5);
  clock_.Advance(absl::Seconds(5));
  ASSERT_TRUE(frontier_->Complete({Done(first[0], fetched)}).ok());
  clock_.Advance(absl::Seconds(29));
  EXPECT_THAT(LeaseAll(), IsEmpty());
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(LeaseAll().size(), 1u);
  // Cleared: the last one goes without waiting for the second one's completion (the hint the
  // old delay set at its lease still runs out).
  ASSERT_TRUE(Control("a.test", {.kind = Kind::kSetDelay, .delay = absl::ZeroDuration()}).ok());
  clock_.Advance(absl::Seconds(30));
  EXPECT_EQ(LeaseAll().size(), 1u);
}

TEST_F(HostControlTest, PageLimitReplacesTheCollectionsForThatHost) {
  options_.max_pages_per_host = 1;
  Reopen();
  AddSite("a.test", 4);
  AddSite("b.test", 4);
  ASSERT_TRUE(Control("a.test", {.kind = Kind::kSetPageLimit, .max_pages = 3}).ok());
  Reopen();
  const std::vector<std::string> hosts = HostsOf(LeaseAll());
  EXPECT_EQ(std::count(hosts.begin(), hosts.end(), "a.test"), 3);
  EXPECT_EQ(std::count(hosts.begin(), hosts.end(), "b.test"), 1);
  EXPECT_EQ(Summary("a.test").max_pages, 3u);
  EXPECT_EQ(Summary("b.test").max_pages, 1u);
  // Back to the collection's: a.test is at its cap once its three pages are in.
  ASSERT_TRUE(Control("a.test", {.kind = Kind::kSetPageLimit, .max_pages = std::nullopt}).ok());
  EXPECT_EQ(Summary("a.test").max_pages, 1u);
  EXPECT_THAT(LeaseAll(), IsEmpty());
}

TEST_F(HostControlTest, DropHostQueueDropsQueuedLeasedAndWaitingURLsForGood) {
  AddSite("a.test", 5);
  AddSite("b.test", 1);
  std::vector<LeasedTask> tasks = frontier_->Lease(3, 2).value();  // two of a.test, one of b
  ASSERT_EQ(tasks.size(), 3u);
  // One of a.test's leases ends in a retry: it waits in the due index.
  const LeasedTask* retried = nullptr;
  const LeasedTask* leased = nullptr;
  for (const LeasedTask& task : tasks) {
    if (task.host_key != "a.test") {
      ASSERT_TRUE(frontier_->Complete({Done(task, clock_.Now())}).ok());
      continue;
    }
    (retried == nullptr ? retried : leased) = &task;
  }
  FetchOutcome retry = Done(*retried, clock_.Now(), 503);
  retry.retry = true;
  ASSERT_TRUE(frontier_->Complete({retry}).ok());
  ASSERT_EQ(Summary("a.test").waiting, 1u);

  absl::StatusOr<HostChangeResult> dropped = frontier_->DropHostQueue("a.test");
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_EQ(dropped->dropped, 5u);  // 3 queued, 1 leased, 1 waiting
  EXPECT_EQ(dropped->host.dropped, 5u);
  EXPECT_EQ(dropped->host.queued + dropped->host.in_flight + dropped->host.waiting, 0u);
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/0")->status, UrlStatus::kDropped);
  // The leased one's completion is not taken; a later link does not bring a URL back.
  EXPECT_THAT(frontier_->Complete({Done(*leased, clock_.Now())})->unknown_leases,
              ElementsAre(leased->lease_id));
  EXPECT_EQ(frontier_->AddUrls({U("a.test", "/1")})->already_seen, 1u);
  clock_.Advance(absl::Hours(1));  // the retry would be due
  Reopen();
  EXPECT_THAT(LeaseAll(), IsEmpty());
  const HostSummary after = Summary("a.test");
  EXPECT_EQ(after.dropped, 5u);
  EXPECT_EQ(after.seen, 5u);
  EXPECT_EQ(after.done, 0u);
  EXPECT_TRUE(frontier_->IsExhausted());
  // New URLs of the host are still taken.
  EXPECT_EQ(frontier_->AddUrls({U("a.test", "/new")})->added, 1u);
  EXPECT_THAT(HostsOf(LeaseAll()), ElementsAre("a.test"));
}

// The control table tells fetchers which leases a drop voided: those given before it, not
// the lease of a URL found after it (which is fetched and completed as usual), after a
// restart too.
TEST_F(HostControlTest, TheControlTableNamesTheLeasesADropVoided) {
  AddSite("a.test", 2);
  const std::vector<LeasedTask> before = frontier_->Lease(1, 1).value();
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(frontier_->DropHostQueue("a.test").value().dropped, 2u);
  ASSERT_EQ(frontier_->AddUrls({U("a.test", "/found-later")})->added, 1u);
  const std::vector<LeasedTask> after = frontier_->Lease(1, 1).value();
  ASSERT_EQ(after.size(), 1u);
  auto check_table = [&](const char* when) {
    const FetcherControlTable table = frontier_->FetcherControls(0);
    ASSERT_EQ(table.hosts.size(), 1u) << when;
    const FetcherHostControl& a = table.hosts[0];
    EXPECT_EQ(a.host_key, "a.test") << when;
    EXPECT_TRUE(a.Voided(before[0].lease_id)) << when;
    EXPECT_FALSE(a.Voided(after[0].lease_id)) << when;
  };
  check_table("before the completion");
  EXPECT_THAT(frontier_->Complete({Done(after[0], clock_.Now())})->unknown_leases, IsEmpty());
  EXPECT_EQ(Summary("a.test").in_flight, 0u);
  EXPECT_TRUE(frontier_->IsExhausted());
  Reopen();
  check_table("after a restart");
}

// Dropped pages of the re-visit fleet leave it: the budget's solve stops counting them.
TEST_F(HostControlTest, DroppedRevisitsLeaveTheRevisitFleet) {
  options_.revisit.enabled = true;
  options_.revisit.policy = "fixed";
  options_.revisit.policy_options.fixed.interval_days = 1.0 / 24;
  options_.revisit.min_interval = absl::Minutes(10);
  options_.revisit.max_interval = absl::Hours(48);
  Reopen();
  AddSite("a.test", 3);
  AddSite("b.test", 2);
  for (const LeasedTask& task : LeaseAll()) {
    ASSERT_TRUE(frontier_->Complete({Done(task, clock_.Now())}).ok());
  }
  ASSERT_EQ(frontier_->GetRevisitStatus().rates.page_count(), 5);
  ASSERT_EQ(Summary("a.test").waiting, 3u);
  ASSERT_EQ(frontier_->DropHostQueue("a.test").value().dropped, 3u);
  EXPECT_EQ(frontier_->GetRevisitStatus().rates.page_count(), 2);
  Reopen();
  EXPECT_EQ(frontier_->GetRevisitStatus().rates.page_count(), 2);
  clock_.Advance(absl::Hours(49));
  EXPECT_THAT(HostsOf(LeaseAll()), ElementsAre("b.test", "b.test"));
}

TEST_F(HostControlTest, ListHostsSortsFiltersAndPages) {
  AddSite("a.example.org", 3);
  AddSite("example.org", 1);
  AddSite("b.example.org", 2);
  AddSite("badexample.org", 5);
  absl::StatusOr<ListHostsResult> page =
      frontier_->ListHosts({.order = HostOrder::kQueued, .suffix = "example.org", .page_size = 2});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->matched, 3u);
  ASSERT_EQ(page->hosts.size(), 2u);
  EXPECT_EQ(page->hosts[0].host_key, "a.example.org");
  EXPECT_EQ(page->hosts[1].host_key, "b.example.org");
  absl::StatusOr<ListHostsResult> next = frontier_->ListHosts(
      {.suffix = "example.org", .page_size = 2, .page_token = page->next_page_token});
  ASSERT_TRUE(next.ok());
  ASSERT_EQ(next->hosts.size(), 1u);
  EXPECT_EQ(next->hosts[0].host_key, "example.org");
  EXPECT_TRUE(next->next_page_token.empty());

  // Errors: b.example.org's 503.
  std::vector<LeasedTask> tasks = LeaseAll();
  for (const LeasedTask& task : tasks) {
    if (task.host_key == "b.example.org") {
      ASSERT_TRUE(frontier_->Complete({Done(task, clock_.Now(), 503)}).ok());
      break;
    }
  }
  absl::StatusOr<ListHostsResult> by_errors =
      frontier_->ListHosts({.order = HostOrder::kErrors, .page_size = 1});
  ASSERT_TRUE(by_errors.ok());
  EXPECT_EQ(by_errors->hosts[0].host_key, "b.example.org");
  EXPECT_EQ(by_errors->hosts[0].errors, 1u);
  Reopen();
  EXPECT_EQ(Summary("b.example.org").errors, 1u);
  absl::StatusOr<HostDetail> detail = frontier_->GetHost("b.example.org");
  ASSERT_EQ(detail->recent_errors.size(), 1u);
  EXPECT_EQ(detail->recent_errors[0].http_status, 503);
  EXPECT_TRUE(detail->scan_complete);
}

TEST_F(HostControlTest, ListHostUrlsByStateAndPage) {
  AddSite("a.test", 5);
  std::vector<LeasedTask> leased = frontier_->Lease(1, 1).value();
  ASSERT_EQ(leased.size(), 1u);
  absl::StatusOr<ListHostUrlsResult> queued =
      frontier_->ListHostUrls({.host_key = "a.test", .state = HostUrlState::kQueued,
                               .page_size = 3});
  ASSERT_TRUE(queued.ok()) << queued.status();
  ASSERT_EQ(queued->urls.size(), 3u);
  EXPECT_EQ(queued->urls[0].url, "http://a.test/1");
  absl::StatusOr<ListHostUrlsResult> rest = frontier_->ListHostUrls(
      {.host_key = "a.test", .state = HostUrlState::kQueued, .page_size = 3,
       .page_token = queued->next_page_token});
  ASSERT_TRUE(rest.ok()) << rest.status();
  ASSERT_EQ(rest->urls.size(), 1u);
  EXPECT_EQ(rest->urls[0].url, "http://a.test/4");
  EXPECT_TRUE(rest->next_page_token.empty());
  absl::StatusOr<ListHostUrlsResult> out =
      frontier_->ListHostUrls({.host_key = "a.test", .state = HostUrlState::kLeased});
  ASSERT_EQ(out->urls.size(), 1u);
  EXPECT_EQ(out->urls[0].url, leased[0].canonical_url);
  ASSERT_TRUE(frontier_->Complete({Done(leased[0], clock_.Now())}).ok());
  absl::StatusOr<ListHostUrlsResult> any =
      frontier_->ListHostUrls({.host_key = "a.test", .page_size = 2});
  ASSERT_EQ(any->urls.size(), 2u);
  EXPECT_EQ(any->urls[0].state, HostUrlState::kDone);
  EXPECT_EQ(any->urls[1].state, HostUrlState::kQueued);
  absl::StatusOr<ListHostUrlsResult> any_rest = frontier_->ListHostUrls(
      {.host_key = "a.test", .page_size = 10, .page_token = any->next_page_token});
  EXPECT_EQ(any_rest->urls.size(), 3u);
  EXPECT_EQ(any->host.done, 1u);
}

TEST_F(HostControlTest, BadInputIsRefusedAndChangesNothing) {
  AddSite("a.test", 2);
  ASSERT_TRUE(Control("a.test", {.kind = Kind::kSetDelay, .delay = absl::Seconds(2)}).ok());
  const HostSummary before = Summary("a.test");
  const int writes = store_.writes();
  auto code = [](const auto& result) { return result.status().code(); };
  EXPECT_EQ(code(Control("nope.test", {.kind = Kind::kUnblock})), absl::StatusCode::kNotFound);
  EXPECT_EQ(code(frontier_->DropHostQueue("nope.test")), absl::StatusCode::kNotFound);
  EXPECT_EQ(code(frontier_->GetHost("")), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(frontier_->GetHost(std::string(300, 'a'))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Control("a.test", {.kind = Kind::kBlock, .until = clock_.Now()})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Control("a.test", {.kind = Kind::kBlock, .until = absl::InfiniteFuture()})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Control("a.test", {.kind = Kind::kSetDelay, .delay = absl::Seconds(-1)})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Control("a.test", {.kind = Kind::kSetDelay, .delay = absl::Hours(25)})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Control("a.test", {.kind = Kind::kSetPageLimit,
                                    .max_pages = FrontierOptions::kUnlimited})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(Control("a.test", {.kind = static_cast<Kind>(9)})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(frontier_->ListHosts({.page_size = 1001})), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(frontier_->ListHosts({.page_token = "x"})), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(frontier_->ListHostUrls({.host_key = "a.test", .page_size = 5000})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(frontier_->ListHostUrls({.host_key = "a.test", .page_token = "http://b/"})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(frontier_->ListHostUrls(
                {.host_key = "a.test", .state = HostUrlState::kQueued, .page_token = "zz"})),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_.writes(), writes);
  EXPECT_EQ(Summary("a.test"), before);
  // A failed write changes nothing either.
  store_.FailWritesWith(absl::UnavailableError("disk"));
  EXPECT_EQ(code(frontier_->DropHostQueue("a.test")), absl::StatusCode::kUnavailable);
  EXPECT_EQ(code(Control("a.test", {.kind = Kind::kUnblock})), absl::StatusCode::kUnavailable);
  store_.FailWritesWith(absl::OkStatus());
  EXPECT_EQ(Summary("a.test"), before);
  EXPECT_EQ(LeaseAll().size(), 1u);  // still delayed: one at a time
}

TEST_F(HostControlTest, HostOfAnotherPartitionIsRefused) {
  options_.partition_count = 2;
  options_.partition_index = 0;
  Reopen();
  std::string other;
  for (int i = 0; other.empty(); ++i) {
    const std::string key = "h" + std::to_string(i) + ".test";
    if (partition::Partition(key, 2) == 1) other = key;
  }
  EXPECT_EQ(frontier_->GetHost(other).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::frontier
