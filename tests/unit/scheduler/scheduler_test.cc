// Scheduler and Collection tests: validation of a collection (each error names what is wrong),
// seed canonicalisation, and feeding the seeds to a real Frontier on an in-memory store with a
// fake clock (docs/architecture.md §3 "scheduler ... routes seeds").
#include "services/scheduler/scheduler.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/scope/scope.h"
#include "lib/url/url.h"
#include "services/collections/collection.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/local_frontier_client.h"
#include "tests/unit/frontier/flaky_clients.h"

namespace crawler::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

Collection WithSeeds(std::vector<std::string> seeds) {
  Collection c;
  c.name = "test";
  c.seeds = std::move(seeds);
  return c;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// --------------------------------------------------------------------------- validation

struct InvalidCase {
  std::string name;
  Collection collection;
  std::string must_mention;  // the error names the culprit
};

TEST(SchedulerCreate, InvalidCollectionsAreRejectedNamingTheCulprit) {
  std::vector<InvalidCase> cases;
  cases.push_back({"no seeds", WithSeeds({}), "seed"});
  cases.push_back({"malformed seed", WithSeeds({"http://ok.test/", "http://exa mple.test/"}),
                   "http://exa mple.test/"});
  cases.push_back({"relative seed", WithSeeds({"/just/a/path"}), "/just/a/path"});
  cases.push_back({"non-http seed", WithSeeds({"ftp://files.test/pub/"}), "ftp://files.test/pub/"});
  {
    Collection c = WithSeeds({"http://a.test/"});
    c.scope.allowed_host_suffixes = {"a.test", "bad host..suffix!"};
    cases.push_back({"bad suffix", c, "bad host..suffix!"});
  }
  {
    Collection c = WithSeeds({"http://a.test/"});
    c.scope.include_patterns = {"^http://a\\.test/(unclosed"};
    cases.push_back({"bad include pattern", c, "(unclosed"});
  }
  {
    Collection c = WithSeeds({"http://a.test/"});
    c.scope.exclude_patterns = {"[z-a]"};
    cases.push_back({"bad exclude pattern", c, "[z-a]"});
  }
  {
    Collection c = WithSeeds({"http://a.test/"});
    c.name = "";
    cases.push_back({"empty name", c, "name"});
  }
  {
    Collection c = WithSeeds({"http://a.test/"});
    c.limits.max_pages = 0;
    cases.push_back({"zero max_pages", c, "max_pages"});
  }
  {
    Collection c = WithSeeds({"http://a.test/"});
    c.limits.max_pages_per_host = 0;
    cases.push_back({"zero max_pages_per_host", c, "max_pages_per_host"});
  }
  {
    Collection c = WithSeeds({"http://a.test/"});
    c.politeness.max_connections_per_host = 0;
    cases.push_back({"bad politeness", c, "max_connections_per_host"});
  }
  {
    Collection c = WithSeeds({"http://a.test/"});
    c.politeness.min_delay = absl::Seconds(10);
    c.politeness.max_delay = absl::Seconds(1);
    cases.push_back({"max_delay below min_delay", c, "max_delay"});
  }
  for (const InvalidCase& c : cases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::unique_ptr<Scheduler>> s = Scheduler::Create(c.collection, {});
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(absl::IsInvalidArgument(s.status())) << s.status();
    EXPECT_THAT(Message(s.status()), HasSubstr(c.must_mention));
  }
}

TEST(CollectionValidate, DefaultsWithASeedAreValid) {
  EXPECT_TRUE(WithSeeds({"http://a.test/"}).Validate().ok());
  EXPECT_TRUE(absl::IsInvalidArgument(Collection().Validate()));  // no seeds
}

// ------------------------------------------------------------------------ seeds and the frontier

class SchedulerTest : public ::testing::Test {
 protected:
  SchedulerTest() : store_(frontier::Frontier::ColumnFamilies()) {
    absl::StatusOr<std::unique_ptr<frontier::Frontier>> f =
        frontier::Frontier::Open(frontier::FrontierOptions(), store_, clock_);
    EXPECT_TRUE(f.ok()) << f.status();
    frontier_ = std::move(*f);
    client_ = std::make_unique<frontier::LocalFrontierClient>(*frontier_);
  }

  std::unique_ptr<Scheduler> Make(const Collection& c, url::CanonicalizeOptions canonical = {}) {
    absl::StatusOr<std::unique_ptr<Scheduler>> s = Scheduler::Create(c, canonical);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  std::vector<frontier::LeasedTask> LeaseAll() {
    absl::StatusOr<std::vector<frontier::LeasedTask>> tasks = frontier_->Lease(1000, 1000);
    EXPECT_TRUE(tasks.ok()) << tasks.status();
    return tasks.value_or(std::vector<frontier::LeasedTask>{});
  }

  FakeClock clock_;
  kv::InMemoryKvStore store_;
  std::unique_ptr<frontier::Frontier> frontier_;
  std::unique_ptr<frontier::LocalFrontierClient> client_;
};

TEST_F(SchedulerTest, SeedsAreCanonicalisedAndQueuedAtDepthZeroWithTheirHostKey) {
  std::unique_ptr<Scheduler> s =
      Make(WithSeeds({"HTTP://Example.ORG:80/a/../b?utm_source=news#top",
                      "https://example.org:8443/x?jsessionid=123&id=7", "http://b.test"}));
  ASSERT_NE(s, nullptr);
  absl::StatusOr<SeedReport> report = s->FeedSeeds(*client_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->seeds, 3u);
  EXPECT_EQ(report->queued, 3u);
  EXPECT_EQ(report->already_seen, 0u);
  EXPECT_THAT(report->rejected, IsEmpty());

  std::vector<frontier::LeasedTask> tasks = LeaseAll();
  std::vector<std::string> got;
  for (const frontier::LeasedTask& t : tasks) {
    got.push_back(t.canonical_url + " " + t.host_key);
    EXPECT_EQ(t.depth, 0u) << t.canonical_url;
  }
  EXPECT_THAT(got, UnorderedElementsAre("http://example.org/b example.org",
                                        "https://example.org:8443/x?id=7 example.org:8443",
                                        "http://b.test/ b.test"));
}

TEST_F(SchedulerTest, CanonicalizeOptionsApplyToSeeds) {
  url::CanonicalizeOptions keep_tracking;
  keep_tracking.strip_tracking_params = false;
  std::unique_ptr<Scheduler> s = Make(WithSeeds({"http://a.test/?utm_source=x"}), keep_tracking);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->FeedSeeds(*client_).ok());
  std::vector<frontier::LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].canonical_url, "http://a.test/?utm_source=x");
}

TEST_F(SchedulerTest, SeedsOutOfScopeAreReportedNotQueued) {
  Collection c = WithSeeds({"http://www.a.test/", "http://other.test/", "http://a.test/skip/me"});
  c.scope.allowed_host_suffixes = {"a.test"};
  c.scope.exclude_patterns = {"/skip/"};
  std::unique_ptr<Scheduler> s = Make(c);
  ASSERT_NE(s, nullptr);
  absl::StatusOr<SeedReport> report = s->FeedSeeds(*client_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->seeds, 3u);
  EXPECT_EQ(report->queued, 1u);
  EXPECT_THAT(report->rejected, UnorderedElementsAre("http://other.test/: host_not_allowed",
                                                     "http://a.test/skip/me: excluded"));
  std::vector<frontier::LeasedTask> tasks = LeaseAll();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].canonical_url, "http://www.a.test/");
}

// A resumed crawl feeds its seeds again: the frontier already knows them.
TEST_F(SchedulerTest, SecondFeedReportsSeedsAlreadySeen) {
  std::unique_ptr<Scheduler> s = Make(WithSeeds({"http://a.test/", "http://b.test/"}));
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->FeedSeeds(*client_)->queued, 2u);
  absl::StatusOr<SeedReport> again = s->FeedSeeds(*client_);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->seeds, 2u);
  EXPECT_EQ(again->queued, 0u);
  EXPECT_EQ(again->already_seen, 2u);
  EXPECT_EQ(LeaseAll().size(), 2u);  // not queued twice
}

TEST_F(SchedulerTest, SeedsEqualAfterCanonicalisationAreQueuedOnce) {
  std::unique_ptr<Scheduler> s =
      Make(WithSeeds({"http://a.test/", "HTTP://A.TEST:80/#x", "http://a.test/?"}));
  ASSERT_NE(s, nullptr);
  absl::StatusOr<SeedReport> report = s->FeedSeeds(*client_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->queued, 1u);
  EXPECT_EQ(report->already_seen, 2u);
  EXPECT_EQ(LeaseAll().size(), 1u);
}

// AddSeeds: more seeds of the same collection, judged by its scope (the admin API's stream).
TEST_F(SchedulerTest, AddedSeedsAreCanonicalisedScopedAndReportedLikeTheCollectionsOwn) {
  Collection c = WithSeeds({"http://a.test/"});
  c.scope.allowed_host_suffixes = {"a.test"};
  std::unique_ptr<Scheduler> s = Make(c);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->FeedSeeds(*client_)->queued, 1u);
  absl::StatusOr<SeedReport> report = s->AddSeeds(
      *client_, {"HTTP://WWW.A.TEST/x#frag", "http://a.test/", "http://b.test/", "not a url"});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->seeds, 4u);
  EXPECT_EQ(report->queued, 1u);
  EXPECT_EQ(report->already_seen, 1u);
  ASSERT_EQ(report->rejected.size(), 2u);
  EXPECT_EQ(report->rejected[0], "http://b.test/: host_not_allowed");
  EXPECT_THAT(report->rejected[1], ::testing::StartsWith("not a url: "));
  std::vector<std::string> got;
  for (const frontier::LeasedTask& t : LeaseAll()) got.push_back(t.canonical_url);
  EXPECT_THAT(got, UnorderedElementsAre("http://a.test/", "http://www.a.test/x"));
}

TEST_F(SchedulerTest, JudgeGivesTheCanonicalFormHostKeyAndVerdictAtADepth) {
  Collection c = WithSeeds({"http://a.test/"});
  c.scope.max_depth = 1;
  std::unique_ptr<Scheduler> s = Make(c);
  ASSERT_NE(s, nullptr);
  absl::StatusOr<Scheduler::Judged> judged = s->Judge("HTTP://A.test:80/p/../q", 2);
  ASSERT_TRUE(judged.ok()) << judged.status();
  EXPECT_EQ(judged->canonical.str(), "http://a.test/q");
  EXPECT_EQ(judged->host_key, "a.test");
  EXPECT_EQ(judged->verdict, scope::Verdict::kTooDeep);
  EXPECT_EQ(s->Judge("http://a.test/q", 1)->verdict, scope::Verdict::kInScope);
  EXPECT_EQ(s->Judge("::", 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SchedulerTest, ScopeIsTheCollectionsScope) {
  Collection c = WithSeeds({"http://a.test/"});
  c.scope.allowed_host_suffixes = {"a.test"};
  c.scope.max_depth = 2;
  std::unique_ptr<Scheduler> s = Make(c);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->collection().name, "test");
  const url::Url in = url::Url::Parse("http://sub.a.test/p").value();
  const url::Url out = url::Url::Parse("http://b.test/p").value();
  EXPECT_EQ(s->scope().Check(in, "http://sub.a.test/p", 2), scope::Verdict::kInScope);
  EXPECT_EQ(s->scope().Check(in, "http://sub.a.test/p", 3), scope::Verdict::kTooDeep);
  EXPECT_EQ(s->scope().Check(out, "http://b.test/p", 1), scope::Verdict::kHostNotAllowed);
}

// same_site_only: the seeds' registrable domains (Public Suffix List) are the sites.
TEST_F(SchedulerTest, SameSiteOnlyUsesTheSeedsRegistrableDomains) {
  Collection c = WithSeeds({"http://www.example.co.uk/"});
  c.scope.same_site_only = true;
  std::unique_ptr<Scheduler> s = Make(c);
  ASSERT_NE(s, nullptr);
  const url::Url same = url::Url::Parse("http://news.example.co.uk/").value();
  const url::Url other = url::Url::Parse("http://other.co.uk/").value();
  EXPECT_EQ(s->scope().Check(same, same.href(), 1), scope::Verdict::kInScope);
  EXPECT_EQ(s->scope().Check(other, other.href(), 1), scope::Verdict::kOtherSite);
  absl::StatusOr<SeedReport> report = s->FeedSeeds(*client_);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->queued, 1u);
}

// A frontier that cannot be reached: every call fails with kUnavailable.
class UnavailableFrontier final : public frontier::FrontierClient {
 public:
  absl::StatusOr<frontier::AddResult> AddUrls(const std::vector<frontier::UrlToAdd>&) override {
    ++add_calls;
    return absl::UnavailableError("down");
  }
  absl::StatusOr<std::vector<frontier::LeasedTask>> Lease(size_t, size_t) override {
    return absl::UnavailableError("down");
  }
  absl::StatusOr<frontier::CompleteResult> Complete(
      const std::vector<frontier::FetchOutcome>&) override {
    return absl::UnavailableError("down");
  }
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<frontier::HostTime>&) override {
    return absl::UnavailableError("down");
  }
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<frontier::LeaseId>&) override {
    return absl::UnavailableError("down");
  }
  absl::StatusOr<frontier::FetcherControlTable> HostControls(uint64_t) override {
    return absl::UnavailableError("down");
  }
  absl::StatusOr<bool> IsExhausted() override { return absl::UnavailableError("down"); }
  absl::StatusOr<frontier::FrontierStats> Stats() override {
    return absl::UnavailableError("down");
  }
  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> LookupUrls(
      const std::vector<std::string>&) override {
    return absl::UnavailableError("down");
  }
  absl::StatusOr<frontier::RevisitStatus> GetRevisitStatus() override {
    return absl::UnavailableError("down");
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary&) override {
    return absl::UnavailableError("down");
  }
  int add_calls = 0;
};

// Waits are recorded, not slept.
SeedFeedOptions RecordingFeed(std::vector<absl::Duration>& waits, uint32_t attempts = 10) {
  SeedFeedOptions options;
  options.retry.max_attempts = attempts;
  options.sleep = [&waits](absl::Duration d) { waits.push_back(d); };
  return options;
}

TEST_F(SchedulerTest, FrontierErrorsArePassedOn) {
  std::unique_ptr<Scheduler> s = Make(WithSeeds({"http://a.test/"}));
  ASSERT_NE(s, nullptr);
  UnavailableFrontier down;
  std::vector<absl::Duration> waits;
  absl::StatusOr<SeedReport> report = s->FeedSeeds(down, RecordingFeed(waits, 4));
  EXPECT_TRUE(absl::IsUnavailable(report.status())) << report.status();
  // Tried 4 times, backing off between attempts: each wait doubles, less at most 20% jitter.
  EXPECT_EQ(down.add_calls, 4);
  ASSERT_EQ(waits.size(), 3u);
  EXPECT_GT(waits[1], waits[0]);
  EXPECT_GT(waits[2], waits[1]);
}

TEST_F(SchedulerTest, SeedsSurviveAFrontierFailingEveryThirdCall) {
  std::vector<std::string> seeds;
  for (int i = 0; i < 50; ++i) seeds.push_back(absl::StrCat("http://h", i, ".test/"));
  std::unique_ptr<Scheduler> s = Make(WithSeeds(seeds));
  ASSERT_NE(s, nullptr);
  testing::FlakyFrontierClient flaky(*client_, 3);
  std::vector<absl::Duration> waits;
  SeedFeedOptions options = RecordingFeed(waits);
  options.batch_urls = 7;  // 8 calls that succeed, every third attempt failing
  absl::StatusOr<SeedReport> report = s->FeedSeeds(flaky, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->queued, 50u);  // no seed lost
  EXPECT_GT(report->failed_calls, 0u);  // and the outage reported
  EXPECT_TRUE(absl::IsUnavailable(report->last_error));
  EXPECT_EQ(waits.size(), report->failed_calls);
  EXPECT_EQ(frontier_->Stats().queued_urls, 50u);
}

// A rejected seed of 70 KB is shown by its start and its length, so the reason is seen.
TEST_F(SchedulerTest, ALongRejectedSeedIsAbbreviatedAndKeepsItsReason) {
  Collection c = WithSeeds({"http://a.test/"});
  std::unique_ptr<Scheduler> s = Make(c);
  ASSERT_NE(s, nullptr);
  const std::string long_seed = "http://a.test/" + std::string(70000, 'c');
  absl::StatusOr<SeedReport> report = s->AddSeeds(*client_, {long_seed});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->rejected.size(), 1u);
  EXPECT_LT(report->rejected[0].size(), 300u);
  EXPECT_THAT(report->rejected[0], ::testing::StartsWith("http://a.test/ccc"));
  EXPECT_THAT(report->rejected[0], ::testing::HasSubstr("(70014 bytes)"));
  EXPECT_THAT(report->rejected[0], ::testing::EndsWith(": trap_too_long"));
}

TEST_F(SchedulerTest, AllSeedsOutOfScopeSendsNothing) {
  Collection c = WithSeeds({"http://other.test/"});
  c.scope.allowed_host_suffixes = {"a.test"};
  std::unique_ptr<Scheduler> s = Make(c);
  ASSERT_NE(s, nullptr);
  UnavailableFrontier down;  // not called: nothing to send
  absl::StatusOr<SeedReport> report = s->FeedSeeds(down);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->queued, 0u);
  EXPECT_THAT(report->rejected, ElementsAre("http://other.test/: host_not_allowed"));
}

}  // namespace
}  // namespace crawler::scheduler
