// FrontierLink's durable archive: make_durable runs once per batch of completions, before the
// frontier hears of them; when it fails, nothing is completed and the error is fatal. And its
// confirmation after a stall: a call begun after the request must succeed, a probe when
// nothing else is due, and a refusal leaves the collection unconfirmed and the error fatal.
#include "services/fetcher/frontier_link.h"

#include <algorithm>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/clock.h"
#include "services/fetcher/fetcher_stats.h"
#include "tests/unit/fetcher/fetcher_fakes.h"

namespace crawler::fetcher {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A frontier with two leases out, and a batch completing both.
struct TwoLeases {
  testing::FakeFrontierClient frontier;
  SystemClock clock;
  FetcherCounters counters;
  FrontierBatch Completions() {
    FrontierBatch batch;
    for (const char* host : {"a.test", "b.test"}) {
      batch.outcomes.push_back(frontier::FetchOutcome{
          .lease_id = frontier.Add(absl::StrCat("http://", host, "/"), host)});
    }
    return batch;
  }
};

TEST(FrontierLink, MakesTheArchiveDurableOncePerBatchBeforeCompleting) {
  TwoLeases t;
  absl::Mutex mu;
  std::vector<std::string> calls;
  FrontierLink link({}, t.frontier, t.clock, t.counters, [] {}, [&] {
    absl::MutexLock lock(&mu);
    calls.push_back(
        absl::StrCat("durable after ", t.frontier.completions().size(), " completions"));
    return absl::OkStatus();
  });
  link.Start();
  FrontierBatch batch = t.Completions();
  ASSERT_TRUE(link.Hand(batch, /*force=*/true).ok());
  FrontierBatch links_only;
  links_only.adds.push_back(
      frontier::UrlToAdd{.canonical_url = "http://c.test/", .host_key = "c.test"});
  ASSERT_TRUE(link.Hand(links_only, /*force=*/true).ok());
  ASSERT_TRUE(link.Finish().ok());
  absl::MutexLock lock(&mu);
  EXPECT_THAT(calls, ElementsAre("durable after 0 completions"));
  EXPECT_EQ(t.frontier.completions().size(), 2u);
}

TEST(FrontierLink, AnArchiveThatCannotBeMadeDurableCompletesNothing) {
  TwoLeases t;
  FrontierLink link({}, t.frontier, t.clock, t.counters, [] {}, [] {
    return absl::UnavailableError("cannot fsync /warc/x.warc.gz.open: Input/output error");
  });
  link.Start();
  FrontierBatch batch = t.Completions();
  link.Hand(batch, /*force=*/true).IgnoreError();
  const absl::Status finished = link.Finish();
  EXPECT_TRUE(absl::IsFailedPrecondition(finished)) << finished;
  EXPECT_THAT(std::string(finished.message()),
              HasSubstr("cannot fsync /warc/x.warc.gz.open: Input/output error"));
  EXPECT_TRUE(t.frontier.completions().empty());
}

// Waits (bounded) for `done`; false if it never held.
bool Eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 2000; ++i) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return done();
}

TEST(FrontierLink, ConfirmsTheCollectionWithAProbeWhenNothingElseIsDue) {
  TwoLeases t;
  FrontierLink link({}, t.frontier, t.clock, t.counters, [] {});
  link.Start();
  EXPECT_TRUE(link.Confirmed());
  // A slow frontier: the confirmation cannot come before the probe is answered.
  t.frontier.set_answer_delay(absl::Milliseconds(50));
  link.Reconfirm();
  EXPECT_FALSE(link.Confirmed());
  EXPECT_TRUE(Eventually([&] { return link.Confirmed(); }));
  EXPECT_EQ(t.frontier.empty_releases(), 1);
  EXPECT_TRUE(link.Finish().ok());
}

TEST(FrontierLink, ACollectionGoneIsNeverConfirmed) {
  TwoLeases t;
  std::atomic<bool> wakes_after_refusal{false};
  FrontierLink link({}, t.frontier, t.clock, t.counters, [&] { wakes_after_refusal = true; });
  link.Start();
  t.frontier.RefuseFrom([] { return true; }, nullptr);
  link.Reconfirm();
  EXPECT_TRUE(Eventually([&] { return wakes_after_refusal.load(); }));
  FrontierBatch nothing;
  const absl::Status handed = link.Hand(nothing, /*force=*/false);
  EXPECT_TRUE(absl::IsFailedPrecondition(handed)) << handed;
  EXPECT_FALSE(link.Confirmed());
  EXPECT_TRUE(absl::IsFailedPrecondition(link.Finish()));
}

// A host whose queue was dropped after what a table says is "dropped since"; one dropped
// before, or never, is not.
TEST(HostControlTableTest, DroppedSinceNamesOnlyNewDrops) {
  const absl::Time t = absl::FromUnixSeconds(1000);
  HostControlTable before;
  before.hosts["old.test"] = {.host_key = "old.test", .dropped_at = t};
  before.hosts["again.test"] = {.host_key = "again.test", .dropped_at = t};
  HostControlTable after = before;
  after.hosts["again.test"].dropped_at = t + absl::Seconds(1);
  after.hosts["new.test"] = {.host_key = "new.test", .dropped_at = t};
  after.hosts["slow.test"] = {.host_key = "slow.test", .delay = absl::Seconds(3)};
  std::vector<std::string> dropped;
  for (const frontier::FetcherHostControl& c : before.DroppedSince(after)) {
    dropped.push_back(c.host_key);
  }
  std::sort(dropped.begin(), dropped.end());
  EXPECT_EQ(dropped, std::vector<std::string>({"again.test", "new.test"}));
  EXPECT_TRUE(after.DroppedSince(after).empty());
}

// A drop voids the leases given before it (ids below its bound), not those given since; a
// table without the bound (0) voids every lease held; a host never dropped voids none.
TEST(HostControlTableTest, ADropVoidsOnlyTheLeasesGivenBeforeIt) {
  const absl::Time t = absl::FromUnixSeconds(1000);
  const frontier::FetcherHostControl bounded{
      .host_key = "a.test", .dropped_at = t, .dropped_leases_below = 10};
  EXPECT_TRUE(bounded.Voided(9));
  EXPECT_FALSE(bounded.Voided(10));
  EXPECT_FALSE(bounded.Voided(11));
  const frontier::FetcherHostControl unbounded{.host_key = "a.test", .dropped_at = t};
  EXPECT_TRUE(unbounded.Voided(1'000'000));
  const frontier::FetcherHostControl slowed{.host_key = "a.test", .delay = absl::Seconds(1)};
  EXPECT_FALSE(slowed.Voided(1));
}

}  // namespace
}  // namespace crawler::fetcher
