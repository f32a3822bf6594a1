// Re-visiting in the frontier core (FrontierOptions::revisit, docs/architecture.md §7): after each
// content outcome a URL goes back to the due index when its policy says, with its visit history and
// rate estimate in the URL record; change detection by SimHash distance, 304 as unchanged; the rate
// histogram the scheduler tunes the policy with, persisted across restarts.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/recrawl/page_state.h"
#include "lib/recrawl/policy_factory.h"
#include "lib/recrawl/revisit_policy.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/storage_format.h"
#include "tests/unit/frontier/counting_kv_store.h"

namespace crawler::frontier {
namespace {

UrlToAdd U(const std::string& host, const std::string& path) {
  return UrlToAdd{.canonical_url = "http://" + host + path, .host_key = host};
}

FrontierOptions Revisiting(const std::string& policy = "fixed") {
  FrontierOptions options;
  options.max_in_flight_per_host = 100;
  options.revisit.enabled = true;
  options.revisit.policy = policy;
  options.revisit.policy_options.fixed.interval_days = 1.0 / 24;  // hourly
  options.revisit.min_interval = absl::Minutes(10);
  options.revisit.max_interval = absl::Hours(48);
  return options;
}

class FrontierRevisitTest : public ::testing::Test {
 protected:
  FrontierRevisitTest() : store_(Frontier::ColumnFamilies()) {
    clock_.Advance(absl::FromUnixSeconds(1'800'000'000) - clock_.Now());
  }

  void Open(const FrontierOptions& options) {
    options_ = options;
    frontier_.reset();
    absl::StatusOr<std::unique_ptr<Frontier>> frontier = Frontier::Open(options, store_, clock_);
    ASSERT_TRUE(frontier.ok()) << frontier.status();
    frontier_ = std::move(*frontier);
  }

  std::vector<LeasedTask> LeaseAll() {
    absl::StatusOr<std::vector<LeasedTask>> tasks = frontier_->Lease(1000, 1000);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    return tasks.value_or(std::vector<LeasedTask>{});
  }

  // Leases the one queued URL and completes it with `outcome`, `fingerprint` and `digest`.
  void Visit(OutcomeClass outcome, uint64_t fingerprint, const std::string& etag = "",
             uint64_t digest = 0) {
    std::vector<LeasedTask> tasks = LeaseAll();
    ASSERT_EQ(tasks.size(), 1u);
    FetchOutcome out{.lease_id = tasks[0].lease_id,
                     .outcome = outcome,
                     .http_status = outcome == OutcomeClass::kNotModified ? 304 : 200,
                     .etag = etag,
                     .content_fingerprint = fingerprint,
                     .content_length = 5000,
                     .change_digest = digest};
    absl::StatusOr<CompleteResult> result = frontier_->Complete({out});
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->accepted, 1u);
  }

  recrawl::PageRevisitState State(const std::string& url) {
    absl::StatusOr<UrlRecord> record = frontier_->LookupUrl(url);
    EXPECT_TRUE(record.ok()) << record.status();
    absl::StatusOr<recrawl::PageRevisitState> state =
        recrawl::PageRevisitState::Decode(record.ok() ? record->visit_history : "");
    EXPECT_TRUE(state.ok()) << state.status();
    return state.ok() ? *std::move(state) : recrawl::PageRevisitState();
  }

  kv::InMemoryKvStore store_;
  FakeClock clock_;
  FrontierOptions options_;
  std::unique_ptr<Frontier> frontier_;
};

TEST_F(FrontierRevisitTest, FetchedPageIsDueAgainWhenThePolicySays) {
  Open(Revisiting());
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/")}).ok());
  Visit(OutcomeClass::kFetched, 0x1234, "\"v1\"");

  absl::StatusOr<UrlRecord> record = frontier_->LookupUrl("http://a.test/");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->status, UrlStatus::kWaiting);
  // The first re-visit comes at a phase of the interval (spreading a site's pages out), never
  // sooner than min_interval.
  EXPECT_GE(record->next_visit, clock_.Now() + absl::Minutes(10));
  EXPECT_LE(record->next_visit, clock_.Now() + absl::Hours(1));
  EXPECT_FALSE(frontier_->IsExhausted());
  EXPECT_EQ(frontier_->Stats().waiting_urls, 1u);

  clock_.Advance(record->next_visit - clock_.Now() - absl::Seconds(1));
  EXPECT_TRUE(LeaseAll().empty());
  clock_.Advance(absl::Seconds(1));
  std::vector<LeasedTask> again = LeaseAll();
  ASSERT_EQ(again.size(), 1u);
  // The re-visit is conditional: the lease carries the last validators.
  ASSERT_TRUE(again[0].previous.has_value());
  EXPECT_EQ(again[0].previous->etag, "\"v1\"");

  // From then on, the policy's interval exactly.
  ASSERT_TRUE(frontier_
                  ->Complete({FetchOutcome{.lease_id = again[0].lease_id,
                                           .outcome = OutcomeClass::kNotModified,
                                           .http_status = 304}})
                  .ok());
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/")->next_visit, clock_.Now() + absl::Hours(1));
}

// A scan of the due index that finds nothing due learns when the first entry is due, and the
// Leases before then open no cursor on it; an entry written later that is due sooner (a retry)
// is promoted at its own time all the same.
TEST(FrontierDueScanTest, NothingDueMeansNoScanUntilTheFirstEntryIsDue) {
  kv::InMemoryKvStore memory(Frontier::ColumnFamilies());
  kv::CountingKvStore store(memory);
  FakeClock clock;
  clock.Advance(absl::FromUnixSeconds(1'800'000'000) - clock.Now());
  FrontierOptions options = Revisiting();
  options.retry_backoff_initial = absl::Minutes(2);
  absl::StatusOr<std::unique_ptr<Frontier>> opened = Frontier::Open(options, store, clock);
  ASSERT_TRUE(opened.ok()) << opened.status();
  Frontier& frontier = **opened;
  auto lease = [&] {
    absl::StatusOr<std::vector<LeasedTask>> tasks = frontier.Lease(1000, 1000);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    return tasks.value_or(std::vector<LeasedTask>{});
  };
  auto complete = [&](const LeasedTask& task, OutcomeClass outcome, bool retry) {
    absl::StatusOr<CompleteResult> done = frontier.Complete(
        {FetchOutcome{.lease_id = task.lease_id,
                      .outcome = outcome,
                      .http_status = outcome == OutcomeClass::kFetched ? 200 : 0,
                      .content_fingerprint = 7,
                      .content_length = 100,
                      .retry = retry}});
    ASSERT_TRUE(done.ok()) << done.status();
    ASSERT_EQ(done->accepted, 1u);
  };

  ASSERT_TRUE(frontier.AddUrls({U("a.test", "/")}).ok());
  std::vector<LeasedTask> tasks = lease();
  ASSERT_EQ(tasks.size(), 1u);
  complete(tasks[0], OutcomeClass::kFetched, false);
  const absl::Time a_due = frontier.LookupUrl("http://a.test/")->next_visit;
  ASSERT_GE(a_due, clock.Now() + absl::Minutes(10));

  // One scan finds nothing due and the time of a.test's re-visit; the next Leases scan nothing.
  const size_t before = store.iterators(storage::kDueFamily);
  for (int i = 0; i < 5; ++i) {
    clock.Advance(absl::Seconds(30));
    EXPECT_TRUE(lease().empty());
  }
  EXPECT_EQ(store.iterators(storage::kDueFamily), before + 1);

  // A retry due in 2 minutes, before a.test's re-visit, is promoted at its time.
  ASSERT_TRUE(frontier.AddUrls({U("b.test", "/")}).ok());
  tasks = lease();
  ASSERT_EQ(tasks.size(), 1u);
  complete(tasks[0], OutcomeClass::kNetworkError, true);
  clock.Advance(absl::Minutes(2) - absl::Seconds(1));
  EXPECT_TRUE(lease().empty());
  clock.Advance(absl::Seconds(1));
  tasks = lease();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].canonical_url, "http://b.test/");
  complete(tasks[0], OutcomeClass::kFetched, false);

  // And a.test's re-visit at its own.
  ASSERT_LT(clock.Now(), a_due);
  clock.Advance(a_due - clock.Now() - absl::Seconds(1));
  for (const LeasedTask& task : lease()) EXPECT_NE(task.canonical_url, "http://a.test/");
  clock.Advance(absl::Seconds(1));
  bool a_leased = false;
  for (const LeasedTask& task : lease()) a_leased |= task.canonical_url == "http://a.test/";
  EXPECT_TRUE(a_leased);
}

TEST_F(FrontierRevisitTest, FirstRevisitsOfASiteAreSpreadOverTheInterval) {
  Open(Revisiting());
  std::vector<UrlToAdd> urls;
  for (int i = 0; i < 100; ++i) urls.push_back(U("a.test", "/p" + std::to_string(i)));
  ASSERT_TRUE(frontier_->AddUrls(urls).ok());
  std::vector<LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 100u);
  std::vector<FetchOutcome> outcomes;
  for (const LeasedTask& task : tasks) {
    outcomes.push_back({.lease_id = task.lease_id, .outcome = OutcomeClass::kFetched,
                        .http_status = 200, .content_fingerprint = 1});
  }
  ASSERT_TRUE(frontier_->Complete(outcomes).ok());
  int per_quarter[4] = {0, 0, 0, 0};
  for (const UrlToAdd& url : urls) {
    const absl::Duration in = frontier_->LookupUrl(url.canonical_url)->next_visit - clock_.Now();
    ASSERT_GE(in, absl::Minutes(10));
    ASSERT_LE(in, absl::Hours(1));
    ++per_quarter[std::min(3, static_cast<int>(in / absl::Minutes(15)))];
  }
  // 100 pages over four quarters of the hour: each quarter gets some (binomial, p = 1/4).
  for (int q = 0; q < 4; ++q) EXPECT_GE(per_quarter[q], 10) << q;
}

TEST_F(FrontierRevisitTest, ChangeIsSimHashDistanceAboveThresholdAnd304IsUnchanged) {
  Open(Revisiting());
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/")}).ok());
  const uint64_t base = 0xF0F0F0F0F0F0F0F0ull;
  Visit(OutcomeClass::kFetched, base);
  EXPECT_EQ(State("http://a.test/").history.size(), 0);  // the first visit only anchors

  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, base ^ 0x7Full);  // 7 bits: noise, not a change
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, base ^ 0xFFull);  // 1 bit from the previous visit
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, ~base);  // 64 bits: a rewrite
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kNotModified, 0);

  const recrawl::VisitHistory history = State("http://a.test/").history;
  ASSERT_EQ(history.size(), 4);
  EXPECT_FALSE(history[0].changed);
  EXPECT_FALSE(history[1].changed);
  EXPECT_TRUE(history[2].changed);
  EXPECT_FALSE(history[3].changed);
  EXPECT_EQ(history[3].interval_seconds, 3600u);
  EXPECT_EQ(frontier_->Stats().changes_detected, 1u);
  EXPECT_EQ(frontier_->Stats().revisits_scheduled, 5u);
  // Re-visits are not new pages.
  EXPECT_EQ(frontier_->Stats().pages_completed, 1u);
}

TEST_F(FrontierRevisitTest, ChangeDigestDecidesWhenBothVisitsHaveOne) {
  Open(Revisiting());
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/")}).ok());
  const uint64_t base = 0xF0F0F0F0F0F0F0F0ull;
  Visit(OutcomeClass::kFetched, base);  // as stored before digests: none
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, base ^ 0x7ull, "", 5);  // no previous digest: SimHash, noise
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/")->change_digest, 5u);
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, base, "", 6);  // 3 bits, but the main content changed
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, ~base, "", 6);  // 64 bits of furniture, the same main content
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kNotModified, 0);  // keeps the stored digest
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, ~base, "", 7);

  const recrawl::VisitHistory history = State("http://a.test/").history;
  ASSERT_EQ(history.size(), 5);
  EXPECT_FALSE(history[0].changed);
  EXPECT_TRUE(history[1].changed);
  EXPECT_FALSE(history[2].changed);
  EXPECT_FALSE(history[3].changed);
  EXPECT_TRUE(history[4].changed);
  EXPECT_EQ(frontier_->Stats().changes_detected, 2u);
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/")->change_digest, 7u);
}

TEST_F(FrontierRevisitTest, PagesWithoutFingerprintFallBackToTheEtag) {
  Open(Revisiting());
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/data.json")}).ok());
  Visit(OutcomeClass::kFetched, 0, "\"a\"");
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, 0, "\"a\"");
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, 0, "\"b\"");
  const recrawl::VisitHistory history = State("http://a.test/data.json").history;
  ASSERT_EQ(history.size(), 2);
  EXPECT_FALSE(history[0].changed);
  EXPECT_TRUE(history[1].changed);
}

TEST_F(FrontierRevisitTest, IntervalsAreClampedToTheBounds) {
  FrontierOptions options = Revisiting();
  options.revisit.policy_options.fixed.interval_days = 1.0 / 86400;  // one second
  Open(options);
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/")}).ok());
  Visit(OutcomeClass::kFetched, 1);
  // One second, at a phase of it, is below the minimum.
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/")->next_visit,
            clock_.Now() + absl::Minutes(10));

  options.revisit.policy_options.fixed.interval_days = 365;
  Open(options);
  clock_.Advance(absl::Minutes(10));
  Visit(OutcomeClass::kFetched, 1);
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/")->next_visit, clock_.Now() + absl::Hours(48));
}

TEST_F(FrontierRevisitTest, ErrorsAndRedirectsAreNotRevisited) {
  Open(Revisiting());
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/gone"), U("a.test", "/moved")}).ok());
  std::vector<LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 2u);
  ASSERT_TRUE(frontier_
                  ->Complete({FetchOutcome{.lease_id = tasks[0].lease_id,
                                           .outcome = OutcomeClass::kHttpError,
                                           .http_status = 404},
                              FetchOutcome{.lease_id = tasks[1].lease_id,
                                           .outcome = OutcomeClass::kRedirect,
                                           .http_status = 301}})
                  .ok());
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/gone")->status, UrlStatus::kDone);
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/moved")->status, UrlStatus::kDone);
  EXPECT_TRUE(frontier_->IsExhausted());
  EXPECT_EQ(frontier_->GetRevisitStatus().rates.page_count(), 0);
}

TEST_F(FrontierRevisitTest, RateHistogramCountsEachPageOnceAndSurvivesRestart) {
  Open(Revisiting("optimal"));
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/1"), U("b.test", "/2"), U("c.test", "/3")}).ok());
  for (int round = 0; round < 6; ++round) {
    std::vector<LeasedTask> tasks = LeaseAll();
    ASSERT_EQ(tasks.size(), 3u) << round;
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& task : tasks) {
      outcomes.push_back(FetchOutcome{.lease_id = task.lease_id,
                                      .outcome = OutcomeClass::kFetched,
                                      .http_status = 200,
                                      .content_fingerprint = round % 2 == 0 ? 1u : ~0ull});
    }
    ASSERT_TRUE(frontier_->Complete(outcomes).ok());
    clock_.Advance(absl::Hours(48));
  }
  RevisitStatus status = frontier_->GetRevisitStatus();
  EXPECT_TRUE(status.enabled);
  EXPECT_EQ(status.policy, "optimal");
  EXPECT_EQ(status.rates.page_count(), 3);
  EXPECT_GT(status.rates.total_rate(), 0);
  const std::string before = status.rates.Encode();

  Open(options_);  // a restart
  EXPECT_EQ(frontier_->GetRevisitStatus().rates.Encode(), before);
}

TEST_F(FrontierRevisitTest, OptimalPolicyVisitsAChangingPageMoreOftenThanAStaticOne) {
  Open(Revisiting("optimal"));
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/news"), U("b.test", "/about")}).ok());
  std::vector<absl::Duration> last_interval(2);
  for (int round = 0; round < 10; ++round) {
    std::vector<LeasedTask> tasks = LeaseAll();
    ASSERT_EQ(tasks.size(), 2u) << round;
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& task : tasks) {
      const bool news = task.host_key == "a.test";
      // The news page changes between any two visits, the about page never.
      outcomes.push_back(FetchOutcome{
          .lease_id = task.lease_id,
          .outcome = OutcomeClass::kFetched,
          .http_status = 200,
          .content_fingerprint = news ? (round % 2 == 0 ? 1u : ~0ull) : 0x5555u});
    }
    ASSERT_TRUE(frontier_->Complete(outcomes).ok());
    // The scheduler's job, done by hand: 50 visits a day for the two pages.
    RevisitStatus status = frontier_->GetRevisitStatus();
    ASSERT_TRUE(frontier_
                    ->RetuneRevisits(recrawl::FleetSummary{.budget_visits_per_day = 50,
                                                           .page_count = 2,
                                                           .rates = &status.rates})
                    .ok());
    last_interval[0] = frontier_->LookupUrl("http://a.test/news")->next_visit - clock_.Now();
    last_interval[1] = frontier_->LookupUrl("http://b.test/about")->next_visit - clock_.Now();
    clock_.Advance(absl::Hours(48));
  }
  EXPECT_GT(State("http://a.test/news").policy.rate_per_day,
            10 * State("http://b.test/about").policy.rate_per_day);
  EXPECT_LT(last_interval[0], last_interval[1]);
}

TEST_F(FrontierRevisitTest, RetuneNeedsRevisitingOnAndAPositiveBudget) {
  FrontierOptions off;
  Open(off);
  recrawl::RateHistogram rates;
  EXPECT_EQ(frontier_->RetuneRevisits({.budget_visits_per_day = 1, .rates = &rates}).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(frontier_->GetRevisitStatus().enabled);
  Open(Revisiting("optimal"));
  EXPECT_EQ(frontier_->RetuneRevisits({.budget_visits_per_day = 0, .rates = &rates}).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(FrontierRevisitTest, OptionsAreValidated) {
  FrontierOptions options = Revisiting();
  options.max_pages_total = 100;
  EXPECT_EQ(Frontier::Open(options, store_, clock_).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = Revisiting("sometimes");
  EXPECT_EQ(Frontier::Open(options, store_, clock_).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = Revisiting();
  options.revisit.min_interval = absl::Hours(2);
  options.revisit.max_interval = absl::Hours(1);
  EXPECT_EQ(Frontier::Open(options, store_, clock_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The budget is a cap: ten pages due at once under a budget of 24 re-visits a day with no
// burst go out one per hour, first due first; a new URL is not held; the waits are counted.
TEST_F(FrontierRevisitTest, BudgetCapsRevisitsAndCountsTheWaits) {
  FrontierOptions options = Revisiting();
  options.revisit.budget_burst = absl::ZeroDuration();
  Open(options);
  std::vector<UrlToAdd> urls;
  for (int k = 0; k < 10; ++k) urls.push_back(U("h" + std::to_string(k) + ".test", "/"));
  ASSERT_TRUE(frontier_->AddUrls(urls).ok());
  auto complete = [&](const std::vector<LeasedTask>& tasks) {
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& task : tasks) {
      outcomes.push_back({.lease_id = task.lease_id,
                          .outcome = OutcomeClass::kFetched,
                          .http_status = 200,
                          .content_fingerprint = 7,
                          .content_length = 10});
    }
    ASSERT_TRUE(frontier_->Complete(outcomes).ok());
  };
  complete(LeaseAll());
  RevisitStatus status = frontier_->GetRevisitStatus();
  ASSERT_TRUE(frontier_
                  ->RetuneRevisits(recrawl::FleetSummary{
                      .budget_visits_per_day = 24, .page_count = 10, .rates = &status.rates})
                  .ok());
  EXPECT_DOUBLE_EQ(frontier_->Stats().revisit_budget_visits_per_day, 24);
  clock_.Advance(absl::Hours(2));  // every page is due (hourly, first re-visit spread)
  std::vector<LeasedTask> first = LeaseAll();
  ASSERT_EQ(first.size(), 1u);  // the one token the bucket starts with
  complete(first);
  EXPECT_TRUE(LeaseAll().empty());
  ASSERT_TRUE(frontier_->AddUrls({U("new.test", "/")}).ok());
  std::vector<LeasedTask> fresh = LeaseAll();
  ASSERT_EQ(fresh.size(), 1u);  // a first visit needs no token
  EXPECT_EQ(fresh[0].host_key, "new.test");
  complete(fresh);
  for (int hour = 0; hour < 9; ++hour) {
    clock_.Advance(absl::Hours(1));
    std::vector<LeasedTask> next = LeaseAll();
    ASSERT_EQ(next.size(), 1u) << hour;
    complete(next);
  }
  const FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.revisits_waited, 9u);
  // Due within the first hour (spread), released 3..11 hours after the first visits.
  EXPECT_GE(stats.revisit_wait_seconds, (63 - 9) * 3600);
  EXPECT_LE(stats.revisit_wait_seconds, (63 - 9 * 10.0 / 60) * 3600);
  // Measured spend: 10 re-visits made in the 11 hours since the cap began, against 24 a day.
  EXPECT_EQ(stats.revisits_completed, 10u);
  EXPECT_NEAR(stats.revisit_spend_visits_per_day, 24 * 10.0 / 11, 1.0);
}

// The histogram in the meta family is a summary of the URL records: when it does not decode,
// Open rebuilds it from them (and says so) instead of refusing to open.
TEST_F(FrontierRevisitTest, CorruptRateHistogramIsRebuiltFromTheUrlRecords) {
  Open(Revisiting("optimal"));
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/"), U("b.test", "/"), U("c.test", "/")}).ok());
  for (int round = 0; round < 3; ++round) {
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& task : LeaseAll()) {
      outcomes.push_back({.lease_id = task.lease_id,
                          .outcome = OutcomeClass::kFetched,
                          .http_status = 200,
                          .content_fingerprint = task.host_key == "a.test" ? 1u + round : 9u});
    }
    ASSERT_TRUE(frontier_->Complete(outcomes).ok());
    clock_.Advance(absl::Hours(49));
  }
  const recrawl::RateHistogram original = frontier_->GetRevisitStatus().rates;
  ASSERT_EQ(original.page_count(), 3);
  EXPECT_TRUE(frontier_->OpenWarnings().empty());
  frontier_.reset();
  kv::WriteBatch batch;
  batch.Put(storage::kMetaFamily, storage::kMetaRevisitRatesKey, "not a histogram");
  ASSERT_TRUE(store_.Write(batch).ok());
  Open(Revisiting("optimal"));
  ASSERT_EQ(frontier_->OpenWarnings().size(), 1u);
  EXPECT_NE(frontier_->OpenWarnings()[0].find("rebuilt from the URL records (3 pages)"),
            std::string::npos)
      << frontier_->OpenWarnings()[0];
  // Equal up to the rounding left by the Remove/Add pairs of the incremental histogram.
  const recrawl::RateHistogram rebuilt = frontier_->GetRevisitStatus().rates;
  EXPECT_EQ(rebuilt.page_count(), original.page_count());
  EXPECT_EQ(rebuilt.static_pages(), original.static_pages());
  EXPECT_NEAR(rebuilt.total_rate(), original.total_rate(), 1e-9);
  ASSERT_EQ(rebuilt.bins().size(), original.bins().size());
  for (size_t i = 0; i < original.bins().size(); ++i) {
    EXPECT_NEAR(rebuilt.bins()[i].pages, original.bins()[i].pages, 1e-9) << i;
    EXPECT_NEAR(rebuilt.bins()[i].rate_sum, original.bins()[i].rate_sum, 1e-9) << i;
  }
  Open(Revisiting("optimal"));  // the rebuilt histogram was written back
  EXPECT_TRUE(frontier_->OpenWarnings().empty());
}

// A page that held content and stops working: an error after its retries (or a redirect) keeps
// it in the fleet, re-visited after twice the time since its previous visit; a 404 twice in a
// row takes it out, histogram included.
TEST_F(FrontierRevisitTest, PagesThatStopWorkingBackOffAndLeaveAfterTwoNotFound) {
  FrontierOptions options = Revisiting();
  options.max_attempts = 1;  // an error is final at once
  Open(options);
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/page")}).ok());
  const std::string url = "http://a.test/page";
  Visit(OutcomeClass::kFetched, 1);
  ASSERT_EQ(frontier_->GetRevisitStatus().rates.page_count(), 1);
  auto fail = [&](OutcomeClass outcome, int status) {
    clock_.Advance(frontier_->LookupUrl(url)->next_visit - clock_.Now());
    std::vector<LeasedTask> tasks = LeaseAll();
    ASSERT_EQ(tasks.size(), 1u);
    ASSERT_TRUE(frontier_
                    ->Complete({FetchOutcome{
                        .lease_id = tasks[0].lease_id, .outcome = outcome, .http_status = status}})
                    .ok());
  };
  absl::Time previous = clock_.Now();
  fail(OutcomeClass::kHttpError, 503);
  UrlRecord record = *frontier_->LookupUrl(url);
  ASSERT_EQ(record.status, UrlStatus::kWaiting);
  const absl::Duration first = record.next_visit - record.fetch_time;
  EXPECT_EQ(first, 2 * (clock_.Now() - previous));
  previous = clock_.Now();
  fail(OutcomeClass::kRedirect, 301);
  record = *frontier_->LookupUrl(url);
  ASSERT_EQ(record.status, UrlStatus::kWaiting);
  EXPECT_EQ(record.next_visit - record.fetch_time, 2 * first);  // doubled again
  EXPECT_EQ(frontier_->GetRevisitStatus().rates.page_count(), 1);
  fail(OutcomeClass::kHttpError, 404);
  ASSERT_EQ(frontier_->LookupUrl(url)->status, UrlStatus::kWaiting);  // once may be a blip
  fail(OutcomeClass::kHttpError, 404);
  EXPECT_EQ(frontier_->LookupUrl(url)->status, UrlStatus::kDone);
  EXPECT_EQ(frontier_->GetRevisitStatus().rates.page_count(), 0);
  ASSERT_TRUE(frontier_->GetRevisitStatus().evidence.has_value());
  EXPECT_NEAR(frontier_->GetRevisitStatus().evidence->page_count(), 0, 1e-9);
  EXPECT_TRUE(frontier_->IsExhausted());
}

// Completes every leased URL; pages on host "a*" change at every visit, the others every third.
void CompleteAll(Frontier& frontier, int round) {
  absl::StatusOr<std::vector<LeasedTask>> tasks = frontier.Lease(1000, 1000);
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  std::vector<FetchOutcome> outcomes;
  for (const LeasedTask& task : *tasks) {
    // SimHashes far apart (all 64 bits) on a change.
    const int phase = task.host_key[0] == 'a' ? round : round / 3;
    outcomes.push_back({.lease_id = task.lease_id,
                        .outcome = OutcomeClass::kFetched,
                        .http_status = 200,
                        .content_fingerprint = phase % 2 == 0 ? 1u : ~1ull});
  }
  ASSERT_TRUE(frontier.Complete(outcomes).ok());
}

void ExpectSameEvidence(const recrawl::FleetEvidence& a, const recrawl::FleetEvidence& b) {
  EXPECT_NEAR(a.page_count(), b.page_count(), 1e-9);
  const std::vector<recrawl::FleetEvidence::CellEntry> x = a.cells();
  const std::vector<recrawl::FleetEvidence::CellEntry> y = b.cells();
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].key, y[i].key) << i;
    EXPECT_NEAR(x[i].pages, y[i].pages, 1e-9) << i;
  }
}

// The fitted prior's evidence (RevisitOptions::prior "fitted"): kept next to the histogram as
// each visit moves a page's history, equal to a rebuild from the URL records, persisted across
// a restart, rebuilt with a warning when it does not decode or is missing.
TEST_F(FrontierRevisitTest, FleetEvidenceFollowsTheUrlRecordsAndSurvivesRestart) {
  Open(Revisiting("optimal"));
  ASSERT_TRUE(frontier_
                  ->AddUrls({U("a.test", "/1"), U("a2.test", "/2"), U("b.test", "/3"),
                             U("c.test", "/4")})
                  .ok());
  for (int round = 0; round < 7; ++round) {
    CompleteAll(*frontier_, round);
    clock_.Advance(absl::Hours(49));
  }
  const RevisitStatus status = frontier_->GetRevisitStatus();
  ASSERT_TRUE(status.evidence.has_value());
  // Every page with a visit beyond its first is evidence, once.
  EXPECT_NEAR(status.evidence->page_count(), 4, 1e-9);
  EXPECT_GE(status.evidence->cell_count(), 2u);  // changing and mostly static pages differ
  EXPECT_TRUE(frontier_->OpenWarnings().empty());

  Open(options_);  // a restart (as after kill -9: the last batch is what the store holds)
  EXPECT_TRUE(frontier_->OpenWarnings().empty());
  EXPECT_EQ(frontier_->GetRevisitStatus().evidence, status.evidence);

  frontier_.reset();
  kv::WriteBatch corrupt;
  corrupt.Put(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey, "not evidence");
  ASSERT_TRUE(store_.Write(corrupt).ok());
  Open(options_);
  ASSERT_EQ(frontier_->OpenWarnings().size(), 1u);
  EXPECT_NE(frontier_->OpenWarnings()[0].find("evidence did not decode"), std::string::npos)
      << frontier_->OpenWarnings()[0];
  ExpectSameEvidence(*frontier_->GetRevisitStatus().evidence, *status.evidence);

  // Data from a version without the evidence: rebuilt, and written back.
  frontier_.reset();
  kv::WriteBatch drop;
  drop.Delete(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey);
  ASSERT_TRUE(store_.Write(drop).ok());
  Open(options_);
  ASSERT_EQ(frontier_->OpenWarnings().size(), 1u);
  EXPECT_NE(frontier_->OpenWarnings()[0].find("is missing"), std::string::npos);
  ExpectSameEvidence(*frontier_->GetRevisitStatus().evidence, *status.evidence);
  Open(options_);
  EXPECT_TRUE(frontier_->OpenWarnings().empty());

  // More visits after the rebuild keep it in step with the records.
  for (int round = 7; round < 10; ++round) {
    CompleteAll(*frontier_, round);
    clock_.Advance(absl::Hours(49));
  }
  const recrawl::FleetEvidence incremental = *frontier_->GetRevisitStatus().evidence;
  frontier_.reset();
  ASSERT_TRUE(store_.Write(corrupt).ok());
  Open(options_);
  ExpectSameEvidence(*frontier_->GetRevisitStatus().evidence, incremental);
}

TEST_F(FrontierRevisitTest, FleetMeanPriorKeepsNoEvidence) {
  FrontierOptions options = Revisiting("optimal");
  options.revisit.prior = "fleet-mean";
  Open(Revisiting("optimal"));
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/1"), U("b.test", "/2")}).ok());
  for (int round = 0; round < 3; ++round) {
    CompleteAll(*frontier_, round);
    clock_.Advance(absl::Hours(49));
  }
  ASSERT_TRUE(frontier_->GetRevisitStatus().evidence.has_value());
  Open(options);
  EXPECT_FALSE(frontier_->GetRevisitStatus().evidence.has_value());
  EXPECT_TRUE(absl::IsNotFound(
      store_.Get(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey).status()));
  CompleteAll(*frontier_, 3);
  EXPECT_TRUE(absl::IsNotFound(
      store_.Get(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey).status()));
  // Back to "fitted": what the fleet-mean run did to the histories is rebuilt, not lost.
  Open(Revisiting("optimal"));
  ASSERT_EQ(frontier_->OpenWarnings().size(), 1u);
  EXPECT_NEAR(frontier_->GetRevisitStatus().evidence->page_count(), 2, 1e-9);

  options.revisit.prior = "median";
  EXPECT_EQ(Frontier::Open(options, store_, clock_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The frontier tells the policy the time since its previous tuning as the tuning period
// (recrawl::FleetSummary::retune_period_days, unless the scheduler's own is longer): the optimal
// policy counts its pages' commitments over a horizon never shorter than that. The pages
// re-visited after a tuning get the intervals of a policy tuned with that period, which differ
// from those of a policy told nothing (its horizon a quarter of the uniform interval) and from
// those of one told the time since an earlier tuning.
TEST_F(FrontierRevisitTest, RetuneTellsThePolicyTheTimeSinceThePreviousTuning) {
  FrontierOptions options = Revisiting("optimal");
  options.revisit.budget_burst = absl::Hours(48);  // the budget's cap lets every due page go
  options.revisit.max_interval = absl::Hours(24 * 30);
  Open(options);
  const std::vector<std::string> urls = {"http://a.test/1", "http://a2.test/2", "http://b.test/3",
                                         "http://c.test/4"};
  ASSERT_TRUE(frontier_
                  ->AddUrls({U("a.test", "/1"), U("a2.test", "/2"), U("b.test", "/3"),
                             U("c.test", "/4")})
                  .ok());
  for (int round = 0; round < 6; ++round) {
    CompleteAll(*frontier_, round);
    clock_.Advance(absl::Hours(49));
  }
  const RevisitStatus status = frontier_->GetRevisitStatus();
  ASSERT_TRUE(status.evidence.has_value());
  const recrawl::FleetEvidence evidence = *status.evidence;
  const recrawl::RateHistogram rates = status.rates;
  std::array<double, recrawl::RatePrior::kPoints> weights{};
  weights[45] = 1;  // 10^0.5 changes a day
  weights[35] = 1;  // 10^-0.5
  weights[20] = 1;  // 10^-2
  const recrawl::RatePrior prior(weights);
  // Four pages, three visits a day: the uniform interval is 32 hours, a quarter of it 8. The
  // pages are committed to a visit a day (the policy's interval before its first tuning), more
  // than the budget, so how many of those commitments stand until the pages are re-decided
  // moves the plan.
  const recrawl::FleetSummary fleet{.budget_visits_per_day = 3,
                                    .page_count = 4,
                                    .rates = &rates,
                                    .prior = &prior,
                                    .evidence = &evidence};
  // The frontier's tunings by hand, told these periods (days) one after the other.
  auto tuned = [&](const std::vector<double>& periods) {
    absl::StatusOr<std::unique_ptr<recrawl::RevisitPolicy>> policy =
        recrawl::MakeRevisitPolicy("optimal", options_.revisit.policy_options);
    EXPECT_TRUE(policy.ok()) << policy.status();
    for (const double period : periods) {
      recrawl::FleetSummary told = fleet;
      told.retune_period_days = period;
      (*policy)->Retune(told);
    }
    return *std::move(policy);
  };
  // Visits every page (all due) and expects the intervals `expected` decides for them, where
  // `other` decides otherwise for at least one page (else the check could not tell the two
  // apart).
  auto expect_intervals = [&](const recrawl::RevisitPolicy& expected,
                              const recrawl::RevisitPolicy& other, int round) {
    std::vector<recrawl::PageRevisitState> before;
    for (const std::string& url : urls) before.push_back(State(url));
    CompleteAll(*frontier_, round);
    int told_apart = 0;
    for (size_t i = 0; i < urls.size(); ++i) {
      ASSERT_EQ(frontier_->LookupUrl(urls[i])->fetch_time, clock_.Now()) << urls[i];
      const recrawl::PageRevisitState after = State(urls[i]);
      const recrawl::PageView page{.history = after.history};
      const double want = expected.Decide(page, before[i].policy).next_visit_in_days;
      const double not_want = other.Decide(page, before[i].policy).next_visit_in_days;
      if (std::abs(want - not_want) > 1e-3 * want) ++told_apart;
      const absl::Duration interval = frontier_->LookupUrl(urls[i])->next_visit - clock_.Now();
      EXPECT_NEAR(absl::ToDoubleHours(interval) / 24, want, 1e-6 * want)
          << urls[i] << " round " << round << " (otherwise " << not_want << " days)";
    }
    EXPECT_GT(told_apart, 0) << "round " << round;
  };

  // The first tuning knows no period; the second is told the 60 hours since the first.
  ASSERT_TRUE(frontier_->RetuneRevisits(fleet).ok());
  clock_.Advance(absl::Hours(60));
  ASSERT_TRUE(frontier_->RetuneRevisits(fleet).ok());
  expect_intervals(*tuned({0, 2.5}), *tuned({0, 0}), 6);

  // A tuning 2 hours after the previous one: the horizon is a quarter of the uniform interval
  // again, not the time since the first tuning.
  clock_.Advance(absl::Hours(2));
  ASSERT_TRUE(frontier_->RetuneRevisits(fleet).ok());
  clock_.Advance(absl::Hours(24 * 6));  // every page due again
  expect_intervals(*tuned({0, 2.5, 2.0 / 24}), *tuned({0, 2.5, 62.0 / 24}), 7);
}

// With a fitted prior in the fleet summary, a page's estimate is its posterior rate under it;
// without one (an old scheduler, or the fleet-mean prior), the Gamma prior's as before.
TEST_F(FrontierRevisitTest, RetunedPriorSetsTheEstimates) {
  Open(Revisiting("optimal"));
  ASSERT_TRUE(frontier_->AddUrls({U("a.test", "/1")}).ok());
  for (int round = 0; round < 4; ++round) {
    CompleteAll(*frontier_, round);
    clock_.Advance(absl::Hours(49));
  }
  recrawl::RateHistogram rates = frontier_->GetRevisitStatus().rates;
  std::array<double, recrawl::RatePrior::kPoints> weights{};
  weights[45] = 1;  // 10^0.5 changes a day
  weights[10] = 1;  // 10^-3
  const recrawl::RatePrior prior(weights);
  recrawl::FleetSummary fleet{.budget_visits_per_day = 10,
                              .page_count = 1,
                              .rates = &rates,
                              .mean_rate_per_day = 0.01,
                              .prior = &prior};
  ASSERT_TRUE(frontier_->RetuneRevisits(fleet).ok());
  CompleteAll(*frontier_, 4);
  recrawl::PageRevisitState state = State("http://a.test/1");
  EXPECT_DOUBLE_EQ(state.policy.rate_per_day, prior.PosteriorRate(state.history));

  fleet.prior = nullptr;
  ASSERT_TRUE(frontier_->RetuneRevisits(fleet).ok());
  clock_.Advance(absl::Hours(49));
  CompleteAll(*frontier_, 5);
  state = State("http://a.test/1");
  EXPECT_NE(state.policy.rate_per_day, prior.PosteriorRate(state.history));
}

// ---------------------------------------------------------------------------------- sitemaps

UrlToAdd Listed(const std::string& url, absl::Time lastmod) {
  UrlToAdd u = U("a.test", url);
  u.sitemap.lastmod = lastmod;
  return u;
}

// docs/recrawl.md "Sitemaps": a sitemap's lastmod dates a change as Last-Modified does, when the
// page sends none: the visit that found the change records the time since it.
TEST_F(FrontierRevisitTest, SitemapLastmodDatesAChangeAsLastModifiedDoes) {
  Open(Revisiting());
  const absl::Time t0 = clock_.Now();
  ASSERT_TRUE(frontier_->AddUrls({Listed("/", t0 + absl::Minutes(30))}).ok());
  Visit(OutcomeClass::kFetched, 0x1111);
  clock_.Advance(absl::Hours(1));
  Visit(OutcomeClass::kFetched, ~uint64_t{0x1111});  // changed
  const recrawl::VisitHistory history = State("http://a.test/").history;
  ASSERT_EQ(history.size(), 1);
  EXPECT_TRUE(history[0].changed);
  ASSERT_TRUE(history[0].has_last_modified);
  EXPECT_EQ(history[0].since_last_modified_seconds, 30u * 60);
}

class FrontierSitemapTest : public FrontierRevisitTest,
                            public ::testing::WithParamInterface<bool> {
 protected:
  // The page waits for its hourly re-visit, last visited at the returned time.
  absl::Time Settled() {
    FrontierOptions options = Revisiting();
    // The cache (on by default) answers "seen" without a read; the records of listed URLs must
    // be read either way.
    if (!GetParam()) options.seen_cache_entries = 0;
    Open(options);
    EXPECT_TRUE(frontier_->AddUrls({U("a.test", "/")}).ok());
    Visit(OutcomeClass::kFetched, 0x1111);
    clock_.Advance(frontier_->LookupUrl("http://a.test/")->next_visit - clock_.Now());
    Visit(OutcomeClass::kFetched, 0x1111);
    const absl::Time visited = clock_.Now();
    EXPECT_EQ(frontier_->LookupUrl("http://a.test/")->next_visit, visited + absl::Hours(1));
    return visited;
  }
};

// A lastmod newer than the last visit is a claim of a change: the waiting re-visit comes as
// soon as min_interval allows. An older or repeated one changes nothing.
TEST_P(FrontierSitemapTest, ANewerLastmodBringsTheRevisitForward) {
  const absl::Time visited = Settled();
  clock_.Advance(absl::Minutes(2));
  absl::StatusOr<AddResult> old = frontier_->AddUrls({Listed("/", visited - absl::Hours(1))});
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->already_seen, 1u);
  EXPECT_EQ(old->lastmod_updates, 1u);  // recorded, but it predates the visit
  EXPECT_EQ(old->lastmod_pulls, 0u);
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/")->next_visit, visited + absl::Hours(1));

  absl::StatusOr<AddResult> added = frontier_->AddUrls({Listed("/", visited + absl::Minutes(1))});
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(added->lastmod_pulls, 1u);
  absl::StatusOr<UrlRecord> record = frontier_->LookupUrl("http://a.test/");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->next_visit, visited + absl::Minutes(10));  // min_interval
  EXPECT_TRUE(record->lastmod_pulled);
  EXPECT_EQ(record->sitemap.lastmod, visited + absl::Minutes(1));
  absl::StatusOr<AddResult> again = frontier_->AddUrls({Listed("/", visited + absl::Minutes(1))});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->lastmod_updates, 0u);
  EXPECT_EQ(frontier_->Stats().lastmod_pulls, 1u);

  clock_.Advance(visited + absl::Minutes(10) - clock_.Now());
  Visit(OutcomeClass::kFetched, ~uint64_t{0x1111});  // it did change
  record = frontier_->LookupUrl("http://a.test/");
  EXPECT_FALSE(record->lastmod_pulled);
  EXPECT_EQ(record->lastmod_pulls, 1u);
  EXPECT_EQ(record->lastmod_pulls_changed, 1u);
  EXPECT_TRUE(LastmodTrusted(*record));
}

// Measured evidence wins: a lastmod that claimed a change the visit did not find no longer
// brings visits forward, nor dates changes.
TEST_P(FrontierSitemapTest, ALastmodThatLiedLosesItsSay) {
  const absl::Time visited = Settled();
  clock_.Advance(absl::Minutes(2));
  ASSERT_EQ(frontier_->AddUrls({Listed("/", clock_.Now())})->lastmod_pulls, 1u);
  clock_.Advance(visited + absl::Minutes(10) - clock_.Now());
  Visit(OutcomeClass::kFetched, 0x1111);  // unchanged
  absl::StatusOr<UrlRecord> record = frontier_->LookupUrl("http://a.test/");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->lastmod_pulls, 1u);
  EXPECT_EQ(record->lastmod_pulls_changed, 0u);
  EXPECT_FALSE(LastmodTrusted(*record));
  const absl::Time due = record->next_visit;

  clock_.Advance(absl::Minutes(15));
  absl::StatusOr<AddResult> later = frontier_->AddUrls({Listed("/", clock_.Now())});
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->lastmod_updates, 1u);
  EXPECT_EQ(later->lastmod_pulls, 0u);
  EXPECT_EQ(frontier_->LookupUrl("http://a.test/")->next_visit, due);
}

INSTANTIATE_TEST_SUITE_P(SeenCache, FrontierSitemapTest, ::testing::Bool());

// A re-visiting collection reads its sitemaps again, outside the fleet: no visit history, no
// rate estimate (a sitemap changes whenever any of its pages does), at the fleet's mean
// interval under the budget (max_interval before the first tuning).
TEST_F(FrontierRevisitTest, SitemapsAreReadAgainOutsideTheFleet) {
  Open(Revisiting());
  UrlToAdd sitemap = U("a.test", "/sitemap.xml");
  sitemap.sitemap_level = 1;
  ASSERT_TRUE(frontier_->AddUrls({sitemap, U("a.test", "/p")}).ok());
  std::vector<FetchOutcome> outcomes;
  for (const LeasedTask& task : LeaseAll()) {
    outcomes.push_back({.lease_id = task.lease_id, .outcome = OutcomeClass::kFetched,
                        .http_status = 200, .content_fingerprint = 7});
  }
  ASSERT_EQ(outcomes.size(), 2u);
  ASSERT_TRUE(frontier_->Complete(outcomes).ok());
  absl::StatusOr<UrlRecord> record = frontier_->LookupUrl(sitemap.canonical_url);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->status, UrlStatus::kWaiting);
  EXPECT_TRUE(record->visit_history.empty());
  EXPECT_EQ(record->next_visit, clock_.Now() + absl::Hours(48));
  EXPECT_EQ(frontier_->GetRevisitStatus().rates.page_count(), 1u);  // the page only
  EXPECT_EQ(frontier_->Stats().pages_completed, 1u);
}

// A sitemap is leased as one (its level travels with the lease) and is not a page: it counts
// neither in pages_completed nor against the page budget.
TEST_F(FrontierRevisitTest, SitemapsAreLeasedAsSitemapsAndAreNotPages) {
  FrontierOptions options;
  options.max_in_flight_per_host = 100;
  Open(options);
  UrlToAdd sitemap = U("a.test", "/sitemap.xml");
  sitemap.sitemap_level = 2;
  UrlToAdd too_deep = U("a.test", "/deep.xml");
  too_deep.sitemap_level = kMaxSitemapLevel + 1;
  absl::StatusOr<AddResult> added = frontier_->AddUrls({sitemap, U("a.test", "/p"), too_deep});
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(added->added, 2u);
  EXPECT_EQ(added->invalid, 1u);
  std::vector<LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 2u);
  std::vector<FetchOutcome> outcomes;
  for (const LeasedTask& task : tasks) {
    EXPECT_EQ(task.sitemap_level, task.canonical_url == sitemap.canonical_url ? 2 : 0)
        << task.canonical_url;
    outcomes.push_back({.lease_id = task.lease_id, .outcome = OutcomeClass::kFetched,
                        .http_status = 200});
  }
  ASSERT_TRUE(frontier_->Complete(outcomes).ok());
  EXPECT_EQ(frontier_->Stats().pages_completed, 1u);
  EXPECT_EQ(frontier_->LookupUrl(sitemap.canonical_url)->sitemap_level, 2);
}

}  // namespace
}  // namespace crawler::frontier
