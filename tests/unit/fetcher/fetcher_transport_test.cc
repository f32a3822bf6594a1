// Fetcher loop tests over an in-memory HttpTransport (fake_transport.h): no socket, no server. It
// answers every request from a table (robots.txt and pages with links), checks that each request
// it is handed is covered by a politeness claim granted for its host and not used before, and
// that a host never has more requests in flight than its claims allow. What is pinned: the
// loop's completions, outlinks and claims on a small web; Retry-After reported to the frontier;
// that a frontier failing every third call and a dedup failing every second one are waited out
// (every URL completed exactly once, no outlink lost, every page archived, the failures
// counted); that a non-retryable frontier error stops the crawl; and that a stop while the
// frontier is down returns its error.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/clock.h"
#include "lib/net/address_policy.h"
#include "lib/net/ip_address.h"
#include "lib/politeness/in_process_politeness.h"
#include "lib/politeness/politeness_options.h"
#include "lib/scope/scope.h"
#include "lib/warc/warc_reader.h"
#include "lib/warc/warc_writer.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/dedup/dedup.h"
#include "services/dedup/local_dedup_client.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/http_transport.h"
#include "tests/unit/fetcher/fake_transport.h"
#include "tests/unit/fetcher/fetcher_fakes.h"
#include "tests/unit/frontier/flaky_clients.h"

namespace crawler::fetcher {
namespace {

using crawler::testing::ClaimLedger;
using crawler::testing::FakeFrontierClient;
using crawler::testing::FakeTransport;
using crawler::testing::FlakyDedupClient;
using crawler::testing::FlakyFrontierClient;
using crawler::testing::Html;
using crawler::testing::NoDelay;
using crawler::testing::RecordingObserver;
using crawler::testing::Response;
using crawler::testing::TableResolver;
using crawler::testing::Text;
using frontier::OutcomeClass;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Fails every call of the named methods with `code` (the rest passes through).
class FailingFrontier final : public frontier::FrontierClient {
 public:
  FailingFrontier(frontier::FrontierClient& inner, absl::StatusCode code,
                  std::set<std::string> methods)
      : inner_(inner), code_(code), methods_(std::move(methods)) {}
  absl::StatusOr<frontier::AddResult> AddUrls(const std::vector<frontier::UrlToAdd>& u) override {
    if (Fail("AddUrls")) return absl::Status(code_, "injected: AddUrls");
    return inner_.AddUrls(u);
  }
  absl::StatusOr<std::vector<frontier::LeasedTask>> Lease(size_t n, size_t per_host) override {
    return inner_.Lease(n, per_host);
  }
  absl::StatusOr<frontier::CompleteResult> Complete(
      const std::vector<frontier::FetchOutcome>& o) override {
    if (Fail("Complete")) return absl::Status(code_, "injected: Complete");
    return inner_.Complete(o);
  }
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<frontier::LeaseId>& ids) override {
    if (Fail("ReleaseLeases")) return absl::Status(code_, "injected: ReleaseLeases");
    return inner_.ReleaseLeases(ids);
  }
  absl::StatusOr<frontier::FetcherControlTable> HostControls(uint64_t known) override {
    if (Fail("HostControls")) return absl::Status(code_, "injected: HostControls");
    return inner_.HostControls(known);
  }
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<frontier::HostTime>& t) override {
    if (Fail("ReportHostTimes")) return absl::Status(code_, "injected: ReportHostTimes");
    return inner_.ReportHostTimes(t);
  }
  absl::StatusOr<bool> IsExhausted() override { return inner_.IsExhausted(); }
  absl::StatusOr<frontier::FrontierStats> Stats() override { return inner_.Stats(); }
  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> LookupUrls(
      const std::vector<std::string>& urls) override {
    return inner_.LookupUrls(urls);
  }
  absl::StatusOr<frontier::RevisitStatus> GetRevisitStatus() override {
    return inner_.GetRevisitStatus();
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override {
    return inner_.RetuneRevisits(fleet);
  }
  int failures() const { return failures_; }

 private:
  bool Fail(const std::string& method) {
    if (!methods_.contains(method)) return false;
    ++failures_;
    return true;
  }
  frontier::FrontierClient& inner_;
  const absl::StatusCode code_;
  const std::set<std::string> methods_;
  std::atomic<int> failures_{0};
};

class TransportFetcherTest : public ::testing::Test {
 protected:
  TransportFetcherTest() : transport_(ledger_) {
    options_.robots_agent = "testbot";
    options_.resolver.threads = 1;
    options_.worker_threads = 2;
    options_.flush_interval = absl::Milliseconds(5);
    options_.frontier_retry.initial = absl::Milliseconds(1);
    options_.frontier_retry.max = absl::Milliseconds(10);
    for (const char* host : {"a.test", "b.test", "c.test"}) {
      resolver_.Set(host, std::vector<net::IpAddress>{*net::IpAddress::Parse("127.0.0.1")});
    }
    absl::StatusOr<net::AddressPolicy> guard = net::AddressPolicy::Create({"127.0.0.0/8"});
    EXPECT_TRUE(guard.ok()) << guard.status();
    guard_ = std::make_unique<net::AddressPolicy>(*guard);
    absl::StatusOr<scope::Scope> scope = scope::Scope::Create({}, {}, nullptr);
    EXPECT_TRUE(scope.ok()) << scope.status();
    scope_ = std::make_unique<scope::Scope>(*std::move(scope));
  }

  // Runs a fetcher over the fake transport, bounded (a hang is a failure); Stop() once `until`
  // holds.
  absl::Status Run(frontier::FrontierClient& frontier, dedup::DedupClient* dedup,
                   warc::WarcWriter* warc, std::function<bool(const Fetcher&)> until = nullptr) {
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
        Fetcher::Create(options_, {.frontier = &frontier,
                                   .politeness = &ledger_,
                                   .resolver = &resolver_,
                                   .guard = guard_.get(),
                                   .scope = scope_.get(),
                                   .clock = &clock_,
                                   .dedup = dedup,
                                   .warc = warc,
                                   .observer = &observer_,
                                   .transport = &transport_});
    if (!fetcher.ok()) return fetcher.status();
    absl::Status status = crawler::testing::RunBounded(**fetcher, absl::Seconds(20), until);
    stats_ = (*fetcher)->Stats();
    return status;
  }

  // A web of one page answering `response` (and a robots.txt allowing it), queued; returns its
  // lease.
  frontier::LeaseId ServeOnePage(const std::string& response = Text("home")) {
    transport_.Set("http://a.test/robots.txt", Text("User-agent: *\nAllow: /\n"));
    transport_.Set("http://a.test/", response);
    return frontier_.Add("http://a.test/", "a.test");
  }

  // Completions by URL; fails the test on a URL completed twice.
  std::map<std::string, frontier::FetchOutcome> CompletedOnce() {
    std::map<std::string, frontier::FetchOutcome> by_url;
    for (const frontier::FetchOutcome& o : frontier_.completions()) {
      const std::string url = frontier_.UrlOf(o.lease_id);
      EXPECT_TRUE(by_url.emplace(url, o).second) << url << " completed twice";
    }
    return by_url;
  }

  SystemClock clock_;
  politeness::PolitenessOptions politeness_options_ = NoDelay();
  politeness::InProcessPoliteness politeness_{politeness_options_, clock_, /*seed=*/1};
  ClaimLedger ledger_{politeness_};
  FakeTransport transport_;
  FakeFrontierClient frontier_;
  TableResolver resolver_;
  RecordingObserver observer_;
  FetcherOptions options_;
  std::unique_ptr<net::AddressPolicy> guard_;
  std::unique_ptr<scope::Scope> scope_;
  FetcherStats stats_;
};

// docs/architecture.md §2.1 and §6: robots.txt first, each request under a politeness claim of its
// own, one request per host at a time; outcomes and outlinks reach the frontier and links are
// crawled.
TEST_F(TransportFetcherTest, Design_6_CompletionsOutlinksAndClaimsWithoutASocket) {
  frontier_.set_enqueue_added(true);
  transport_.Set("http://a.test/robots.txt", Text("User-agent: *\nDisallow: /private\n"));
  transport_.Set("http://a.test/", Html(R"(<a href="/a">a</a> <a href="/b">b</a>)"
                                        R"( <a href="/private">p</a> <a href="http://b.test/">b</a>)"));
  transport_.Set("http://a.test/a", Html(R"(<a href="/">home</a> <a href="/missing">gone</a>)"));
  transport_.Set("http://a.test/b", Text("leaf"));
  transport_.Set("http://b.test/", Html(R"(<a href="http://a.test/a">a</a> <a href="/c">c</a>)"));
  transport_.Set("http://b.test/c", Text("leaf"));
  frontier_.Add("http://a.test/", "a.test");

  ASSERT_TRUE(Run(frontier_, nullptr, nullptr).ok());

  std::map<std::string, frontier::FetchOutcome> by_url = CompletedOnce();
  ASSERT_EQ(by_url.size(), 7u);
  EXPECT_EQ(by_url["http://a.test/"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(by_url["http://a.test/a"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(by_url["http://a.test/b"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(by_url["http://a.test/private"].outcome, OutcomeClass::kRobotsDenied);
  EXPECT_EQ(by_url["http://a.test/missing"].http_status, 404);
  EXPECT_EQ(by_url["http://b.test/"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(by_url["http://b.test/c"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(frontier_.unknown_completions(), 0);

  std::set<std::pair<std::string, std::string>> links;  // (from, to)
  for (const frontier::UrlToAdd& u : frontier_.added()) links.emplace(u.discovered_from, u.canonical_url);
  EXPECT_TRUE(links.contains({"http://a.test/", "http://b.test/"}));
  EXPECT_TRUE(links.contains({"http://b.test/", "http://a.test/a"}));
  EXPECT_TRUE(links.contains({"http://a.test/a", "http://a.test/missing"}));

  // robots.txt first on each host, once; the disallowed page never requested.
  std::vector<std::string> a_requests;
  for (const std::string& url : transport_.requests()) {
    if (absl::StartsWith(url, "http://a.test/")) a_requests.push_back(url);
  }
  ASSERT_FALSE(a_requests.empty());
  EXPECT_EQ(a_requests.front(), "http://a.test/robots.txt");
  EXPECT_EQ(std::count(a_requests.begin(), a_requests.end(), "http://a.test/robots.txt"), 1);
  EXPECT_EQ(std::count(a_requests.begin(), a_requests.end(), "http://a.test/private"), 0);
  EXPECT_THAT(transport_.violations(), IsEmpty());
  // One claim per request, each released when its response came.
  EXPECT_EQ(ledger_.granted(), static_cast<int>(transport_.requests().size()));
  EXPECT_EQ(ledger_.released(), ledger_.granted());
  EXPECT_EQ(stats_.requests_started + stats_.robots_requests, transport_.requests().size());
  EXPECT_EQ(stats_.frontier_errors, 0u);
  // A politeness wait per request, robots.txt included; an Exchange time per batch of claims.
  EXPECT_EQ(stats_.politeness_wait.count, transport_.requests().size());
  uint64_t in_buckets = 0;
  for (uint64_t n : stats_.politeness_wait.counts) in_buckets += n;
  EXPECT_EQ(in_buckets, stats_.politeness_wait.count);
  EXPECT_GE(stats_.politeness_wait.sum_seconds, 0);
  EXPECT_GE(stats_.claim_duration.count, 1u);
  EXPECT_LE(stats_.claim_duration.sum_seconds, 60);
  // Nothing left waiting at the end.
  EXPECT_EQ(stats_.hosts_waiting, 0u);
}

// docs/architecture.md §5: a 429/503 with Retry-After blocks the host until then; the frontier is
// told (ReportHostTimes), so it leases nothing of the host meanwhile.
TEST_F(TransportFetcherTest, Design_5_RetryAfterIsReportedToTheFrontier) {
  const frontier::LeaseId lease = ServeOnePage(
      "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 120\r\nContent-Length: 0\r\n\r\n");
  const absl::Time before = absl::Now();
  ASSERT_TRUE(Run(frontier_, nullptr, nullptr).ok());
  const absl::Time after = absl::Now();

  std::optional<frontier::FetchOutcome> outcome = frontier_.CompletionOf(lease);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(outcome->http_status, 503);
  EXPECT_TRUE(outcome->retry);
  const std::vector<frontier::HostTime> times = frontier_.host_times();
  ASSERT_EQ(times.size(), 1u);
  EXPECT_EQ(times[0].host_key, "a.test");
  EXPECT_GE(times[0].next_allowed, before + absl::Seconds(120));
  EXPECT_LE(times[0].next_allowed, after + absl::Seconds(120));
}

// Host times are hints: a frontier that refuses them (here kUnimplemented) costs the crawl
// nothing but the hint, and the refusal is counted.
TEST_F(TransportFetcherTest, AFrontierRefusingHostTimesDoesNotStopTheCrawl) {
  const frontier::LeaseId lease = ServeOnePage(
      "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 60\r\nContent-Length: 0\r\n\r\n");
  FailingFrontier frontier(frontier_, absl::StatusCode::kUnimplemented, {"ReportHostTimes"});
  const absl::Status status = Run(frontier, nullptr, nullptr);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(frontier_.CompletionOf(lease).has_value());
  EXPECT_EQ(frontier.failures(), 1);
  EXPECT_EQ(stats_.frontier_errors, 1u);
  EXPECT_THAT(stats_.frontier_last_error, HasSubstr("ReportHostTimes"));
}

// A frontier failing every third call and a dedup failing every second one: the crawl finishes,
// every URL is completed exactly once, no outlink is lost, every fetched page (and robots.txt)
// has its WARC records, and the frontier failures are counted.
// Host control (FrontierLink's control table): a blocked host gets no request at all, robots.txt
// included, and its leases go back to the frontier; the other hosts are crawled, a delayed one
// too. (A table shown before any lease: the leases that follow it are judged by it.)
TEST_F(TransportFetcherTest, ABlockedHostGetsNoRequestAndItsLeasesGoBack) {
  std::vector<frontier::LeaseId> blocked;
  for (const char* host : {"a.test", "c.test"}) {
    transport_.Set(absl::StrCat("http://", host, "/robots.txt"), Text("User-agent: *\nAllow: /\n"));
    for (int i = 0; i < 3; ++i) {
      const std::string url = absl::StrCat("http://", host, "/", i);
      transport_.Set(url, Text("page"));
      const frontier::LeaseId id = frontier_.Add(url, host);
      if (std::string(host) == "a.test") blocked.push_back(id);
    }
  }
  frontier_.SetControls(
      7, {{.host_key = "a.test", .blocked_until = absl::Now() + absl::Hours(1)},
          {.host_key = "c.test", .delay = absl::Milliseconds(1)}});
  ASSERT_TRUE(Run(frontier_, nullptr, nullptr, [&](const Fetcher&) {
                return frontier_.released().size() >= blocked.size() &&
                       frontier_.completions().size() >= 3;
              }).ok());
  for (const std::string& url : transport_.requests()) {
    EXPECT_FALSE(absl::StrContains(url, "a.test")) << url;
  }
  std::vector<frontier::LeaseId> released = frontier_.released();
  std::sort(released.begin(), released.end());
  EXPECT_EQ(released, blocked);
  for (const frontier::FetchOutcome& o : frontier_.completions()) {
    EXPECT_TRUE(absl::StrContains(frontier_.UrlOf(o.lease_id), "c.test"));
  }
}

TEST_F(TransportFetcherTest, SurvivesAFlakyFrontierAndAFlakyDedup) {
  constexpr int kHosts = 3;
  constexpr int kPages = 8;
  const std::vector<std::string> hosts = {"a.test", "b.test", "c.test"};
  auto url = [&](int host, int page) {
    return absl::StrCat("http://", hosts[host % kHosts], "/p", page % kPages);
  };
  // Page i of host h links to pages i+1 and i+2 of its host and page i of the next host; the
  // last page of every host has the same content (exact duplicates across hosts).
  std::set<std::pair<std::string, std::string>> expected_links;
  for (int h = 0; h < kHosts; ++h) {
    transport_.Set(absl::StrCat("http://", hosts[h], "/robots.txt"),
                   Text("User-agent: *\nAllow: /\n"));
    for (int i = 0; i < kPages; ++i) {
      if (i == kPages - 1) {
        transport_.Set(url(h, i), Html("<p>the same text on every host</p>"));
        continue;
      }
      std::string body = absl::StrCat("<p>page ", i, " of ", hosts[h], "</p>");
      for (const std::string& to : {url(h, i + 1), url(h, i + 2), url(h + 1, i)}) {
        absl::StrAppend(&body, "<a href=\"", to, "\">x</a>");
        expected_links.emplace(url(h, i), to);
      }
      transport_.Set(url(h, i), Html(body));
    }
  }
  frontier_.set_enqueue_added(true);
  frontier_.Add(url(0, 0), "a.test");
  FlakyFrontierClient flaky_frontier(frontier_, /*every=*/3);

  kv::InMemoryKvStore store(dedup::Dedup::ColumnFamilies());
  absl::StatusOr<std::unique_ptr<dedup::Dedup>> dedup = dedup::Dedup::Open({}, store);
  ASSERT_TRUE(dedup.ok()) << dedup.status();
  dedup::LocalDedupClient local_dedup(**dedup);
  FlakyDedupClient flaky_dedup(local_dedup, /*every=*/2);

  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    absl::StrCat("fetcher_transport_test_warc_", ::getpid());
  std::filesystem::remove_all(dir);
  absl::StatusOr<std::unique_ptr<warc::WarcWriter>> warc =
      warc::WarcWriter::Open({.directory = dir.string()}, clock_, /*seed=*/1);
  ASSERT_TRUE(warc.ok()) << warc.status();

  const absl::Status status = Run(flaky_frontier, &flaky_dedup, warc->get());
  ASSERT_TRUE(status.ok()) << status;

  // Every URL of the web, completed exactly once.
  std::map<std::string, frontier::FetchOutcome> by_url = CompletedOnce();
  EXPECT_EQ(by_url.size(), static_cast<size_t>(kHosts * kPages));
  for (int h = 0; h < kHosts; ++h) {
    for (int i = 0; i < kPages; ++i) {
      ASSERT_TRUE(by_url.contains(url(h, i))) << url(h, i) << " not completed";
      const OutcomeClass outcome = by_url[url(h, i)].outcome;
      EXPECT_TRUE(outcome == OutcomeClass::kFetched || outcome == OutcomeClass::kDuplicate)
          << url(h, i);
    }
  }
  EXPECT_EQ(frontier_.unknown_completions(), 0);
  EXPECT_EQ(frontier_.outstanding(), 0u);

  // No outlink lost: every link of every page reached the frontier.
  std::set<std::pair<std::string, std::string>> added;
  for (const frontier::UrlToAdd& u : frontier_.added()) added.emplace(u.discovered_from, u.canonical_url);
  for (const auto& link : expected_links) {
    EXPECT_TRUE(added.contains(link)) << link.first << " -> " << link.second << " lost";
  }

  // Every fetched page and every robots.txt has its response (or revisit) and request records.
  ASSERT_TRUE((*warc)->Close().ok());
  std::map<std::string, std::multiset<std::string>> types_by_uri;
  for (const std::string& path : (*warc)->Files()) {
    absl::StatusOr<std::unique_ptr<warc::WarcReader>> reader = warc::WarcReader::Open(path);
    ASSERT_TRUE(reader.ok()) << reader.status();
    while (true) {
      absl::StatusOr<std::optional<warc::ParsedRecord>> next = (*reader)->Next();
      ASSERT_TRUE(next.ok()) << next.status();
      if (!next->has_value()) break;
      types_by_uri[(*next)->Field("WARC-Target-URI")].insert((*next)->Field("WARC-Type"));
    }
  }
  std::filesystem::remove_all(dir);
  for (const auto& [page, outcome] : by_url) {
    const std::multiset<std::string>& types = types_by_uri[page];
    EXPECT_EQ(types.count("response") + types.count("revisit"), 1u) << page;
    EXPECT_EQ(types.count("request"), 1u) << page;
  }
  for (const std::string& host : hosts) {
    const std::multiset<std::string>& types =
        types_by_uri[absl::StrCat("http://", host, "/robots.txt")];
    EXPECT_EQ(types.count("response"), 1u) << host;
    EXPECT_EQ(types.count("request"), 1u) << host;
  }

  // The failures happened and are reported.
  EXPECT_GT(flaky_frontier.failures(), 0);
  EXPECT_GT(flaky_dedup.failures(), 0);
  EXPECT_EQ(stats_.frontier_errors, static_cast<uint64_t>(flaky_frontier.failures()));
  EXPECT_GE(stats_.frontier_outages, 1u);
  EXPECT_LE(stats_.frontier_outages, stats_.frontier_errors);
  EXPECT_THAT(stats_.frontier_last_error, HasSubstr("injected outage"));
  EXPECT_EQ(stats_.completed, static_cast<uint64_t>(kHosts * kPages));
  EXPECT_THAT(transport_.violations(), IsEmpty());
}

// Only a non-retryable frontier error stops the crawl, and Run returns it.
TEST_F(TransportFetcherTest, ANonRetryableFrontierErrorStopsTheCrawl) {
  ServeOnePage();
  FailingFrontier frontier(frontier_, absl::StatusCode::kInvalidArgument, {"Complete"});
  const absl::Status status = Run(frontier, nullptr, nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_EQ(frontier.failures(), 1);  // not retried
  EXPECT_EQ(stats_.frontier_errors, 1u);
  EXPECT_THAT(frontier_.completions(), IsEmpty());
}

// Stopped while the frontier is unreachable: Run returns its error and says what was not sent
// (re-leased by the frontier at lease expiry); the link retried with back-off meanwhile.
TEST_F(TransportFetcherTest, AStopWhileTheFrontierIsDownReturnsItsError) {
  ServeOnePage();
  FailingFrontier frontier(frontier_, absl::StatusCode::kUnavailable, {"AddUrls", "Complete"});
  const absl::Status status =
      Run(frontier, nullptr, nullptr,
          [](const Fetcher& f) { return f.Stats().frontier_errors >= 3; });
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("1 completions"));
  EXPECT_EQ(stats_.frontier_outages, 1u);  // one outage, however many failed calls
  EXPECT_GE(stats_.frontier_errors, 3u);
  EXPECT_THAT(stats_.frontier_last_error, HasSubstr("injected: Complete"));
  EXPECT_THAT(frontier_.completions(), IsEmpty());
}

}  // namespace
}  // namespace crawler::fetcher
