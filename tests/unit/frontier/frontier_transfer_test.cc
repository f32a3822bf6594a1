// Moving a host between two frontiers (Frontier::ExportHost, ImportHost, ForgetHost;
// services/frontier/host_transfer.h), on InMemoryKvStore and FakeClock: the new owner leases
// the host's queued URLs in the old owner's order, keeps its waiting URLs, done records,
// counters and controls across a restart, its re-visit pages move from one fleet to the other,
// the old owner forgets it, and every step can be repeated.
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/host_api.h"
#include "services/frontier/host_transfer.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

UrlToAdd U(const std::string& host, const std::string& path, uint32_t depth = 1,
           uint8_t priority = 0) {
  return UrlToAdd{.canonical_url = "http://" + host + path,
                  .host_key = host,
                  .depth = depth,
                  .priority = priority};
}

FetchOutcome Done(const LeasedTask& task, absl::Time at, int status = 200) {
  return FetchOutcome{.lease_id = task.lease_id,
                      .outcome = status == 200 ? OutcomeClass::kFetched : OutcomeClass::kHttpError,
                      .http_status = status,
                      .fetch_time = at};
}

// One side of a move: a frontier on its own store, reopened as after a kill.
struct Side {
  Side(const FrontierOptions& frontier_options, const FakeClock& fake_clock)
      : options(frontier_options), clock(fake_clock), store(Frontier::ColumnFamilies()) {
    Reopen();
  }
  void Reopen() {
    frontier.reset();
    absl::StatusOr<std::unique_ptr<Frontier>> opened = Frontier::Open(options, store, clock);
    ASSERT_TRUE(opened.ok()) << opened.status();
    frontier = *std::move(opened);
  }
  // Leases what is due and completes it; returns the URLs of `host`, in lease order.
  std::vector<std::string> LeaseUrls(const std::string& host) {
    std::vector<std::string> urls;
    absl::StatusOr<std::vector<LeasedTask>> tasks = frontier->Lease(1000, 1000);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& t : tasks.value_or(std::vector<LeasedTask>{})) {
      if (t.host_key == host) urls.push_back(t.canonical_url);
      outcomes.push_back(Done(t, clock.Now()));
    }
    EXPECT_TRUE(frontier->Complete(outcomes).ok());
    return urls;
  }
  std::vector<std::string> Urls(const std::string& host, HostUrlState state) {
    absl::StatusOr<ListHostUrlsResult> page =
        frontier->ListHostUrls({.host_key = host, .state = state, .page_size = 1000});
    EXPECT_TRUE(page.ok()) << page.status();
    std::vector<std::string> urls;
    for (const HostUrl& u : page.value_or(ListHostUrlsResult{}).urls) urls.push_back(u.url);
    return urls;
  }

  FrontierOptions options;
  const FakeClock& clock;
  kv::InMemoryKvStore store;
  std::unique_ptr<Frontier> frontier;
};

// Exports the host from `from` in chunks of `chunk` URLs into `to`; each chunk is imported
// twice (a replayed chunk changes nothing). Returns the chunks.
std::vector<HostChunk> Move(Frontier& from, Frontier& to, const std::string& host, size_t chunk) {
  std::vector<HostChunk> chunks;
  std::string after;
  for (int i = 0; i < 1000; ++i) {
    absl::StatusOr<HostChunk> next = from.ExportHost(host, after, chunk);
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok()) break;
    EXPECT_LE(next->urls.size(), chunk);
    if (!next->header.has_value()) {
      EXPECT_TRUE(to.ImportHost(*next).ok());
    }
    const absl::Status imported = to.ImportHost(*next);
    EXPECT_TRUE(imported.ok()) << imported;
    chunks.push_back(*next);
    if (next->next.empty()) break;
    after = next->next;
  }
  return chunks;
}

class HostTransferTest : public ::testing::Test {
 protected:
  HostTransferTest() {
    options_.max_in_flight_per_host = 100;
    options_.revisit.enabled = true;
    options_.revisit.policy = "fixed";
    options_.revisit.policy_options.fixed.interval_days = 1.0 / 24;
    options_.revisit.min_interval = absl::Minutes(10);
    options_.revisit.max_interval = absl::Hours(48);
    old_ = std::make_unique<Side>(options_, clock_);
    new_ = std::make_unique<Side>(options_, clock_);
  }

  // a.test: 12 URLs of several depths and priorities; two fetched (re-visits waiting), one
  // retried (waiting), one dropped by its limit... and b.test, which stays.
  void Crawl() {
    std::vector<UrlToAdd> urls;
    for (int i = 0; i < 12; ++i) {
      urls.push_back(U("a.test", "/" + std::to_string(i), 1 + i % 3, i == 7 ? 200 : 0));
    }
    urls.push_back(U("b.test", "/"));
    urls.push_back(U("b.test", "/x"));
    ASSERT_TRUE(old_->frontier->AddUrls(urls).ok());
    absl::StatusOr<std::vector<LeasedTask>> tasks = old_->frontier->Lease(3, 3);
    ASSERT_TRUE(tasks.ok());
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& t : *tasks) {
      FetchOutcome o = Done(t, clock_.Now(), t.canonical_url == "http://a.test/0" ? 503 : 200);
      o.retry = o.http_status == 503;
      outcomes.push_back(o);
    }
    ASSERT_TRUE(old_->frontier->Complete(outcomes).ok());
    ASSERT_TRUE(old_->frontier
                    ->ControlHost("a.test",
                                  {.kind = HostControlChange::Kind::kSetPageLimit, .max_pages = 50})
                    .ok());
  }

  FakeClock clock_{absl::FromUnixSeconds(1'700'000'000)};
  FrontierOptions options_;
  std::unique_ptr<Side> old_;
  std::unique_ptr<Side> new_;
};

TEST_F(HostTransferTest, TheNewOwnerHoldsTheHostAsTheOldOneDid) {
  Crawl();
  const HostSummary before = old_->frontier->GetHost("a.test").value().summary;
  ASSERT_GT(before.waiting, 0u);
  ASSERT_GT(before.done + before.waiting, 0u);
  const std::vector<std::string> order = old_->Urls("a.test", HostUrlState::kQueued);
  const std::vector<std::string> waiting = old_->Urls("a.test", HostUrlState::kWaiting);
  ASSERT_EQ(order.size(), before.queued);
  const UrlRecord fetched = old_->frontier->LookupUrl("http://a.test/7").value();
  const int64_t old_pages = old_->frontier->GetRevisitStatus().rates.page_count();
  ASSERT_GT(old_pages, 0);

  const std::vector<HostChunk> chunks = Move(*old_->frontier, *new_->frontier, "a.test", 4);
  ASSERT_GE(chunks.size(), 3u);
  EXPECT_TRUE(chunks.back().header.has_value());
  // The move is done: the last chunk again is refused, as the mover expects.
  EXPECT_EQ(new_->frontier->ImportHost(chunks.back()).code(), absl::StatusCode::kAlreadyExists);

  // Until the old owner forgets it, both hold it; then only the new one.
  const absl::StatusOr<uint64_t> forgotten = old_->frontier->ForgetHost("a.test");
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_EQ(*forgotten, before.seen);
  EXPECT_EQ(old_->frontier->GetHost("a.test").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(old_->frontier->ForgetHost("a.test").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(old_->frontier->Stats().hosts, 1u);
  EXPECT_EQ(old_->frontier->ListHosts({.page_size = 10}).value().matched, 1u);
  EXPECT_EQ(old_->frontier->LookupUrl("http://a.test/7").status().code(),
            absl::StatusCode::kNotFound);
  // The re-visit pages (all of a.test's: b.test was not fetched) moved to the other fleet.
  EXPECT_EQ(old_->frontier->GetRevisitStatus().rates.page_count(), 0);
  EXPECT_EQ(new_->frontier->GetRevisitStatus().rates.page_count(), old_pages);

  for (int restart = 0; restart < 2; ++restart) {
    HostSummary after = new_->frontier->GetHost("a.test").value().summary;
    after.partition = before.partition;
    EXPECT_EQ(after, before) << "restart " << restart;
    UrlRecord moved = new_->frontier->LookupUrl("http://a.test/7").value();
    moved.host_id = fetched.host_id;
    EXPECT_EQ(moved, fetched);
    EXPECT_EQ(new_->Urls("a.test", HostUrlState::kQueued), order);
    EXPECT_EQ(new_->Urls("a.test", HostUrlState::kWaiting), waiting);
    old_->Reopen();
    new_->Reopen();
    EXPECT_EQ(old_->frontier->GetHost("a.test").status().code(), absl::StatusCode::kNotFound);
  }
  // Leased in the old owner's order; the waiting URLs come due on the new owner.
  EXPECT_EQ(new_->LeaseUrls("a.test"), order);
  clock_.Advance(absl::Hours(49));
  const std::vector<std::string> due = new_->LeaseUrls("a.test");
  for (const std::string& url : waiting) EXPECT_THAT(due, ::testing::Contains(url));
  EXPECT_THAT(old_->LeaseUrls("a.test"), IsEmpty());
}

TEST_F(HostTransferTest, AHostOnLeaseDoesNotMoveAndAMovedHostComesBack) {
  Crawl();
  absl::StatusOr<std::vector<LeasedTask>> leased = old_->frontier->Lease(1, 1);
  ASSERT_TRUE(leased.ok());
  ASSERT_EQ(leased->size(), 1u);
  const std::string host = (*leased)[0].host_key;
  EXPECT_EQ(old_->frontier->ExportHost(host, "", 10).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(old_->frontier->ForgetHost(host).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(old_->frontier->Complete({Done((*leased)[0], clock_.Now())}).ok());
  EXPECT_EQ(old_->frontier->ExportHost("nope.test", "", 10).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(old_->frontier->ExportHost(host, "x", 10).status().code(),
            absl::StatusCode::kInvalidArgument);

  // There and back: the old owner takes it again under its old id.
  const HostSummary before = old_->frontier->GetHost("b.test").value().summary;
  Move(*old_->frontier, *new_->frontier, "b.test", 1);
  ASSERT_TRUE(old_->frontier->ForgetHost("b.test").ok());
  Move(*new_->frontier, *old_->frontier, "b.test", 100);
  ASSERT_TRUE(new_->frontier->ForgetHost("b.test").ok());
  old_->Reopen();
  EXPECT_EQ(old_->frontier->GetHost("b.test").value().summary, before);
  EXPECT_EQ(old_->frontier->Stats().hosts, 2u);
  EXPECT_EQ(new_->frontier->Stats().hosts, 0u);
}

// Waiting URLs already due when they arrive are leased at once, though the new owner's due
// index was scanned past their time.
TEST_F(HostTransferTest, WaitingUrlsDueOnArrivalAreLeased) {
  Crawl();
  const std::vector<std::string> waiting = old_->Urls("a.test", HostUrlState::kWaiting);
  ASSERT_FALSE(waiting.empty());
  clock_.Advance(absl::Hours(49));
  ASSERT_TRUE(new_->frontier->AddUrls({U("c.test", "/")}).ok());
  EXPECT_THAT(new_->LeaseUrls("c.test"), ElementsAre("http://c.test/"));
  // c.test now waits for its re-visit: this Lease scans the due index up to now.
  EXPECT_THAT(new_->LeaseUrls("c.test"), IsEmpty());
  Move(*old_->frontier, *new_->frontier, "a.test", 5);
  const std::vector<std::string> leased = new_->LeaseUrls("a.test");
  for (const std::string& url : waiting) EXPECT_THAT(leased, ::testing::Contains(url));
}

// A partition only imports hosts it owns.
TEST(HostTransfer, AHostOfAnotherPartitionIsRefused) {
  FakeClock clock;
  FrontierOptions options;
  options.partition_count = 2;
  options.partition_index = 0;
  Side side(options, clock);
  std::string other;
  for (int i = 0; other.empty(); ++i) {
    const std::string key = "h" + std::to_string(i) + ".test";
    if (side.frontier->AddUrls({U(key, "/")}).status().code() ==
        absl::StatusCode::kFailedPrecondition) {
      other = key;
    }
  }
  EXPECT_EQ(side.frontier->ImportHost({.host_key = other}).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(side.frontier->ImportHost({.host_key = ""}).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::frontier
