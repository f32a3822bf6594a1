// The fetch loop over every combination of its politeness settings, and over random webs: per-
// host delay 0 and not, 1 to 3 connections per host (and per address), total in-flight caps from
// 1 up, robots.txt denials on and off, politeness in process and in a real redis-server. Each run
// crawls a small web over the in-memory transport (fake_transport.h), whose requests stay in
// flight for one or more polls so that a host's transfers overlap, to the end, and checks the
// loop's invariants:
//   - no request without a politeness claim of its own, never more transfers in flight on a host
//     or an address than its connections allow;
//   - no claim for a host without a task: every claim granted is used by a request, and released;
//   - every leased URL ends exactly once (no lease completed twice or unknown, none left over),
//     with the outcome its page calls for (fetched, robots-denied, the page's status).
// A zero delay with several connections per host is the configuration of every max-throughput
// crawl; a host walked twice in one loop turn there claimed a second slot for its last task.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/clock.h"
#include "lib/net/address_policy.h"
#include "lib/net/ip_address.h"
#include "lib/politeness/in_process_politeness.h"
#include "lib/politeness/politeness_options.h"
#include "lib/random/splitmix64.h"
#include "lib/scope/scope.h"
#include "services/common/redis/redis_politeness.h"
#include "services/fetcher/fetcher.h"
#include "tests/unit/fetcher/fake_transport.h"
#include "tests/unit/fetcher/fetcher_fakes.h"
#include "tests/unit/redis/local_redis.h"

namespace crawler::fetcher {
namespace {

using crawler::testing::ClaimLedger;
using crawler::testing::FakeFrontierClient;
using crawler::testing::FakeTransport;
using crawler::testing::Html;
using crawler::testing::RecordingObserver;
using crawler::testing::Response;
using crawler::testing::TableResolver;
using crawler::testing::Text;
using frontier::OutcomeClass;
using redis::testing::LocalRedis;
using ::testing::IsEmpty;

enum class Store { kInProcess, kRedis };

struct LoopSettings {
  absl::Duration delay;
  int connections_per_host;
  size_t max_in_flight;
  bool robots_denials;
  Store store;
};

std::string Name(const LoopSettings& s) {
  return absl::StrCat("delay", absl::ToInt64Milliseconds(s.delay), "ms_conns",
                      s.connections_per_host, "_inflight", s.max_in_flight,
                      s.robots_denials ? "_denials" : "", s.store == Store::kRedis ? "_redis" : "");
}

void PrintTo(const LoopSettings& s, std::ostream* os) { *os << Name(s); }

// A web of `hosts` hosts with `pages` pages each (/p0 ... ), every page linking the next two of
// its host and the front page of the next host, so a crawl from h0's front page reaches all of
// it. Hosts share `addresses` addresses in turn (virtual hosting). With denials, each host's
// robots.txt disallows /p3 and /p7; `error_every`: every such page answers 500.
struct Web {
  int hosts = 6;
  int pages = 12;
  int addresses = 3;
  bool denials = false;
  int error_every = 0;

  static std::string Host(int h) { return absl::StrCat("h", h, ".test"); }
  static std::string Url(int h, int p) { return absl::StrCat("http://", Host(h), "/p", p); }
  bool Denied(int p) const { return denials && (p == 3 || p == 7); }
  bool Failing(int p) const { return error_every > 0 && p > 0 && p % error_every == 0; }

  // Serves it on `transport`, names its hosts in `resolver`.
  void Serve(FakeTransport& transport, TableResolver& resolver) const {
    for (int h = 0; h < hosts; ++h) {
      resolver.Set(Host(h), std::vector<net::IpAddress>{*net::IpAddress::Parse(
                                absl::StrCat("127.0.0.", 1 + h % addresses))});
      transport.Set(absl::StrCat("http://", Host(h), "/robots.txt"),
                    denials ? Text("User-agent: *\nDisallow: /p3\nDisallow: /p7\n")
                            : Response(404, "Not Found", "text/plain", ""));
      for (int p = 0; p < pages; ++p) {
        std::string body;
        for (int next : {p + 1, p + 2}) {
          if (next < pages) absl::StrAppend(&body, "<a href=\"/p", next, "\">n</a> ");
        }
        if (p == 0 && h + 1 < hosts) absl::StrAppend(&body, "<a href=\"", Url(h + 1, 0), "\">x</a>");
        transport.Set(Url(h, p), Failing(p) ? Response(500, "Error", "text/plain", "down")
                                            : Html(body));
      }
    }
  }
};

// Runs a fetcher over a FakeTransport on `web` with `settings` and checks the invariants above.
class LoopRun {
 public:
  LoopRun(const LoopSettings& settings, const Web& web, uint64_t seed, int min_polls,
          int max_polls, LocalRedis* redis, const std::string& redis_prefix)
      : settings_(settings), web_(web) {
    politeness::PolitenessOptions p;
    p.min_delay = settings.delay;
    p.max_delay = std::max(settings.delay, absl::Milliseconds(1));
    p.delay_factor = 0;
    p.jitter_fraction = 0;
    p.max_connections_per_host = settings.connections_per_host;
    p.error_backoff_base = absl::Milliseconds(2);
    p.error_backoff_max = absl::Milliseconds(8);
    if (settings.store == Store::kRedis) {
      redis::RedisPolitenessOptions r;
      r.redis.address = redis->address();
      r.key_prefix = redis_prefix;
      r.fresh_grace = absl::ZeroDuration();
      auto created = redis::RedisPoliteness::Create(r, p, clock_, seed);
      EXPECT_TRUE(created.ok()) << created.status();
      if (created.ok()) store_ = *std::move(created);
    } else {
      store_ = std::make_unique<politeness::InProcessPoliteness>(p, clock_, seed);
    }
    ledger_ = std::make_unique<ClaimLedger>(*store_);
    transport_ = std::make_unique<FakeTransport>(*ledger_, settings.connections_per_host);
    transport_->SetLatency(seed, min_polls, max_polls);
    web.Serve(*transport_, resolver_);
    frontier_.set_enqueue_added(true);
    frontier_.Add(Web::Url(0, 0), Web::Host(0));

    options_.robots_agent = "testbot";
    options_.resolver.threads = 1;
    options_.worker_threads = 2;
    options_.max_in_flight = settings.max_in_flight;
    options_.lease_batch = 16;
    options_.lease_max_per_host = 4;
    options_.max_buffered_tasks = 64;
    options_.flush_interval = absl::Milliseconds(2);
    options_.lease_pause_empty = absl::Milliseconds(2);
    options_.lease_pause_partial = absl::Milliseconds(2);
    auto guard = net::AddressPolicy::Create({"127.0.0.0/8"});
    EXPECT_TRUE(guard.ok()) << guard.status();
    guard_ = std::make_unique<net::AddressPolicy>(*guard);
    auto scope = scope::Scope::Create({}, {}, nullptr);
    EXPECT_TRUE(scope.ok()) << scope.status();
    scope_ = std::make_unique<scope::Scope>(*std::move(scope));
  }

  void RunAndCheck() {
    absl::Status run = Run();
    ASSERT_TRUE(run.ok()) << run;

    EXPECT_THAT(transport_->violations(), IsEmpty());
    EXPECT_THAT(ledger_->unused(), IsEmpty()) << "claims granted for hosts with no request";
    EXPECT_EQ(ledger_->released(), ledger_->granted());
    EXPECT_EQ(ledger_->granted(), static_cast<int>(transport_->requests().size()));

    // Every lease ends exactly once, with the outcome its page calls for.
    EXPECT_EQ(frontier_.unknown_completions(), 0);
    EXPECT_TRUE(*frontier_.IsExhausted()) << "leases left over";
    std::set<frontier::LeaseId> ended;
    std::map<std::string, OutcomeClass> outcome_of;
    for (const frontier::FetchOutcome& o : frontier_.completions()) {
      EXPECT_TRUE(ended.insert(o.lease_id).second) << "lease " << o.lease_id << " ended twice";
      outcome_of[frontier_.UrlOf(o.lease_id)] = o.outcome;
    }
    // Every host's front page is linked from the previous host's, so each host is reached.
    const std::vector<bool> reachable = ReachablePages();
    size_t expected = 0;
    for (int h = 0; h < web_.hosts; ++h) {
      for (int p = 0; p < web_.pages; ++p) {
        // A denied page's links are never seen: the pages only it links are not reached.
        if (!reachable[p]) continue;
        ++expected;
        const std::string url = Web::Url(h, p);
        auto it = outcome_of.find(url);
        if (it == outcome_of.end()) {
          ADD_FAILURE() << url << " never completed";
          continue;
        }
        if (web_.Denied(p)) {
          EXPECT_EQ(it->second, OutcomeClass::kRobotsDenied) << url;
        } else if (!web_.Failing(p)) {
          EXPECT_EQ(it->second, OutcomeClass::kFetched) << url;
        }
      }
    }
    EXPECT_EQ(outcome_of.size(), expected);
  }

  // The frontier refuses the crawl for good (its collection deleted) once `started` requests
  // are under way, and only then do the requests progress, each taking two polls or more: Run
  // returns the refusal, and the transfers in flight end first and release their claims, which
  // would otherwise hold their hosts (and, in Redis, every fetcher's claims on them) until the
  // claims expire.
  void RunRefusedMidTransfer(size_t started) {
    // Every host's front page queued from the start: transfers are under way on many hosts,
    // and the link, its queue empty, keeps asking the frontier for more.
    for (int h = 1; h < web_.hosts; ++h) frontier_.Add(Web::Url(h, 0), Web::Host(h));
    transport_->set_hold(true);
    FakeTransport* transport = transport_.get();
    frontier_.RefuseFrom([transport, started] { return transport->requests().size() >= started; },
                         [transport] { transport->set_hold(false); });
    absl::Status run = Run();
    EXPECT_TRUE(absl::IsFailedPrecondition(run)) << run;
    EXPECT_GE(ledger_->granted(), static_cast<int>(started));
    EXPECT_EQ(ledger_->released(), ledger_->granted()) << "claims left held";
  }

  // Stopped once `started` requests are under way, none of which ever progresses: at the drain
  // deadline the transfers are given up and their leases handed back, and their politeness
  // claims are released all the same (one left held would block its host, for every fetcher
  // sharing the store, until it expires).
  void RunStoppedWhileHeld(size_t started) {
    for (int h = 1; h < web_.hosts; ++h) frontier_.Add(Web::Url(h, 0), Web::Host(h));
    transport_->set_hold(true);
    options_.drain_timeout = absl::Milliseconds(20);
    FakeTransport* transport = transport_.get();
    absl::Status run =
        Run([transport, started](const Fetcher&) { return transport->requests().size() >= started; });
    EXPECT_TRUE(run.ok()) << run;
    EXPECT_GE(ledger_->granted(), static_cast<int>(started));
    EXPECT_EQ(ledger_->released(), ledger_->granted()) << "claims left held";
  }

  // The process stops (as under SIGSTOP) once every host's first page is under way, with each
  // host's second page leased and waiting out the politeness delay; meanwhile the collection is
  // deleted. When the process runs again every host is due at once, and the frontier takes a
  // while to answer. Nothing more may start: the leases belong to a collection that is gone,
  // and only the frontier can tell. Run returns its refusal.
  void RunStalledWhileTheCollectionGoes() {
    frontier_.set_enqueue_added(false);
    for (int h = 1; h < web_.hosts; ++h) frontier_.Add(Web::Url(h, 0), Web::Host(h));
    for (int h = 0; h < web_.hosts; ++h) frontier_.Add(Web::Url(h, 1), Web::Host(h));
    options_.obey_robots = false;
    const size_t first_pages = static_cast<size_t>(web_.hosts);
    std::atomic<bool> done{false};
    std::thread stall([&] {
      while (!done && transport_->requests().size() < first_pages) {
        absl::SleepFor(absl::Milliseconds(1));
      }
      if (done) return;
      frontier_.set_answer_delay(absl::Milliseconds(300));
      frontier_.RefuseFrom([] { return true; }, nullptr);
      clock_.Advance(settings_.delay + absl::Seconds(1));
    });
    absl::Status run = Run();
    done = true;
    stall.join();
    EXPECT_TRUE(absl::IsFailedPrecondition(run)) << run;
    EXPECT_EQ(transport_->requests().size(), first_pages)
        << "requests started for a collection deleted while the process was stopped";
    EXPECT_GE(stats_.loop_stalls, 1u);
    EXPECT_EQ(ledger_->released(), ledger_->granted()) << "claims left held";
  }

  // The most transfers that were in flight on one host at once.
  int overlap() const { return transport_->max_in_flight_on_a_host(); }

 private:
  absl::Status Run(const std::function<bool(const Fetcher&)>& stop_when = nullptr) {
    if (store_ == nullptr) return absl::InternalError("no politeness store");
    absl::StatusOr<std::unique_ptr<Fetcher>> fetcher =
        Fetcher::Create(options_, {.frontier = &frontier_,
                                   .politeness = ledger_.get(),
                                   .resolver = &resolver_,
                                   .guard = guard_.get(),
                                   .scope = scope_.get(),
                                   .clock = &clock_,
                                   .observer = &observer_,
                                   .transport = transport_.get()});
    if (!fetcher.ok()) return fetcher.status();
    absl::Status status = crawler::testing::RunBounded(**fetcher, absl::Seconds(30), stop_when);
    stats_ = (*fetcher)->Stats();
    return status;
  }

  // By page number (the same on every host): reached when some page that was fetched (reached,
  // not denied, not failing) links it.
  std::vector<bool> ReachablePages() const {
    std::vector<bool> reached(web_.pages, false);
    reached[0] = true;
    for (int p = 1; p < web_.pages; ++p) {
      for (int from : {p - 1, p - 2}) {
        if (from >= 0 && reached[from] && !web_.Denied(from) && !web_.Failing(from)) {
          reached[p] = true;
        }
      }
    }
    return reached;
  }

  const LoopSettings settings_;
  const Web web_;
  crawler::testing::ShiftedClock clock_;
  std::unique_ptr<politeness::Politeness> store_;
  std::unique_ptr<ClaimLedger> ledger_;
  std::unique_ptr<FakeTransport> transport_;
  FakeFrontierClient frontier_;
  TableResolver resolver_;
  RecordingObserver observer_;
  FetcherOptions options_;
  FetcherStats stats_;  // the last run's
  std::unique_ptr<net::AddressPolicy> guard_;
  std::unique_ptr<scope::Scope> scope_;
};

// One redis-server for the test process, started by the first run that needs it; each run keys
// its state under a prefix of its own.
class FetcherLoopTest : public ::testing::TestWithParam<LoopSettings> {
 protected:
  static void TearDownTestSuite() {
    delete redis_;
    redis_ = nullptr;
  }
  // The server, or null if it did not start.
  static LocalRedis* Redis() {
    if (redis_ == nullptr) {
      redis_ = new LocalRedis();
      if (!redis_->Start()) ADD_FAILURE() << "redis-server did not start";
    }
    return redis_;
  }
  static std::string Prefix() { return absl::StrCat("loop", ++runs_, ":"); }

  static LocalRedis* redis_;
  static int runs_;
};
LocalRedis* FetcherLoopTest::redis_ = nullptr;
int FetcherLoopTest::runs_ = 0;

TEST_P(FetcherLoopTest, EveryLeaseEndsOnceUnderItsClaims) {
  const LoopSettings s = GetParam();
  Web web;
  web.denials = s.robots_denials;
  // Every request stays in flight for 1-3 polls: with room for it, a host's next transfer
  // starts while its last one runs.
  LoopRun run(s, web, /*seed=*/7, /*min_polls=*/1, /*max_polls=*/3,
              s.store == Store::kRedis ? Redis() : nullptr, Prefix());
  run.RunAndCheck();
  if (s.delay == absl::ZeroDuration() && s.max_in_flight > 1 && s.connections_per_host > 1) {
    EXPECT_GE(run.overlap(), 2) << "no host ever had two transfers at once: not exercised";
  }
}

TEST_F(FetcherLoopTest, AFrontierThatRefusesTheCrawlLeavesNoClaimHeld) {
  const LoopSettings s{.delay = absl::ZeroDuration(),
                       .connections_per_host = 2,
                       .max_in_flight = 8,
                       .robots_denials = false,
                       .store = Store::kInProcess};
  LoopRun run(s, Web{}, /*seed=*/11, /*min_polls=*/2, /*max_polls=*/4, nullptr, Prefix());
  run.RunRefusedMidTransfer(/*started=*/4);
}

TEST_F(FetcherLoopTest, TransfersGivenUpAtTheDrainDeadlineReleaseTheirClaims) {
  const LoopSettings s{.delay = absl::ZeroDuration(),
                       .connections_per_host = 2,
                       .max_in_flight = 8,
                       .robots_denials = false,
                       .store = Store::kInProcess};
  LoopRun run(s, Web{}, /*seed=*/12, /*min_polls=*/2, /*max_polls=*/4, nullptr, Prefix());
  run.RunStoppedWhileHeld(/*started=*/4);
}

TEST_F(FetcherLoopTest, AProcessStoppedWhileItsCollectionWasDeletedStartsNothingMore) {
  const LoopSettings s{.delay = absl::Seconds(1),
                       .connections_per_host = 1,
                       .max_in_flight = 64,
                       .robots_denials = false,
                       .store = Store::kInProcess};
  LoopRun run(s, Web{.hosts = 6, .addresses = 6}, /*seed=*/13, /*min_polls=*/1, /*max_polls=*/2, nullptr, Prefix());
  run.RunStalledWhileTheCollectionGoes();
}

std::vector<LoopSettings> AllSettings() {
  std::vector<LoopSettings> out;
  for (absl::Duration delay : {absl::ZeroDuration(), absl::Milliseconds(2)}) {
    for (int conns : {1, 2, 3}) {
      for (size_t in_flight : {size_t{1}, size_t{3}, size_t{64}}) {
        for (bool denials : {false, true}) {
          for (Store store : {Store::kInProcess, Store::kRedis}) {
            out.push_back({delay, conns, in_flight, denials, store});
          }
        }
      }
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Settings, FetcherLoopTest, ::testing::ValuesIn(AllSettings()),
                         [](const ::testing::TestParamInfo<LoopSettings>& param) {
                           return Name(param.param);
                         });

// Random webs, settings and latencies: the same invariants, on shapes the grid does not have
// (one host, many addresses per host or hosts per address, failing pages, long and short
// latencies, small and large buffers).
TEST_F(FetcherLoopTest, RandomWebsKeepTheInvariants) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    random::SplitMix64 rng(seed);
    auto pick = [&](uint64_t n) { return rng.Next() % n; };
    LoopSettings s{
        .delay = absl::Milliseconds(pick(2) == 0 ? 0 : 1 + pick(3)),
        .connections_per_host = 1 + static_cast<int>(pick(4)),
        .max_in_flight = size_t{1} + pick(16),
        .robots_denials = pick(2) == 0,
        .store = seed % 4 == 0 ? Store::kRedis : Store::kInProcess};
    Web web;
    web.hosts = 1 + static_cast<int>(pick(8));
    web.pages = 1 + static_cast<int>(pick(20));
    web.addresses = 1 + static_cast<int>(pick(4));
    web.denials = s.robots_denials;
    web.error_every = pick(3) == 0 ? 2 + static_cast<int>(pick(4)) : 0;
    SCOPED_TRACE(absl::StrCat("seed ", seed, ": ", Name(s), " hosts ", web.hosts, " pages ",
                              web.pages, " addresses ", web.addresses, " error_every ",
                              web.error_every));
    LoopRun run(s, web, seed, /*min_polls=*/0, /*max_polls=*/static_cast<int>(pick(5)),
                s.store == Store::kRedis ? Redis() : nullptr, Prefix());
    run.RunAndCheck();
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace crawler::fetcher
