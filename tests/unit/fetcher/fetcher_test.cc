// Fetcher loop tests: the real HttpClient against a loopback server (test_http_server.h, port 0,
// every host routed to it with connect_to or a table resolver), a fake frontier, and
// InProcessPoliteness on the system clock (the loop times politeness with MonotonicNow, which a
// FakeClock would freeze). What is pinned: robots.txt first and once per host and what its
// status means (RFC 9309 §2.3.1), politeness gaps and connection limits measured at the server
// (docs/architecture.md §5), no automatic redirects (RFC 9110 §15.4), conditional GETs (RFC 9110
// §13.1), leases abandoned rather than started late, Stop(), and that outcomes and outlinks reach
// the frontier.
#include "services/fetcher/fetcher.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
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
#include "lib/warc/warc_writer.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/local_frontier_client.h"
#include "services/frontier/url_record.h"
#include "tests/unit/fetcher/fetcher_fakes.h"
#include "tests/unit/fetcher/test_http_server.h"

namespace crawler::fetcher {
namespace {

using crawler::testing::FakeFrontierClient;
using crawler::testing::RecordingObserver;
using crawler::testing::TableResolver;
using crawler::testing::TestHttpServer;
using crawler::testing::TestResponse;
using frontier::OutcomeClass;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

using SteadyTime = std::chrono::steady_clock::time_point;

std::string Response(int status, const std::string& reason, const std::string& body,
                     const std::vector<std::string>& fields = {}) {
  std::string out = absl::StrCat("HTTP/1.1 ", status, " ", reason, "\r\n");
  for (const std::string& f : fields) absl::StrAppend(&out, f, "\r\n");
  absl::StrAppend(&out, "Content-Length: ", body.size(), "\r\n\r\n", body);
  return out;
}
std::string Html(const std::string& body) {
  return Response(200, "OK", body, {"Content-Type: text/html"});
}
std::string Text(const std::string& body) {
  return Response(200, "OK", body, {"Content-Type: text/plain"});
}

// A web of virtual hosts on one loopback server: responses by (Host, path), 404 otherwise. It
// records every request with its arrival time and how many requests of the same host were being
// answered at once.
class FakeWeb {
 public:
  struct Hit {
    std::string host;  // Host header without port
    std::string target;
    std::string head;
    SteadyTime time;
  };

  FakeWeb() : server_([this](const std::string& head) { return Handle(head); }) {}

  uint16_t port() const { return server_.port(); }

  void Set(const std::string& host, const std::string& target, std::string response,
           bool close = false) {
    absl::MutexLock lock(&mu_);
    routes_[{host, target}] = TestResponse{std::move(response), close};
  }
  // Every answer is delayed this long (a slow server; it keeps requests in flight).
  void set_latency(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    latency_ = d;
  }

  std::vector<Hit> hits() const {
    absl::MutexLock lock(&mu_);
    return hits_;
  }
  std::vector<Hit> HitsOf(const std::string& host) const {
    std::vector<Hit> out;
    for (Hit& h : hits()) {
      if (h.host == host) out.push_back(std::move(h));
    }
    return out;
  }
  std::vector<std::string> TargetsOf(const std::string& host) const {
    std::vector<std::string> out;
    for (const Hit& h : HitsOf(host)) out.push_back(h.target);
    return out;
  }
  int Count(const std::string& host, const std::string& target) const {
    int n = 0;
    for (const Hit& h : HitsOf(host)) n += h.target == target ? 1 : 0;
    return n;
  }
  int max_concurrent(const std::string& host) const {
    absl::MutexLock lock(&mu_);
    auto it = max_concurrent_.find(host);
    return it == max_concurrent_.end() ? 0 : it->second;
  }
  int max_concurrent_total() const {
    absl::MutexLock lock(&mu_);
    return max_total_;
  }

 private:
  static std::string HeaderValue(const std::string& head, const std::string& name) {
    const std::string lower = absl::AsciiStrToLower(head);
    const size_t pos = lower.find("\r\n" + absl::AsciiStrToLower(name) + ":");
    if (pos == std::string::npos) return "";
    size_t start = pos + 3 + name.size();
    while (start < head.size() && head[start] == ' ') ++start;
    return head.substr(start, head.find("\r\n", start) - start);
  }

  TestResponse Handle(const std::string& head) {
    std::string host = HeaderValue(head, "Host");
    host = host.substr(0, host.find(':'));
    const size_t sp1 = head.find(' ');
    const std::string target = head.substr(sp1 + 1, head.find(' ', sp1 + 1) - sp1 - 1);
    TestResponse response{Response(404, "Not Found", "no such page"), false};
    absl::Duration latency;
    {
      absl::MutexLock lock(&mu_);
      hits_.push_back(Hit{host, target, head, std::chrono::steady_clock::now()});
      auto it = routes_.find({host, target});
      if (it != routes_.end()) response = it->second;
      latency = latency_;
      max_concurrent_[host] = std::max(max_concurrent_[host], ++concurrent_[host]);
      max_total_ = std::max(max_total_, ++total_);
    }
    if (latency > absl::ZeroDuration()) absl::SleepFor(latency);  // the server being slow
    {
      absl::MutexLock lock(&mu_);
      --concurrent_[host];
      --total_;
    }
    return response;
  }

  mutable absl::Mutex mu_;
  std::map<std::pair<std::string, std::string>, TestResponse> routes_ ABSL_GUARDED_BY(mu_);
  std::vector<Hit> hits_ ABSL_GUARDED_BY(mu_);
  absl::Duration latency_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  std::map<std::string, int> concurrent_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> max_concurrent_ ABSL_GUARDED_BY(mu_);
  int total_ ABSL_GUARDED_BY(mu_) = 0;
  int max_total_ ABSL_GUARDED_BY(mu_) = 0;
  TestHttpServer server_;  // last: its threads call Handle, which uses the members above
};

// Smallest gap between consecutive requests (excluding robots.txt when asked).
absl::Duration MinGap(const std::vector<FakeWeb::Hit>& hits, bool skip_robots) {
  std::vector<SteadyTime> times;
  for (const FakeWeb::Hit& h : hits) {
    if (skip_robots && h.target == "/robots.txt") continue;
    times.push_back(h.time);
  }
  absl::Duration min_gap = absl::InfiniteDuration();
  for (size_t i = 1; i < times.size(); ++i) {
    min_gap = std::min(min_gap, absl::FromChrono(times[i] - times[i - 1]));
  }
  return min_gap;
}

// The in-process politeness behind a delay before each claim is decided, as a shared store
// (Redis) adds a round trip; it records every claim and release in order.
class SlowPoliteness : public politeness::Politeness {
 public:
  struct Event {
    std::string host;
    absl::Time time;  // just before the claim was decided / the release
    enum class Kind { kGranted, kRefused, kReleased } kind;
    absl::Duration wait = absl::ZeroDuration();  // of a refusal, or until the next claim
  };

  SlowPoliteness(politeness::Politeness& inner, absl::Duration latency)
      : inner_(inner), latency_(latency) {}

  absl::StatusOr<politeness::ClaimResult> Claim(const politeness::ClaimRequest& r) override {
    if (latency_ > absl::ZeroDuration()) absl::SleepFor(latency_);
    const absl::Time time = absl::Now();
    absl::StatusOr<politeness::ClaimResult> result = inner_.Claim(r);
    if (result.ok()) {
      absl::MutexLock lock(&mu_);
      events_.push_back(
          Event{.host = r.host_key,
                .time = time,
                .kind = result->granted ? Event::Kind::kGranted : Event::Kind::kRefused,
                .wait = result->wait});
    }
    return result;
  }
  absl::StatusOr<politeness::ReleaseResult> Release(const politeness::ReleaseRequest& r) override {
    const absl::Time time = absl::Now();
    absl::StatusOr<politeness::ReleaseResult> result = inner_.Release(r);
    absl::MutexLock lock(&mu_);
    events_.push_back(Event{.host = r.host_key,
                            .time = time,
                            .kind = Event::Kind::kReleased,
                            .wait = result.ok() ? result->wait : absl::ZeroDuration()});
    return result;
  }
  int MaxConnectionsPerHost() const override { return inner_.MaxConnectionsPerHost(); }
  politeness::PolitenessStats Stats() const override { return inner_.Stats(); }

  std::vector<Event> events() const {
    absl::MutexLock lock(&mu_);
    return events_;
  }

 private:
  politeness::Politeness& inner_;
  const absl::Duration latency_;
  mutable absl::Mutex mu_;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
};

class FetcherTest : public ::testing::Test {
 protected:
  FetcherTest() {
    options_.http.connect_to = absl::StrCat("127.0.0.1:", web_.port());
    options_.http.user_agent = "TestBot/1.0 (+http://example.org/bot)";
    options_.http.connect_timeout = absl::Seconds(2);
    options_.http.total_timeout = absl::Seconds(5);
    options_.robots_agent = "testbot";
    options_.resolver.threads = 1;
    options_.worker_threads = 2;
    options_.flush_interval = absl::Milliseconds(5);
    politeness_.min_delay = absl::ZeroDuration();
    politeness_.delay_factor = 0;
    politeness_.error_backoff_base = absl::Milliseconds(5);
    politeness_.error_backoff_max = absl::Milliseconds(20);
    politeness_.jitter_fraction = 0;
  }

  absl::StatusOr<std::unique_ptr<Fetcher>> Create() {
    EXPECT_TRUE(politeness_.Validate().ok());
    politeness_impl_ =
        std::make_unique<politeness::InProcessPoliteness>(politeness_, clock_, /*seed=*/1);
    slow_politeness_ = std::make_unique<SlowPoliteness>(*politeness_impl_, claim_latency_);
    absl::StatusOr<net::AddressPolicy> guard = net::AddressPolicy::Create(allow_);
    if (!guard.ok()) return guard.status();
    guard_ = std::make_unique<net::AddressPolicy>(*guard);
    absl::StatusOr<scope::Scope> scope = scope::Scope::Create(scope_options_, {}, nullptr);
    if (!scope.ok()) return scope.status();
    scope_ = std::make_unique<scope::Scope>(*std::move(scope));
    frontier::FrontierClient& frontier =
        frontier_client_ != nullptr ? *frontier_client_ : frontier_;
    return Fetcher::Create(options_, {.frontier = &frontier,
                                      .politeness = slow_politeness_.get(),
                                      .resolver = &resolver_,
                                      .guard = guard_.get(),
                                      .scope = scope_.get(),
                                      .clock = &clock_,
                                      .warc = warc_,
                                      .observer = &observer_});
  }

  // Runs a fetcher on another thread until Run returns or `until` holds (then Stop()). Bounded
  // (default 15 s): a hang is a failure, not a stuck test.
  absl::Status Run(Fetcher& fetcher, std::function<bool()> until = nullptr,
                   absl::Duration bound = absl::Seconds(15)) {
    absl::Status status = absl::UnknownError("Run did not return");
    absl::Notification done;
    std::thread runner([&] {
      status = fetcher.Run();
      done.Notify();
    });
    const absl::Time deadline = absl::Now() + bound;
    bool stopped = false;
    while (!done.WaitForNotificationWithTimeout(absl::Milliseconds(2))) {
      if (!stopped && until != nullptr && until()) {
        fetcher.Stop();
        stopped = true;
      }
      if (absl::Now() > deadline) {
        ADD_FAILURE() << "fetcher still running after " << bound;
        fetcher.Stop();
        done.WaitForNotification();
        break;
      }
    }
    runner.join();
    return status;
  }

  // Runs a fetcher whose WARC writer fails every write (it is closed, as a full disk would
  // fail them) and expects Run to stop with kUnavailable, saying why. Returns its stats.
  FetcherStats RunWithFailingWarcWriter() {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / absl::StrCat("fetcher_test_warc_", ::getpid());
    std::filesystem::remove_all(dir);
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer =
        warc::WarcWriter::Open({.directory = dir.string()}, clock_, /*seed=*/1);
    EXPECT_TRUE(writer.ok()) << writer.status();
    if (!writer.ok() || !(*writer)->Close().ok()) return {};
    warc_ = writer->get();
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Create();
    EXPECT_TRUE(fetcher.ok()) << fetcher.status();
    if (!fetcher.ok()) return {};
    const absl::Status status = Run(**fetcher);
    std::filesystem::remove_all(dir);
    warc_ = nullptr;
    EXPECT_TRUE(absl::IsUnavailable(status)) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("WARC writer is closed"));
    return (*fetcher)->Stats();
  }

  // Creates a fetcher and runs it to completion.
  void RunToCompletion(absl::Duration bound = absl::Seconds(15)) {
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Create();
    ASSERT_TRUE(fetcher.ok()) << fetcher.status();
    EXPECT_TRUE(Run(**fetcher, nullptr, bound).ok());
    stats_ = (*fetcher)->Stats();
  }

  // Serves `count` text pages /p0, /p1, ... on `host` and queues them in that order; returns
  // their leases.
  std::vector<frontier::LeaseId> AddPages(const std::string& host, int count) {
    std::vector<frontier::LeaseId> leases;
    for (int i = 0; i < count; ++i) {
      const std::string path = absl::StrCat("/p", i);
      web_.Set(host, path, Text(path));
      leases.push_back(frontier_.Add("http://" + host + path, host));
    }
    return leases;
  }

  frontier::FetchOutcome OutcomeOf(frontier::LeaseId lease) {
    std::optional<frontier::FetchOutcome> o = frontier_.CompletionOf(lease);
    EXPECT_TRUE(o.has_value()) << "lease " << lease << " (" << frontier_.UrlOf(lease)
                               << ") was not completed";
    return o.value_or(frontier::FetchOutcome{});
  }

  FakeWeb web_;
  SystemClock clock_;
  FakeFrontierClient frontier_;
  frontier::FrontierClient* frontier_client_ = nullptr;  // instead of frontier_ when set
  TableResolver resolver_;
  RecordingObserver observer_;
  FetcherOptions options_;
  politeness::PolitenessOptions politeness_;
  std::vector<std::string> allow_ = {"127.0.0.0/8"};
  scope::ScopeOptions scope_options_;
  std::unique_ptr<politeness::InProcessPoliteness> politeness_impl_;
  absl::Duration claim_latency_ = absl::ZeroDuration();
  std::unique_ptr<SlowPoliteness> slow_politeness_;
  warc::WarcWriter* warc_ = nullptr;  // no WARC output unless a test sets one
  std::unique_ptr<net::AddressPolicy> guard_;
  std::unique_ptr<scope::Scope> scope_;
  FetcherStats stats_;
};

// ----------------------------------------------------------------------------- robots.txt

// RFC 9309 §2.4 (caching) and docs/architecture.md §6: robots.txt is fetched once per host, before
// any page of that host.
TEST_F(FetcherTest, Rfc9309_2_4_RobotsTxtFetchedOncePerHostBeforeItsPages) {
  for (const std::string host : {"a.test", "b.test"}) {
    web_.Set(host, "/robots.txt", Text("User-agent: *\nAllow: /\n"));
    for (const std::string page : {"/1", "/2", "/3"}) {
      web_.Set(host, page, Text(host + page));
      frontier_.Add("http://" + host + page, host);
    }
  }
  RunToCompletion();

  for (const std::string host : {"a.test", "b.test"}) {
    SCOPED_TRACE(host);
    std::vector<std::string> targets = web_.TargetsOf(host);
    ASSERT_EQ(targets.size(), 4u);
    EXPECT_EQ(targets[0], "/robots.txt");
    EXPECT_EQ(web_.Count(host, "/robots.txt"), 1);
    EXPECT_THAT(targets, Contains("/1"));
    EXPECT_THAT(targets, Contains("/2"));
    EXPECT_THAT(targets, Contains("/3"));
    // The robots.txt request names the crawler.
    EXPECT_THAT(web_.HitsOf(host)[0].head, HasSubstr("User-Agent: TestBot/1.0"));
  }
  std::vector<frontier::FetchOutcome> done = frontier_.completions();
  ASSERT_EQ(done.size(), 6u);
  for (const frontier::FetchOutcome& o : done) {
    EXPECT_EQ(o.outcome, OutcomeClass::kFetched) << frontier_.UrlOf(o.lease_id);
    EXPECT_EQ(o.http_status, 200);
  }
  EXPECT_EQ(frontier_.unknown_completions(), 0);
  EXPECT_EQ(stats_.robots_requests, 2u);
  EXPECT_EQ(stats_.requests_started, 6u);
  EXPECT_EQ(stats_.completed, 6u);

  int robots_events = 0;
  for (const FetchEvent& e : observer_.events()) robots_events += e.robots_txt ? 1 : 0;
  EXPECT_EQ(robots_events, 2);
}

// RFC 9309 §2.2.2 (longest match) and §2.2.1 (the crawler's own group wins over "*"):
// disallowed URLs are completed as robots_denied, final, and never requested.
TEST_F(FetcherTest, Rfc9309_2_2_DisallowedUrlsAreDeniedWithoutARequest) {
  web_.Set("a.test", "/robots.txt",
           Text("User-agent: testbot\nDisallow: /private\nAllow: /private/ok\n\n"
                "User-agent: *\nDisallow: /\n"));
  web_.Set("a.test", "/public", Text("public"));
  web_.Set("a.test", "/private/ok", Text("ok"));
  const frontier::LeaseId pub = frontier_.Add("http://a.test/public", "a.test");
  const frontier::LeaseId denied = frontier_.Add("http://a.test/private/x", "a.test");
  const frontier::LeaseId denied_query = frontier_.Add("http://a.test/private?q=1", "a.test");
  const frontier::LeaseId allowed = frontier_.Add("http://a.test/private/ok", "a.test");
  RunToCompletion();

  EXPECT_EQ(OutcomeOf(pub).outcome, OutcomeClass::kFetched);
  EXPECT_EQ(OutcomeOf(allowed).outcome, OutcomeClass::kFetched);
  for (frontier::LeaseId lease : {denied, denied_query}) {
    SCOPED_TRACE(frontier_.UrlOf(lease));
    frontier::FetchOutcome o = OutcomeOf(lease);
    EXPECT_EQ(o.outcome, OutcomeClass::kRobotsDenied);
    EXPECT_FALSE(o.retry);
    EXPECT_EQ(o.http_status, 0);
  }
  EXPECT_THAT(web_.TargetsOf("a.test"),
              UnorderedElementsAre("/robots.txt", "/public", "/private/ok"));
  EXPECT_EQ(stats_.robots_denied, 2u);

  bool saw_rule = false;
  for (const FetchEvent& e : observer_.events()) {
    if (e.url == "http://a.test/private/x") {
      EXPECT_EQ(e.outcome, OutcomeClass::kRobotsDenied);
      saw_rule = absl::StrContains(e.detail, "/private");
    }
  }
  EXPECT_TRUE(saw_rule) << "the crawl log should name the rule that denied the URL";
}

// RFC 9309 §2.3.1.3: a 4xx robots.txt is "unavailable": the crawler may access any resource.
TEST_F(FetcherTest, Rfc9309_2_3_1_3_Robots4xxAllowsAll) {
  for (int status : {404, 403, 410}) {
    SCOPED_TRACE(status);
    const std::string host = absl::StrCat("h", status, ".test");
    web_.Set(host, "/robots.txt", Response(status, "Nope", "x"));
    web_.Set(host, "/page", Text("page"));
    frontier_.Add("http://" + host + "/page", host);
  }
  RunToCompletion();
  for (int status : {404, 403, 410}) {
    SCOPED_TRACE(status);
    const std::string host = absl::StrCat("h", status, ".test");
    EXPECT_THAT(web_.TargetsOf(host), ElementsAre("/robots.txt", "/page"));
  }
  for (const frontier::FetchOutcome& o : frontier_.completions()) {
    EXPECT_EQ(o.outcome, OutcomeClass::kFetched) << frontier_.UrlOf(o.lease_id);
  }
  EXPECT_EQ(frontier_.completions().size(), 3u);
}

// RFC 9309 §2.3.1.4: robots.txt unreachable (5xx, network error; 429 treated alike) means
// "complete disallow". The URLs are not given up: they are completed as robots_denied with a
// retry, so the frontier tries them again after the server recovers.
TEST_F(FetcherTest, Rfc9309_2_3_1_4_RobotsUnreachableDisallowsAllAndRetries) {
  struct Case {
    std::string host;
    std::string response;
    bool close;
  };
  const std::vector<Case> cases = {
      {"s500.test", Response(500, "Internal Server Error", "oops"), false},
      {"s503.test", Response(503, "Service Unavailable", "later", {"Retry-After: 1"}), false},
      {"s429.test", Response(429, "Too Many Requests", "slow down"), false},
      {"reset.test", "", true},  // connection closed without any response
  };
  const absl::Time start = absl::Now();
  std::map<frontier::LeaseId, std::string> leases;
  for (const Case& c : cases) {
    web_.Set(c.host, "/robots.txt", c.response, c.close);
    web_.Set(c.host, "/page", Text("page"));
    leases[frontier_.Add("http://" + c.host + "/page", c.host)] = c.host;
    leases[frontier_.Add("http://" + c.host + "/other", c.host)] = c.host;
  }
  RunToCompletion();
  for (const auto& [lease, host] : leases) {
    SCOPED_TRACE(frontier_.UrlOf(lease));
    frontier::FetchOutcome o = OutcomeOf(lease);
    EXPECT_EQ(o.outcome, OutcomeClass::kRobotsDenied);
    EXPECT_TRUE(o.retry);
    // Not before robots.txt is due to be fetched again (RobotsPolicyOptions'
    // unreachable_retry_after, 30 min): an earlier retry would meet the same cached verdict.
    EXPECT_GE(o.host_next_allowed, start + robots::RobotsPolicyOptions{}.unreachable_retry_after);
    EXPECT_THAT(web_.TargetsOf(host), Not(Contains("/page")));
    EXPECT_THAT(web_.TargetsOf(host), Not(Contains("/other")));
  }
  for (const Case& c : cases) EXPECT_GE(web_.Count(c.host, "/robots.txt"), 1) << c.host;
  // The log says why: the status, or the transport error when nothing was answered.
  std::map<std::string, std::string> robots_detail;
  std::map<std::string, std::string> denied_detail;
  for (const FetchEvent& e : observer_.events()) {
    const std::string host = e.url.substr(7, e.url.find('/', 7) - 7);
    (e.robots_txt ? robots_detail : denied_detail)[host] = e.detail;
  }
  EXPECT_EQ(robots_detail["s503.test"], "disallow-all");
  EXPECT_EQ(denied_detail["s503.test"], "robots.txt unavailable (HTTP 503)");
  EXPECT_EQ(denied_detail["s500.test"], "robots.txt unavailable (HTTP 500)");
  EXPECT_THAT(robots_detail["reset.test"], StartsWith("disallow-all ("));
  EXPECT_THAT(denied_detail["reset.test"], StartsWith("robots.txt unavailable ("));
  EXPECT_THAT(denied_detail["reset.test"], Not(HasSubstr("HTTP")));
}

// RFC 9309 §2.3.1.2: redirects of /robots.txt are followed (at least five), and the rules found
// apply to the original host.
TEST_F(FetcherTest, Rfc9309_2_3_1_2_RobotsRedirectOnTheSameHostIsFollowed) {
  web_.Set("a.test", "/robots.txt",
           Response(301, "Moved Permanently", "", {"Location: /robots-1.txt"}));
  web_.Set("a.test", "/robots-1.txt", Response(302, "Found", "", {"Location: /real-robots.txt"}));
  web_.Set("a.test", "/real-robots.txt", Text("User-agent: *\nDisallow: /secret\n"));
  web_.Set("a.test", "/open", Text("open"));
  const frontier::LeaseId open = frontier_.Add("http://a.test/open", "a.test");
  const frontier::LeaseId secret = frontier_.Add("http://a.test/secret", "a.test");
  RunToCompletion();
  EXPECT_EQ(OutcomeOf(open).outcome, OutcomeClass::kFetched);
  EXPECT_EQ(OutcomeOf(secret).outcome, OutcomeClass::kRobotsDenied);
  EXPECT_THAT(web_.TargetsOf("a.test"),
              ElementsAre("/robots.txt", "/robots-1.txt", "/real-robots.txt", "/open"));
}

// RFC 9309 §2.3.1.2: "It MUST follow at least five consecutive redirects, even across
// authorities (for example, hosts in the case of HTTP)." The common case: example.com's
// robots.txt redirects to www.example.com's; its rules are example.com's rules.
TEST_F(FetcherTest, Rfc9309_2_3_1_2_RobotsRedirectAcrossHostsIsFollowed) {
  web_.Set("a.test", "/robots.txt",
           Response(301, "Moved Permanently", "", {"Location: http://www.a.test/robots.txt"}));
  web_.Set("www.a.test", "/robots.txt", Text("User-agent: *\nDisallow: /secret\n"));
  web_.Set("a.test", "/open", Text("open"));
  web_.Set("a.test", "/secret", Text("must not be fetched"));
  const frontier::LeaseId open = frontier_.Add("http://a.test/open", "a.test");
  const frontier::LeaseId secret = frontier_.Add("http://a.test/secret", "a.test");
  RunToCompletion(/*bound=*/absl::Seconds(3));
  EXPECT_EQ(OutcomeOf(open).outcome, OutcomeClass::kFetched);
  EXPECT_EQ(OutcomeOf(secret).outcome, OutcomeClass::kRobotsDenied);
  EXPECT_EQ(web_.Count("a.test", "/robots.txt"), 1) << "robots.txt requested in a loop";
  EXPECT_EQ(web_.Count("www.a.test", "/robots.txt"), 1);
  EXPECT_EQ(web_.Count("a.test", "/secret"), 0) << "a page the site's robots.txt disallows was "
                                                   "fetched";
}

// The http -> https (or other port) move of a site is the most common robots.txt redirect: the
// same host, another origin. The rules found there apply.
TEST_F(FetcherTest, Rfc9309_2_3_1_2_RobotsRedirectToAnotherPortIsFollowed) {
  web_.Set("a.test", "/robots.txt",
           Response(301, "Moved Permanently", "", {"Location: http://a.test:8080/r.txt"}));
  web_.Set("a.test", "/r.txt", Text("User-agent: *\nDisallow: /secret\n"));
  web_.Set("a.test", "/secret", Text("must not be fetched"));
  const frontier::LeaseId secret = frontier_.Add("http://a.test/secret", "a.test");
  RunToCompletion(/*bound=*/absl::Seconds(2));
  EXPECT_EQ(OutcomeOf(secret).outcome, OutcomeClass::kRobotsDenied);
  EXPECT_EQ(web_.Count("a.test", "/robots.txt"), 1) << "robots.txt requested in a loop";
  EXPECT_EQ(web_.Count("a.test", "/r.txt"), 1);
  EXPECT_EQ(web_.Count("a.test", "/secret"), 0);
}

// RFC 9309 §2.3.1.2: beyond the redirects it follows (five), the crawler may treat robots.txt as
// unavailable (allow all); a redirect loop ends there and is not requested again.
TEST_F(FetcherTest, Rfc9309_2_3_1_2_RobotsRedirectLoopEndsAsUnavailable) {
  web_.Set("a.test", "/robots.txt", Response(302, "Found", "", {"Location: /robots.txt"}));
  web_.Set("a.test", "/page", Text("page"));
  const frontier::LeaseId page = frontier_.Add("http://a.test/page", "a.test");
  RunToCompletion(/*bound=*/absl::Seconds(3));
  EXPECT_EQ(OutcomeOf(page).outcome, OutcomeClass::kFetched);
  const int robots = web_.Count("a.test", "/robots.txt");
  EXPECT_GE(robots, 6);  // the first request and at least five redirects
  EXPECT_LE(robots, 21);
  EXPECT_EQ(web_.Count("a.test", "/page"), 1);
}

TEST_F(FetcherTest, WithoutObeyRobotsNoRobotsTxtIsRequested) {
  options_.obey_robots = false;
  web_.Set("a.test", "/robots.txt", Text("User-agent: *\nDisallow: /\n"));
  web_.Set("a.test", "/x", Text("x"));
  const frontier::LeaseId x = frontier_.Add("http://a.test/x", "a.test");
  RunToCompletion();
  EXPECT_EQ(OutcomeOf(x).outcome, OutcomeClass::kFetched);
  EXPECT_THAT(web_.TargetsOf("a.test"), ElementsAre("/x"));
}

// Sitemap: lines of robots.txt (RFC 9309 §2.3.5 allows other records) are queued as sitemaps
// (level 1), through scope, with sitemap_discovery robots (and robots+well-known).
TEST_F(FetcherTest, RobotsSitemapsAreQueuedAsSitemaps) {
  web_.Set("a.test", "/robots.txt",
           Text("User-agent: *\nAllow: /\nSitemap: http://a.test/sitemap_index.xml\n"
                "Sitemap: http://elsewhere.test/s.xml\n"));
  web_.Set("a.test", "/p", Text("p"));
  scope_options_.allowed_host_suffixes = {"a.test"};
  options_.sitemap_discovery = collections::SitemapDiscovery::kRobotsAndWellKnown;
  frontier_.Add("http://a.test/p", "a.test");
  RunToCompletion();
  std::vector<frontier::UrlToAdd> added = frontier_.added();
  // elsewhere.test is out of scope; a robots.txt that names a sitemap needs no guess.
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].canonical_url, "http://a.test/sitemap_index.xml");
  EXPECT_EQ(added[0].host_key, "a.test");
  EXPECT_EQ(added[0].depth, 1u);
  EXPECT_EQ(added[0].sitemap_level, 1);
}

// robots+well-known: a robots.txt that names no sitemap (or none at all: a 404) leads to the
// customary /sitemap.xml; robots alone does not guess.
TEST_F(FetcherTest, WellKnownSitemapIsQueuedWhenRobotsNamesNone) {
  web_.Set("a.test", "/robots.txt", Text("User-agent: *\nAllow: /\n"));
  web_.Set("b.test", "/robots.txt", Response(404, "Not Found", ""));
  for (const std::string host : {"a.test", "b.test"}) {
    web_.Set(host, "/p", Text("p"));
    frontier_.Add("http://" + host + "/p", host);
  }
  options_.sitemap_discovery = collections::SitemapDiscovery::kRobotsAndWellKnown;
  RunToCompletion();
  std::vector<std::string> queued;
  for (const frontier::UrlToAdd& u : frontier_.added()) {
    EXPECT_EQ(u.sitemap_level, 1) << u.canonical_url;
    queued.push_back(u.canonical_url);
  }
  EXPECT_THAT(queued,
              UnorderedElementsAre("http://a.test/sitemap.xml", "http://b.test/sitemap.xml"));
}

TEST_F(FetcherTest, RobotsDiscoveryDoesNotGuessTheWellKnownSitemap) {
  web_.Set("a.test", "/robots.txt", Text("User-agent: *\nAllow: /\n"));
  web_.Set("a.test", "/p", Text("p"));
  options_.sitemap_discovery = collections::SitemapDiscovery::kRobots;
  frontier_.Add("http://a.test/p", "a.test");
  RunToCompletion();
  EXPECT_THAT(frontier_.added(), IsEmpty());
}

// An unreachable robots.txt (disallow-all for now) says nothing about the site's sitemaps.
TEST_F(FetcherTest, UnreachableRobotsQueuesNoSitemap) {
  web_.Set("a.test", "/robots.txt", Response(503, "Service Unavailable", "later"));
  web_.Set("a.test", "/p", Text("p"));
  options_.sitemap_discovery = collections::SitemapDiscovery::kRobotsAndWellKnown;
  frontier_.Add("http://a.test/p", "a.test");
  RunToCompletion();
  EXPECT_THAT(frontier_.added(), IsEmpty());
}

TEST_F(FetcherTest, SitemapsAreNotQueuedWhenDiscoveryIsOff) {
  web_.Set("a.test", "/robots.txt",
           Text("User-agent: *\nAllow: /\nSitemap: http://a.test/sitemap.xml\n"));
  web_.Set("a.test", "/p", Text("p"));
  options_.sitemap_discovery = collections::SitemapDiscovery::kOff;
  frontier_.Add("http://a.test/p", "a.test");
  RunToCompletion();
  EXPECT_THAT(frontier_.added(), IsEmpty());
}

// A lease of a sitemap is read as one whatever its type (here text/plain at a path without
// "sitemap" in it), its pages are queued with their lastmod, and its crawl event is a sitemap's.
TEST_F(FetcherTest, ASitemapLeaseIsReadAsASitemap) {
  web_.Set("a.test", "/robots.txt", Text("User-agent: *\nAllow: /\n"));
  web_.Set("a.test", "/list",
           Text("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                "<url><loc>http://a.test/x</loc><lastmod>2024-05-01</lastmod></url>"
                "<url><loc>http://a.test/y</loc></url></urlset>"));
  frontier_.Add("http://a.test/list", "a.test", std::nullopt, std::nullopt, /*depth=*/0,
                /*sitemap_level=*/1);
  RunToCompletion();
  std::vector<frontier::UrlToAdd> added = frontier_.added();
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[0].canonical_url, "http://a.test/x");
  EXPECT_EQ(added[0].sitemap_level, 0);
  EXPECT_EQ(added[0].depth, 1u);
  EXPECT_EQ(added[0].sitemap.lastmod,
            absl::FromCivil(absl::CivilDay(2024, 5, 1), absl::UTCTimeZone()));
  EXPECT_EQ(added[1].sitemap.lastmod, absl::InfinitePast());
}

// ----------------------------------------------------------------------------- politeness

// docs/architecture.md §5: consecutive requests to one host start at least min_delay apart
// (robots.txt included: it is a request like any other), measured where it matters, at the server.
TEST_F(FetcherTest, Design_5_RequestsToAHostAreSpacedByMinDelay) {
  politeness_.min_delay = absl::Milliseconds(60);
  for (const std::string host : {"a.test", "b.test"}) {
    web_.Set(host, "/robots.txt", Response(404, "Not Found", ""));
    AddPages(host, 4);
  }
  RunToCompletion();
  for (const std::string host : {"a.test", "b.test"}) {
    SCOPED_TRACE(host);
    std::vector<FakeWeb::Hit> hits = web_.HitsOf(host);
    ASSERT_EQ(hits.size(), 5u);
    // A few ms of slack for the path from the claim to the server's accept.
    EXPECT_GE(MinGap(hits, /*skip_robots=*/false), absl::Milliseconds(50));
  }
  // The delay is per host: the two hosts' requests are not spaced against each other.
  absl::Duration closest = absl::InfiniteDuration();
  for (const FakeWeb::Hit& a : web_.HitsOf("a.test")) {
    for (const FakeWeb::Hit& b : web_.HitsOf("b.test")) {
      closest = std::min(closest, absl::AbsDuration(absl::FromChrono(a.time - b.time)));
    }
  }
  EXPECT_LT(closest, absl::Milliseconds(30));
  EXPECT_EQ(frontier_.completions().size(), 8u);
}

// A host refused by politeness, or released with a wait, is looked at again when its wait is
// over, not before. The wait counts from the claim: with several hosts due in one loop turn and
// a claim that takes time (a shared store's round trip), counting it from the start of the turn
// woke hosts a few ms early; refused again for the rest of the wait, each then waited 10 ms
// more. Since a release says when the host may be claimed again, no claim is refused for a
// wait at all: each costs the store one round trip, not two.
TEST_F(FetcherTest, Design_5_AHostRefusedByPolitenessIsNotWokenBeforeItsWaitIsOver) {
  politeness_.min_delay = absl::Milliseconds(40);
  claim_latency_ = absl::Milliseconds(2);
  const std::vector<std::string> hosts = {"a.test", "b.test", "c.test", "d.test"};
  for (const std::string& host : hosts) {
    web_.Set(host, "/robots.txt", Response(404, "Not Found", ""));
    AddPages(host, 4);
  }
  RunToCompletion();
  for (const std::string& host : hosts) EXPECT_EQ(web_.HitsOf(host).size(), 5u) << host;
  // After a refusal or a release with a wait, the host's next claim comes when the wait is
  // over. The wait counts from the moment the claim or release was decided, which each event's
  // time precedes.
  using Kind = SlowPoliteness::Event::Kind;
  std::map<std::string, absl::Time> not_before;  // host -> end of its last wait
  int refusals = 0;
  int waits = 0;
  int early = 0;
  for (const SlowPoliteness::Event& e : slow_politeness_->events()) {
    if (e.kind == Kind::kReleased) {
      if (e.wait > absl::ZeroDuration()) {
        ++waits;
        not_before[e.host] = e.time + e.wait;
      }
      continue;
    }
    if (auto it = not_before.find(e.host); it != not_before.end() && e.time < it->second) {
      ADD_FAILURE() << e.host << " claimed " << absl::FormatDuration(it->second - e.time)
                    << " before its wait was over";
      ++early;
    }
    not_before.erase(e.host);
    if (e.kind == Kind::kRefused && e.wait > absl::ZeroDuration()) {
      ++refusals;
      not_before[e.host] = e.time + e.wait;
    }
  }
  EXPECT_GE(waits, 16);  // the check above had something to check: every page's release
  EXPECT_EQ(early, 0);
  EXPECT_EQ(refusals, 0);
}

// docs/architecture.md §5: at most max_connections (1) requests in flight per host; other hosts
// proceed in parallel.
TEST_F(FetcherTest, Design_5_OneConnectionPerHostAtATime) {
  web_.set_latency(absl::Milliseconds(25));
  for (const std::string host : {"a.test", "b.test"}) {
    web_.Set(host, "/robots.txt", Text("User-agent: *\nAllow: /\n"));
    AddPages(host, 4);
  }
  options_.lease_max_per_host = 4;
  RunToCompletion();
  EXPECT_EQ(web_.max_concurrent("a.test"), 1);
  EXPECT_EQ(web_.max_concurrent("b.test"), 1);
  EXPECT_EQ(web_.max_concurrent_total(), 2);
  EXPECT_EQ(frontier_.completions().size(), 8u);
}

// robots.txt Crawl-delay (not in RFC 9309; docs/architecture.md §5 honours it, capped) spaces the
// pages.
TEST_F(FetcherTest, Design_5_RobotsCrawlDelayIsHonoured) {
  politeness_.min_delay = absl::Milliseconds(5);
  web_.Set("a.test", "/robots.txt", Text("User-agent: testbot\nCrawl-delay: 0.15\nAllow: /\n"));
  AddPages("a.test", 3);
  RunToCompletion();
  std::vector<FakeWeb::Hit> hits = web_.HitsOf("a.test");
  ASSERT_EQ(hits.size(), 4u);
  EXPECT_GE(MinGap(hits, /*skip_robots=*/true), absl::Milliseconds(140));
}

// ---------------------------------------------------------------------------- HTTP semantics

// RFC 9110 §15.4: the fetcher does not follow redirects; the target goes to the frontier as a
// new URL (scope, seen-set and politeness apply to it there).
TEST_F(FetcherTest, Rfc9110_15_4_RedirectsAreNotFollowed) {
  web_.Set("a.test", "/robots.txt", Response(404, "Not Found", ""));
  web_.Set("a.test", "/old", Response(301, "Moved Permanently", "", {"Location: /new"}));
  web_.Set("a.test", "/new", Text("new"));
  const frontier::LeaseId old = frontier_.Add("http://a.test/old", "a.test");
  RunToCompletion();
  frontier::FetchOutcome o = OutcomeOf(old);
  EXPECT_EQ(o.outcome, OutcomeClass::kRedirect);
  EXPECT_EQ(o.http_status, 301);
  EXPECT_EQ(web_.Count("a.test", "/new"), 0);
  std::vector<frontier::UrlToAdd> added = frontier_.added();
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].canonical_url, "http://a.test/new");
  EXPECT_EQ(added[0].host_key, "a.test");
  EXPECT_EQ(added[0].depth, 1u);
  EXPECT_EQ(added[0].discovered_from, "http://a.test/old");
}

// Outcomes and outlinks reach the frontier, and links found are crawled in turn.
TEST_F(FetcherTest, OutcomesAndOutlinksReachTheFrontier) {
  frontier_.set_enqueue_added(true);
  web_.Set("a.test", "/robots.txt", Text("User-agent: *\nDisallow: /blocked\n"));
  web_.Set("a.test", "/",
           Html(R"(<a href="/a">a</a> <a href="/b">b</a> <a href="/blocked">no</a>)"
                R"( <a href="http://b.test/">b</a>)"));
  web_.Set("a.test", "/a", Html(R"(<a href="/">home</a> <a href="/missing">gone</a>)"));
  web_.Set("a.test", "/b", Text("leaf"));
  web_.Set("b.test", "/", Text("other host"));
  frontier_.Add("http://a.test/", "a.test");
  RunToCompletion();

  std::map<std::string, frontier::FetchOutcome> by_url;
  for (const frontier::FetchOutcome& o : frontier_.completions()) {
    by_url[frontier_.UrlOf(o.lease_id)] = o;
  }
  ASSERT_EQ(by_url.size(), 6u);
  EXPECT_EQ(by_url["http://a.test/"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(by_url["http://a.test/a"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(by_url["http://a.test/b"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(by_url["http://b.test/"].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(by_url["http://a.test/blocked"].outcome, OutcomeClass::kRobotsDenied);
  EXPECT_EQ(by_url["http://a.test/missing"].outcome, OutcomeClass::kHttpError);
  EXPECT_EQ(by_url["http://a.test/missing"].http_status, 404);
  EXPECT_EQ(frontier_.unknown_completions(), 0);
  EXPECT_EQ(web_.Count("a.test", "/robots.txt"), 1);  // cached across lease batches
  EXPECT_EQ(web_.Count("b.test", "/robots.txt"), 1);

  bool found = false;
  for (const frontier::UrlToAdd& u : frontier_.added()) {
    if (u.canonical_url == "http://a.test/a") {
      found = true;
      EXPECT_EQ(u.discovered_from, "http://a.test/");
      EXPECT_EQ(u.depth, 1u);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_GE(stats_.outlinks_sent, 5u);
}

// RFC 9110 §13.1.1 / §13.1.3: a URL fetched before is re-fetched conditionally with the
// validators it had; a 304 is not_modified.
TEST_F(FetcherTest, Rfc9110_13_1_ConditionalGetCarriesThePreviousValidators) {
  web_.Set("a.test", "/robots.txt", Response(404, "Not Found", ""));
  web_.Set("a.test", "/cached", Response(304, "Not Modified", "", {"ETag: \"v1\""}));
  web_.Set("a.test", "/fresh", Text("fresh"));
  frontier::PreviousFetch previous;
  previous.etag = "\"v1\"";
  previous.last_modified = "Wed, 01 May 2024 10:00:00 GMT";
  previous.http_status = 200;
  const frontier::LeaseId cached = frontier_.Add("http://a.test/cached", "a.test", previous);
  const frontier::LeaseId fresh = frontier_.Add("http://a.test/fresh", "a.test");
  RunToCompletion();

  EXPECT_EQ(OutcomeOf(cached).outcome, OutcomeClass::kNotModified);
  EXPECT_EQ(OutcomeOf(cached).http_status, 304);
  EXPECT_EQ(OutcomeOf(fresh).outcome, OutcomeClass::kFetched);
  for (const FakeWeb::Hit& h : web_.HitsOf("a.test")) {
    SCOPED_TRACE(h.target);
    if (h.target == "/cached") {
      EXPECT_THAT(h.head, HasSubstr("\r\nIf-None-Match: \"v1\"\r\n"));
      EXPECT_THAT(h.head, HasSubstr("\r\nIf-Modified-Since: Wed, 01 May 2024 10:00:00 GMT\r\n"));
    } else {
      EXPECT_THAT(h.head, Not(HasSubstr("If-None-Match")));
      EXPECT_THAT(h.head, Not(HasSubstr("If-Modified-Since")));
    }
  }
}

TEST_F(FetcherTest, ServerAndNetworkErrorsAreRetriable) {
  web_.Set("a.test", "/robots.txt", Response(404, "Not Found", ""));
  web_.Set("a.test", "/busy", Response(503, "Service Unavailable", "busy"));
  web_.Set("a.test", "/reset", "", /*close=*/true);
  web_.Set("a.test", "/gone", Response(410, "Gone", ""));
  const frontier::LeaseId busy = frontier_.Add("http://a.test/busy", "a.test");
  const frontier::LeaseId reset = frontier_.Add("http://a.test/reset", "a.test");
  const frontier::LeaseId gone = frontier_.Add("http://a.test/gone", "a.test");
  RunToCompletion();
  EXPECT_EQ(OutcomeOf(busy).outcome, OutcomeClass::kHttpError);
  EXPECT_TRUE(OutcomeOf(busy).retry);
  EXPECT_EQ(OutcomeOf(reset).outcome, OutcomeClass::kNetworkError);
  EXPECT_TRUE(OutcomeOf(reset).retry);
  EXPECT_EQ(OutcomeOf(gone).outcome, OutcomeClass::kHttpError);
  EXPECT_FALSE(OutcomeOf(gone).retry);
}

// ------------------------------------------------------------------- leases, Stop, addresses

// docs/architecture.md §2.2 (no URL is lost, none fetched twice because of us): a lease that would
// expire within lease_safety_margin is not started and not completed; the frontier re-queues it.
TEST_F(FetcherTest, Design_2_LeaseNearItsDeadlineIsAbandoned) {
  options_.lease_safety_margin = absl::Seconds(15);
  web_.Set("a.test", "/robots.txt", Response(404, "Not Found", ""));
  web_.Set("a.test", "/late", Text("late"));
  web_.Set("a.test", "/ok", Text("ok"));
  const frontier::LeaseId late = frontier_.Add("http://a.test/late", "a.test", std::nullopt,
                                               absl::Now() + absl::Seconds(5));
  const frontier::LeaseId ok = frontier_.Add("http://a.test/ok", "a.test");
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Create();
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  Fetcher& f = **fetcher;
  // The fake frontier keeps an abandoned lease outstanding (the real one re-queues it at its
  // deadline), so the run is stopped once both tasks were dealt with.
  EXPECT_TRUE(Run(f, [&] {
                return f.Stats().abandoned >= 1 && frontier_.CompletionOf(ok).has_value();
              }).ok());
  EXPECT_EQ(f.Stats().abandoned, 1u);
  EXPECT_FALSE(frontier_.CompletionOf(late).has_value());
  EXPECT_EQ(OutcomeOf(ok).outcome, OutcomeClass::kFetched);
  EXPECT_EQ(web_.Count("a.test", "/late"), 0);
}

// The process CPU time used so far (every thread: user + system).
absl::Duration ProcessCpuTime() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return absl::DurationFromTimeval(usage.ru_utime) + absl::DurationFromTimeval(usage.ru_stime);
}

// A fetcher with nothing to do while the frontier is not exhausted (a lease is outstanding: a
// URL waiting for a retry, or another fetcher's) sleeps: its threads wait for work or a timer
// instead of turning in a loop. Regression: a "send at once" flag raised with nothing to send
// was never lowered, and the frontier I/O thread and the network loop woke each other
// endlessly, two cores busy for as long as the crawl waited.
TEST_F(FetcherTest, AnIdleFetcherDoesNotSpin) {
  options_.lease_safety_margin = absl::Seconds(15);
  web_.Set("a.test", "/robots.txt", Response(404, "Not Found", ""));
  web_.Set("a.test", "/ok", Text("ok"));
  // Abandoned near its deadline, so outstanding in the fake frontier: never exhausted.
  frontier_.Add("http://a.test/late", "a.test", std::nullopt, absl::Now() + absl::Seconds(5));
  const frontier::LeaseId ok = frontier_.Add("http://a.test/ok", "a.test");
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Create();
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  Fetcher& f = **fetcher;
  const absl::Duration kIdleWindow = absl::Milliseconds(500);
  std::optional<absl::Time> idle_since;
  absl::Duration cpu_at_start;
  absl::Duration cpu_used;
  EXPECT_TRUE(Run(f, [&] {
                if (!idle_since.has_value()) {
                  if (f.Stats().abandoned < 1 || !frontier_.CompletionOf(ok).has_value()) {
                    return false;
                  }
                  idle_since = absl::Now();
                  cpu_at_start = ProcessCpuTime();
                  return false;
                }
                if (absl::Now() - *idle_since < kIdleWindow) return false;
                cpu_used = ProcessCpuTime() - cpu_at_start;
                return true;
              }).ok());
  ASSERT_TRUE(idle_since.has_value()) << "the fetcher never became idle";
  EXPECT_EQ(OutcomeOf(ok).outcome, OutcomeClass::kFetched);
  // Idle, the threads wake a few hundred times a second at most (timers of 5-20 ms): a few ms
  // of CPU. A thread spinning takes most of a core, however loaded the machine.
  EXPECT_LT(cpu_used, kIdleWindow / 5) << "CPU used while idle for " << kIdleWindow;
}

// Workers slower than the network: fetched pages waiting for a worker are held to
// max_in_flight; beyond that no transfer starts, so the backlog (and memory) stays bounded
// however far the workers fall behind. Once they catch up, everything is fetched.
TEST_F(FetcherTest, FetchingPausesWhileTheWorkersAreBehind) {
  options_.max_in_flight = 4;
  options_.worker_threads = 1;
  options_.worker_batch = 1;
  options_.lease_max_per_host = 20;
  constexpr int kHosts = 4;
  constexpr int kPages = 20;
  std::vector<frontier::LeaseId> leases;
  for (int i = 0; i < kHosts; ++i) {
    const std::string host = absl::StrCat("h", i, ".test");
    web_.Set(host, "/robots.txt", Response(404, "Not Found", ""));
    for (frontier::LeaseId l : AddPages(host, kPages)) leases.push_back(l);
  }
  auto pages_fetched = [&] {
    size_t n = 0;
    for (const FakeWeb::Hit& h : web_.hits()) n += h.target != "/robots.txt" ? 1 : 0;
    return n;
  };
  observer_.HoldPages(true);
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Create();
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  // The held worker keeps one page; max_in_flight more wait for it, and the transfers in
  // flight when the backlog filled up add at most max_in_flight.
  const size_t kBound = 1 + 2 * options_.max_in_flight;
  const absl::Time start = absl::Now();
  size_t fetched_while_held = 0;
  bool released = false;
  EXPECT_TRUE(Run(**fetcher, [&] {
                // Without the limit, all 80 pages take a few ms; 300 ms leaves time to see it.
                if (!released && absl::Now() - start > absl::Milliseconds(300)) {
                  fetched_while_held = pages_fetched();
                  observer_.HoldPages(false);
                  released = true;
                }
                return false;
              }).ok());
  ASSERT_TRUE(released) << "the crawl ended while its pages were held";
  EXPECT_GE(fetched_while_held, 1u);
  EXPECT_LE(fetched_while_held, kBound);
  EXPECT_EQ(pages_fetched(), static_cast<size_t>(kHosts * kPages));
  for (frontier::LeaseId l : leases) EXPECT_EQ(OutcomeOf(l).outcome, OutcomeClass::kFetched);
}

// A page whose WARC records cannot be written (a full disk; here the writer is closed) is not
// completed: its lease expires and it is fetched again. The fetcher stops, since no later page
// could be archived either, and says why.
TEST_F(FetcherTest, PagesThatCannotBeArchivedAreNotCompletedAndTheFetcherStops) {
  // Without robots.txt: its records would fail first (the next test), and this one is about
  // pages.
  options_.obey_robots = false;
  const std::vector<frontier::LeaseId> leases = AddPages("a.test", 5);
  const FetcherStats stats = RunWithFailingWarcWriter();
  size_t fetched = 0;
  for (const FakeWeb::Hit& h : web_.HitsOf("a.test")) fetched += h.target != "/robots.txt";
  EXPECT_GE(fetched, 1u);
  for (frontier::LeaseId l : leases) {
    EXPECT_FALSE(frontier_.CompletionOf(l).has_value()) << frontier_.UrlOf(l) << " completed";
  }
  EXPECT_EQ(stats.completed, 0u);
}

// A robots.txt is archived the way a page is, and a robots.txt whose records cannot be written
// stops the crawl the way a page does: no page of the host is fetched after it (their leases
// expire and they are fetched again when the crawl resumes), and Run says why.
TEST_F(FetcherTest, RobotsTxtThatCannotBeArchivedStopsTheFetcherLikeAPage) {
  web_.Set("a.test", "/robots.txt", Text("User-agent: *\nAllow: /\n"));
  AddPages("a.test", 5);
  const FetcherStats stats = RunWithFailingWarcWriter();
  EXPECT_THAT(web_.TargetsOf("a.test"), ElementsAre("/robots.txt"));
  EXPECT_EQ(stats.completed, 0u);
  EXPECT_EQ(frontier_.completions().size(), 0u);
  bool reported = false;
  for (const FetchEvent& e : observer_.events()) {
    if (e.robots_txt) reported = absl::StrContains(e.detail, "not archived");
  }
  EXPECT_TRUE(reported);
}

// Stop(): transfers in flight finish and are completed; tasks not started are left to their
// leases; Run returns OK.
TEST_F(FetcherTest, StopFinishesTransfersInFlightAndReturns) {
  web_.set_latency(absl::Milliseconds(20));
  politeness_.min_delay = absl::Milliseconds(10);
  web_.Set("a.test", "/robots.txt", Response(404, "Not Found", ""));
  AddPages("a.test", 30);
  options_.lease_max_per_host = 30;
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Create();
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  Fetcher& f = **fetcher;
  EXPECT_TRUE(Run(f, [&] { return web_.HitsOf("a.test").size() >= 3; }).ok());

  const FetcherStats stats = f.Stats();
  std::vector<frontier::FetchOutcome> done = frontier_.completions();
  EXPECT_LT(done.size(), 30u) << "Stop did not stop";
  // Every page the server answered was completed (in-flight transfers finished)...
  const std::vector<std::string> targets = web_.TargetsOf("a.test");
  EXPECT_EQ(done.size(), targets.size() - 1);  // minus robots.txt
  for (const frontier::FetchOutcome& o : done) {
    EXPECT_EQ(o.outcome, OutcomeClass::kFetched) << frontier_.UrlOf(o.lease_id);
  }
  // ...and every other leased URL was handed back, none lost track of.
  EXPECT_EQ(stats.leased, 30u);
  EXPECT_GT(stats.leases_released, 0u);
  EXPECT_EQ(stats.abandoned, 0u);
  EXPECT_EQ(stats.completed + stats.leases_released, stats.leased);
  EXPECT_EQ(frontier_.released().size(), stats.leases_released);
  EXPECT_EQ(frontier_.outstanding(), 0u);
  EXPECT_EQ(stats.in_flight, 0u);
}

// A stopped fetcher's unstarted leases are back in the frontier's queues when Run returns, not
// at their lease expiry: the next fetcher leases them at once.
TEST_F(FetcherTest, StopHandsUnstartedLeasesBackToTheFrontier) {
  kv::InMemoryKvStore store(frontier::Frontier::ColumnFamilies());
  frontier::FrontierOptions frontier_options;
  frontier_options.max_in_flight_per_host = 100;
  absl::StatusOr<std::unique_ptr<frontier::Frontier>> core =
      frontier::Frontier::Open(frontier_options, store, clock_);
  ASSERT_TRUE(core.ok()) << core.status();
  frontier::LocalFrontierClient local(**core);
  frontier_client_ = &local;
  web_.set_latency(absl::Milliseconds(20));
  politeness_.min_delay = absl::Milliseconds(10);
  web_.Set("a.test", "/robots.txt", Response(404, "Not Found", ""));
  std::vector<frontier::UrlToAdd> urls;
  for (int i = 0; i < 30; ++i) {
    const std::string path = absl::StrCat("/p", i);
    web_.Set("a.test", path, Text(path));
    urls.push_back(
        frontier::UrlToAdd{.canonical_url = "http://a.test" + path, .host_key = "a.test"});
  }
  ASSERT_TRUE(local.AddUrls(urls).ok());
  options_.lease_max_per_host = 30;
  absl::StatusOr<std::unique_ptr<Fetcher>> fetcher = Create();
  ASSERT_TRUE(fetcher.ok()) << fetcher.status();
  Fetcher& f = **fetcher;
  EXPECT_TRUE(Run(f, [&] { return web_.HitsOf("a.test").size() >= 3; }).ok());

  const frontier::FrontierStats after = (*core)->Stats();
  EXPECT_EQ(after.in_flight_urls, 0u);
  const FetcherStats stats = f.Stats();
  EXPECT_EQ(stats.leased, 30u);
  EXPECT_GT(stats.leases_released, 0u);
  EXPECT_EQ(after.leases_released, stats.leases_released);
  EXPECT_EQ(after.pages_completed, stats.completed);
  EXPECT_EQ(after.queued_urls, 30u - stats.completed);
  EXPECT_EQ(local.Lease(100, 100)->size(), 30u - stats.completed);
}

// docs/architecture.md §6: resolve -> SSRF guard. Without connect_to, each host is resolved (a
// table here) and the first address the guard accepts is used; a refused address puts the host's
// URLs out of scope with no request; name errors are network errors, retried only when temporary.
TEST_F(FetcherTest, Design_6_ResolutionAndTheSsrfGuard) {
  options_.http.connect_to.clear();
  const std::string port = absl::StrCat(":", web_.port());
  resolver_.Set("a.test", std::vector<net::IpAddress>{net::IpAddress::Parse("127.0.0.1").value()});
  resolver_.Set("private.test",
                std::vector<net::IpAddress>{net::IpAddress::Parse("10.1.2.3").value()});
  resolver_.Set("flaky.test", absl::UnavailableError("resolve flaky.test: try again"));
  web_.Set("a.test", "/robots.txt", Response(404, "Not Found", ""));
  web_.Set("a.test", "/page", Text("page"));
  const frontier::LeaseId ok = frontier_.Add("http://a.test" + port + "/page", "a.test" + port);
  const frontier::LeaseId refused =
      frontier_.Add("http://private.test" + port + "/page", "private.test" + port);
  const frontier::LeaseId missing =
      frontier_.Add("http://missing.test" + port + "/page", "missing.test" + port);
  const frontier::LeaseId flaky =
      frontier_.Add("http://flaky.test" + port + "/page", "flaky.test" + port);
  RunToCompletion();

  EXPECT_EQ(OutcomeOf(ok).outcome, OutcomeClass::kFetched);
  EXPECT_EQ(OutcomeOf(refused).outcome, OutcomeClass::kOutOfScope);
  EXPECT_FALSE(OutcomeOf(refused).retry);
  EXPECT_EQ(OutcomeOf(missing).outcome, OutcomeClass::kNetworkError);
  EXPECT_FALSE(OutcomeOf(missing).retry);
  EXPECT_EQ(OutcomeOf(flaky).outcome, OutcomeClass::kNetworkError);
  EXPECT_TRUE(OutcomeOf(flaky).retry);
  EXPECT_THAT(web_.TargetsOf("private.test"), IsEmpty());
  EXPECT_THAT(web_.TargetsOf("a.test"), ElementsAre("/robots.txt", "/page"));
}

// RFC 3986 §3.2.2: http://[::1]:PORT/ names its address; it is fetched without a lookup (the
// table resolver knows no host) when the guard allows ::1, and refused when it does not.
TEST_F(FetcherTest, Rfc3986_3_2_2_Ipv6LiteralUrlsAreFetched) {
  options_.http.connect_to.clear();
  TestHttpServer server(
      [](const std::string& head) {
        if (absl::StartsWith(head, "GET /robots.txt ")) {
          return TestResponse{Response(404, "Not Found", "")};
        }
        return TestResponse{Text("over IPv6")};
      },
      TestHttpServer::Family::kIpv6);
  if (!server.ok()) GTEST_SKIP() << "no IPv6 loopback on this host";
  const std::string authority = absl::StrCat("[::1]:", server.port());
  allow_ = {"::1/128"};
  const frontier::LeaseId page = frontier_.Add("http://" + authority + "/page", authority);
  RunToCompletion();
  EXPECT_EQ(OutcomeOf(page).outcome, OutcomeClass::kFetched);
  EXPECT_EQ(OutcomeOf(page).http_status, 200);
  ASSERT_EQ(server.heads().size(), 2u);
  EXPECT_THAT(server.heads()[1], HasSubstr("GET /page HTTP/1.1\r\nHost: " + authority + "\r\n"));
}

TEST_F(FetcherTest, Rfc3986_3_2_2_Ipv6LiteralsMeetTheSsrfGuard) {
  options_.http.connect_to.clear();
  TestHttpServer server([](const std::string&) { return TestResponse{Text("secret")}; },
                        TestHttpServer::Family::kIpv6);
  if (!server.ok()) GTEST_SKIP() << "no IPv6 loopback on this host";
  const std::string authority = absl::StrCat("[::1]:", server.port());
  const frontier::LeaseId page = frontier_.Add("http://" + authority + "/page", authority);
  RunToCompletion();  // allow_ is 127.0.0.0/8 only
  EXPECT_EQ(OutcomeOf(page).outcome, OutcomeClass::kOutOfScope);
  ASSERT_EQ(observer_.events().size(), 1u);
  EXPECT_EQ(observer_.events()[0].detail, "address refused (loopback): ::1");
  EXPECT_EQ(server.requests(), 0);
}

TEST_F(FetcherTest, CreateRejectsBadOptionsAndAGuardedConnectTo) {
  {
    FetcherOptions saved = options_;
    options_.max_in_flight = 0;
    absl::StatusOr<std::unique_ptr<Fetcher>> f = Create();
    EXPECT_TRUE(absl::IsInvalidArgument(f.status())) << f.status();
    options_ = saved;
  }
  {
    FetcherOptions saved = options_;
    options_.robots_agent = "";
    EXPECT_TRUE(absl::IsInvalidArgument(Create().status()));
    options_ = saved;
  }
  {
    FetcherOptions saved = options_;
    options_.max_buffered_tasks = options_.lease_batch - 1;
    EXPECT_TRUE(absl::IsInvalidArgument(Create().status()));
    options_ = saved;
  }
  {
    FetcherOptions saved = options_;
    options_.http.connect_to = absl::StrCat("localhost:", web_.port());  // not an address
    EXPECT_TRUE(absl::IsInvalidArgument(Create().status()));
    options_ = saved;
  }
  allow_.clear();  // loopback refused by the SSRF guard
  absl::StatusOr<std::unique_ptr<Fetcher>> f = Create();
  EXPECT_TRUE(absl::IsInvalidArgument(f.status())) << f.status();
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("SSRF"));
}

// A leased URL that does not parse (a corrupt or foreign entry) is completed, not dropped.
TEST_F(FetcherTest, UnparsableLeasedUrlIsCompletedOutOfScope) {
  const frontier::LeaseId bad = frontier_.Add("not a url at all", "nohost");
  RunToCompletion();
  frontier::FetchOutcome o = OutcomeOf(bad);
  EXPECT_EQ(o.outcome, OutcomeClass::kOutOfScope);
  EXPECT_FALSE(o.retry);
  EXPECT_THAT(web_.hits(), IsEmpty());
}

TEST_F(FetcherTest, EmptyFrontierReturnsAtOnce) {
  RunToCompletion();
  EXPECT_THAT(web_.hits(), IsEmpty());
  EXPECT_THAT(frontier_.completions(), IsEmpty());
}

}  // namespace
}  // namespace crawler::fetcher
