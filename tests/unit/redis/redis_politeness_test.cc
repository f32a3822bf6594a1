// RedisPoliteness against a real redis-server: the claim script's semantics (host and address
// limits, waits, Retry-After, back-off, slot expiry, clocks), batching, failing closed, and a
// Redis that comes back empty.
#include "services/common/redis/redis_politeness.h"

#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/clock/clock.h"
#include "lib/clock/fake_clock.h"
#include "services/common/politeness/politeness_store.h"
#include "tests/unit/redis/local_redis.h"

namespace crawler::redis {
namespace {

using politeness::ClaimRequest;
using politeness::ClaimResult;
using politeness::OpenPolitenessStore;
using politeness::Politeness;
using politeness::PolitenessOptions;
using politeness::PolitenessStoreConfig;
using politeness::ReleaseRequest;
using testing::LocalRedis;

PolitenessOptions Policy(absl::Duration min_delay) {
  PolitenessOptions p;
  p.min_delay = min_delay;
  p.max_delay = absl::Seconds(10);
  p.delay_factor = 0;
  p.error_backoff_base = absl::Milliseconds(200);
  p.error_backoff_max = absl::Milliseconds(800);
  p.jitter_fraction = 0;
  return p;
}

class RedisPolitenessTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(redis_.Start()) << "redis-server did not start"; }

  RedisPolitenessOptions Options() const {
    RedisPolitenessOptions o;
    o.redis.address = redis_.address();
    o.fresh_grace = absl::ZeroDuration();  // the empty-restart tests turn it on
    return o;
  }
  std::unique_ptr<RedisPoliteness> Make(const PolitenessOptions& policy,
                                        RedisPolitenessOptions options,
                                        const Clock* clock = nullptr) {
    auto p = RedisPoliteness::Create(options, policy, clock != nullptr ? *clock : clock_, 7);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : nullptr;
  }
  std::unique_ptr<RedisPoliteness> Make(const PolitenessOptions& policy) {
    return Make(policy, Options());
  }

  // Every key in the server.
  std::vector<std::string> AllKeys() {
    auto c = RedisConnection::Connect(RedisOptions{.address = redis_.address()});
    EXPECT_TRUE(c.ok());
    auto reply = (*c)->Command({"KEYS", "*"});
    std::vector<std::string> keys;
    for (size_t i = 0; reply.ok() && i < (*reply)->elements; ++i) {
      keys.emplace_back((*reply)->element[i]->str, (*reply)->element[i]->len);
    }
    return keys;
  }
  void Command(std::vector<std::string> args) {
    auto c = RedisConnection::Connect(RedisOptions{.address = redis_.address()});
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE((*c)->Command(std::move(args)).ok());
  }

  SystemClock clock_;
  LocalRedis redis_;
};

ClaimResult MustClaim(Politeness& p, const std::string& host, const std::string& ip = "") {
  absl::StatusOr<ClaimResult> r = p.Claim({.host_key = host, .ip = ip});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ClaimResult{};
}

// Claims until granted (bounded); returns how long that took.
absl::Duration ClaimWhenAllowed(Politeness& p, const std::string& host, const std::string& ip = "") {
  const absl::Time start = absl::Now();
  for (int i = 0; i < 1000; ++i) {
    const ClaimResult r = MustClaim(p, host, ip);
    if (r.granted) return absl::Now() - start;
    absl::SleepFor(std::max(r.wait, absl::Milliseconds(1)));
  }
  ADD_FAILURE() << "never granted";
  return absl::InfiniteDuration();
}

TEST(RedisAddress, ParsesTheUrlForms) {
  auto a = RedisAddress::Parse("redis://cache.example:6380/2");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->host, "cache.example");
  EXPECT_EQ(a->port, 6380);
  EXPECT_EQ(a->db, 2);
  EXPECT_EQ(a->ToString(), "redis://cache.example:6380/2");
  auto b = RedisAddress::Parse("redis://[::1]");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 6379);
  EXPECT_EQ(b->ToString(), "redis://[::1]:6379");
  for (const char* bad : {"http://h:1", "redis://", "redis://h:0", "redis://h:x",
                          "redis://user:pw@h:1", "redis://h:1/-1", "redis://[::1"}) {
    EXPECT_EQ(RedisAddress::Parse(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST_F(RedisPolitenessTest, TheHostDelaySeparatesRequestStarts) {
  auto p = Make(Policy(absl::Milliseconds(300)));
  EXPECT_TRUE(MustClaim(*p, "a.test").granted);
  const ClaimResult refused = MustClaim(*p, "a.test");
  EXPECT_FALSE(refused.granted);
  EXPECT_GT(refused.wait, absl::Milliseconds(200));
  EXPECT_LE(refused.wait, absl::Milliseconds(300));
  EXPECT_TRUE(MustClaim(*p, "b.test").granted);  // another host is not held up
  ASSERT_TRUE(p->Release({.host_key = "a.test"}).ok());
  EXPECT_GE(ClaimWhenAllowed(*p, "a.test"), absl::Milliseconds(150));
}

// The operator's host delay (host control) spaces the host's requests above the policy's own
// caps (max_delay here), for every process sharing the Redis, and after a release too.
TEST_F(RedisPolitenessTest, TheOperatorsHostDelayHoldsAboveEveryCap) {
  PolitenessOptions policy = Policy(absl::Milliseconds(10));
  policy.max_delay = absl::Milliseconds(50);
  auto a = Make(policy);
  auto b = Make(policy);
  const ClaimRequest slow{.host_key = "slow.test", .host_delay = absl::Milliseconds(400)};
  ASSERT_TRUE(a->Claim(slow).value().granted);
  const ClaimResult refused = b->Claim(slow).value();
  EXPECT_FALSE(refused.granted);
  EXPECT_GT(refused.wait, absl::Milliseconds(300));
  ASSERT_TRUE(a->Release({.host_key = "slow.test"}).ok());
  const absl::Time released = absl::Now();
  for (int i = 0; i < 1000; ++i) {
    const ClaimResult r = b->Claim(slow).value();
    if (r.granted) break;
    absl::SleepFor(std::max(r.wait, absl::Milliseconds(1)));
  }
  EXPECT_GE(absl::Now() - released, absl::Milliseconds(350));
}

TEST_F(RedisPolitenessTest, HostsOnOneAddressShareItsBudget) {
  auto p = Make(Policy(absl::Milliseconds(300)));
  EXPECT_TRUE(MustClaim(*p, "a.test", "192.0.2.1").granted);
  const ClaimResult same_ip = MustClaim(*p, "b.test", "192.0.2.1");
  EXPECT_FALSE(same_ip.granted);
  EXPECT_GT(same_ip.wait, absl::Milliseconds(200));
  EXPECT_TRUE(MustClaim(*p, "c.test", "192.0.2.2").granted);
}

TEST_F(RedisPolitenessTest, TheConnectionLimitHoldsUntilARelease) {
  PolitenessOptions policy = Policy(absl::ZeroDuration());
  policy.max_connections_per_host = 2;
  auto p = Make(policy);
  EXPECT_TRUE(MustClaim(*p, "a.test", "192.0.2.1").granted);
  EXPECT_TRUE(MustClaim(*p, "a.test", "192.0.2.1").granted);
  const ClaimResult third = MustClaim(*p, "a.test", "192.0.2.1");
  EXPECT_FALSE(third.granted);
  EXPECT_EQ(third.wait, absl::ZeroDuration());  // only the limit refused it
  // The address's limit binds another host on it too.
  EXPECT_FALSE(MustClaim(*p, "b.test", "192.0.2.1").granted);
  ASSERT_TRUE(p->Release({.host_key = "a.test", .ip = "192.0.2.1"}).ok());
  EXPECT_TRUE(MustClaim(*p, "a.test", "192.0.2.1").granted);
  EXPECT_EQ(p->MaxConnectionsPerHost(), 2);
}

TEST_F(RedisPolitenessTest, RetryAfterBlocksTheHostOnce) {
  auto p = Make(Policy(absl::Milliseconds(50)));
  ASSERT_TRUE(MustClaim(*p, "a.test").granted);
  absl::StatusOr<politeness::ReleaseResult> released =
      p->Release({.host_key = "a.test", .failed = true, .retry_after = absl::Seconds(3)});
  ASSERT_TRUE(released.ok()) << released.status();
  EXPECT_GT(released->wait, absl::Milliseconds(2900));
  const ClaimResult refused = MustClaim(*p, "a.test");
  EXPECT_FALSE(refused.granted);
  EXPECT_GT(refused.wait, absl::Milliseconds(2900));
  EXPECT_LE(refused.wait, absl::Seconds(3));
}

TEST_F(RedisPolitenessTest, FailuresBackOffExponentiallyAndASuccessResets) {
  auto p = Make(Policy(absl::Milliseconds(10)));
  // Back-off 200 ms, 400 ms, 800 ms (the cap), 800 ms; then a success: the plain delay.
  const absl::Duration expected[] = {absl::Milliseconds(200), absl::Milliseconds(400),
                                     absl::Milliseconds(800), absl::Milliseconds(800)};
  ASSERT_TRUE(MustClaim(*p, "a.test").granted);
  for (absl::Duration want : expected) {
    auto released = p->Release({.host_key = "a.test", .failed = true});
    ASSERT_TRUE(released.ok()) << released.status();
    EXPECT_GT(released->wait, want - absl::Milliseconds(50));
    EXPECT_LE(released->wait, want);
    ClaimWhenAllowed(*p, "a.test");
  }
  auto ok = p->Release({.host_key = "a.test"});
  ASSERT_TRUE(ok.ok());
  EXPECT_LE(ok->wait, absl::Milliseconds(10));
}

TEST_F(RedisPolitenessTest, TheResponseTimeWidensTheGapForEveryProcess) {
  PolitenessOptions policy = Policy(absl::Milliseconds(10));
  policy.delay_factor = 2;
  auto p = Make(policy);
  auto q = Make(policy);
  ASSERT_TRUE(MustClaim(*p, "a.test").granted);
  ASSERT_TRUE(p->Release({.host_key = "a.test", .response_time = absl::Milliseconds(200)}).ok());
  ClaimWhenAllowed(*q, "a.test");
  // The next gap between starts is 2 x 200 ms for the other process too.
  const ClaimResult refused = MustClaim(*q, "a.test");
  EXPECT_FALSE(refused.granted);
  EXPECT_GT(refused.wait, absl::Milliseconds(300));
}

TEST_F(RedisPolitenessTest, AnUnreleasedSlotExpires) {
  RedisPolitenessOptions options = Options();
  options.slot_ttl = absl::Milliseconds(300);
  auto dead = Make(Policy(absl::ZeroDuration()), options);
  auto alive = Make(Policy(absl::ZeroDuration()), options);
  ASSERT_TRUE(MustClaim(*dead, "a.test").granted);  // and never released: its fetcher died
  const ClaimResult refused = MustClaim(*alive, "a.test");
  EXPECT_FALSE(refused.granted);
  const absl::Duration took = ClaimWhenAllowed(*alive, "a.test");
  EXPECT_GE(took, absl::Milliseconds(200));
  EXPECT_LT(took, absl::Seconds(5));
}

TEST_F(RedisPolitenessTest, SkewedProcessClocksAgreeOnRedisTime) {
  FakeClock ahead;
  ahead.Advance(absl::Hours(5));
  FakeClock behind;
  auto p = Make(Policy(absl::Milliseconds(400)), Options(), &ahead);
  auto q = Make(Policy(absl::Milliseconds(400)), Options(), &behind);
  ASSERT_TRUE(MustClaim(*p, "a.test").granted);
  const ClaimResult refused = MustClaim(*q, "a.test");
  EXPECT_FALSE(refused.granted);
  EXPECT_GT(refused.wait, absl::Milliseconds(300));
  ASSERT_TRUE(MustClaim(*q, "b.test").granted);
  EXPECT_FALSE(MustClaim(*p, "b.test").granted);
}

TEST_F(RedisPolitenessTest, ABatchOfClaimsIsOneRoundTrip) {
  auto p = Make(Policy(absl::Seconds(1)));
  std::vector<ClaimRequest> requests;
  for (int i = 0; i < 200; ++i) {
    requests.push_back({.host_key = absl::StrCat("h", i, ".test"), .ip = absl::StrCat("10.0.0.", i)});
  }
  requests.push_back({.host_key = "h0.test", .ip = "10.0.0.0"});  // refused: claimed just before
  const uint64_t before = p->Stats().round_trips;
  auto results = p->ClaimAll(requests);
  EXPECT_EQ(p->Stats().round_trips - before, 1u);
  ASSERT_EQ(results.size(), requests.size());
  for (int i = 0; i < 200; ++i) EXPECT_TRUE(results[i].ok() && results[i]->granted) << i;
  EXPECT_FALSE(results.back()->granted);
  std::vector<ReleaseRequest> releases;
  for (int i = 0; i < 200; ++i) releases.push_back({.host_key = requests[i].host_key, .ip = requests[i].ip});
  auto released = p->ReleaseAll(releases);
  EXPECT_EQ(p->Stats().round_trips - before, 2u);
  for (auto& r : released) EXPECT_TRUE(r.ok()) << r.status();
}

TEST_F(RedisPolitenessTest, KeysHoldHostKeysAndAddressesOnly) {
  auto p = Make(Policy(absl::Milliseconds(10)));
  ASSERT_TRUE(MustClaim(*p, "a.test:8080", "192.0.2.7").granted);
  ASSERT_TRUE(p->Release({.host_key = "a.test:8080", .ip = "192.0.2.7"}).ok());
  std::vector<std::string> keys = AllKeys();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"crawler:politeness:epoch",
                                            "crawler:politeness:h:a.test:8080",
                                            "crawler:politeness:i:192.0.2.7"}));
}

TEST_F(RedisPolitenessTest, ScriptsFlushedOnTheServerAreLoadedAgain) {
  auto p = Make(Policy(absl::Milliseconds(10)));
  ASSERT_TRUE(MustClaim(*p, "a.test").granted);
  Command({"SCRIPT", "FLUSH"});
  absl::StatusOr<politeness::ReleaseResult> released = p->Release({.host_key = "a.test"});
  EXPECT_TRUE(released.ok()) << released.status();
  EXPECT_EQ(p->Stats().outages, 0u);
}

TEST_F(RedisPolitenessTest, FailsClosedWhileRedisIsDownAndRecoversByItself) {
  auto p = Make(Policy(absl::Milliseconds(10)));
  ASSERT_TRUE(MustClaim(*p, "a.test").granted);
  redis_.Kill();
  // Many claims while down: every one refused, one outage (logged once).
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<ClaimResult> r = p->Claim({.host_key = absl::StrCat("h", i)});
    EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  }
  EXPECT_EQ(p->Release({.host_key = "a.test"}).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(p->Stats().outages, 1u);
  ASSERT_TRUE(redis_.Restart());
  // Back within the retry back-off (at most 5 s), without anyone's help.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  bool granted = false;
  while (!granted && absl::Now() < deadline) {
    absl::StatusOr<ClaimResult> r = p->Claim({.host_key = "b.test"});
    granted = r.ok() && r->granted;
    if (!granted) absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_TRUE(granted);
  EXPECT_EQ(p->Stats().outages, 1u);
}

TEST_F(RedisPolitenessTest, AnEmptyRedisKeepsTheGapsThisProcessKnows) {
  auto p = Make(Policy(absl::Seconds(2)));
  ASSERT_TRUE(MustClaim(*p, "a.test", "192.0.2.1").granted);
  ASSERT_TRUE(p->Release({.host_key = "a.test", .ip = "192.0.2.1"}).ok());
  redis_.Kill();
  ASSERT_TRUE(redis_.Restart());  // empty
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  absl::StatusOr<ClaimResult> r = absl::UnavailableError("not tried");
  while (!r.ok() && absl::Now() < deadline) {
    r = p->Claim({.host_key = "a.test", .ip = "192.0.2.1"});
    if (!r.ok()) absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->granted);  // the floor this process sent kept the 2 s gap
  EXPECT_GT(r->wait, absl::Seconds(1));
  // And it was written back: another process, knowing nothing, is refused too.
  auto q = Make(Policy(absl::Seconds(2)));
  EXPECT_FALSE(MustClaim(*q, "a.test").granted);
}

TEST_F(RedisPolitenessTest, AnEmptyRedisMakesUnknownHostsWaitTheirDelayOnce) {
  RedisPolitenessOptions options = Options();
  options.fresh_grace = absl::Seconds(30);
  auto p = Make(Policy(absl::Milliseconds(300)), options);
  // A host this process never contacted: another process may have, just before the restart.
  const ClaimResult first = MustClaim(*p, "a.test", "192.0.2.1");
  EXPECT_FALSE(first.granted);
  EXPECT_GT(first.wait, absl::Milliseconds(200));
  EXPECT_GE(ClaimWhenAllowed(*p, "a.test", "192.0.2.1"), absl::Milliseconds(150));
  // Outside the grace period (an old epoch), unknown hosts are granted at once.
  Command({"SET", "crawler:politeness:epoch", "1"});
  EXPECT_TRUE(MustClaim(*p, "b.test", "192.0.2.2").granted);
}

TEST_F(RedisPolitenessTest, ThePasswordIsSent) {
  LocalRedis locked({"--requirepass", "s3cret"});
  ASSERT_TRUE(locked.Start());
  RedisPolitenessOptions options;
  options.redis.address = locked.address();
  options.fresh_grace = absl::ZeroDuration();
  auto refused = RedisPoliteness::Create(options, Policy(absl::Milliseconds(10)), clock_, 1);
  EXPECT_FALSE(refused.ok());  // no password: NOAUTH at the first script load
  options.redis.password = "wrong";
  refused = RedisPoliteness::Create(options, Policy(absl::Milliseconds(10)), clock_, 1);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  options.redis.password = "s3cret";
  auto p = RedisPoliteness::Create(options, Policy(absl::Milliseconds(10)), clock_, 1);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(MustClaim(**p, "a.test").granted);
}

TEST(RedisPolitenessUnreachable, CreateSaysWhichAddress) {
  SystemClock clock;
  RedisPolitenessOptions options;
  options.redis.address = RedisAddress{.host = "127.0.0.1", .port = 1};
  auto p = RedisPoliteness::Create(options, Policy(absl::Milliseconds(10)), clock, 1);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(p.status().message().find("redis://127.0.0.1:1"), std::string::npos) << p.status();
}

TEST(OpenPolitenessStore, RetriesAnUnreachableRedisForRedisStartWaitThenSaysSo) {
  SystemClock clock;
  PolitenessStoreConfig config;
  config.politeness = "redis://127.0.0.1:1";
  config.redis_start_wait = absl::Milliseconds(400);
  const absl::Time start = absl::Now();
  auto p = OpenPolitenessStore(config, Policy(absl::Milliseconds(10)), absl::Seconds(10), clock, 1);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(p.status().message().find("redis://127.0.0.1:1"), std::string::npos) << p.status();
  // Tried for the whole wait (attempts at 0, 0.1, 0.3 and 0.4 s), not much longer.
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(400));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));

  config.redis_start_wait = absl::ZeroDuration();
  const absl::Time again = absl::Now();
  p = OpenPolitenessStore(config, Policy(absl::Milliseconds(10)), absl::Seconds(10), clock, 1);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_LT(absl::Now() - again, absl::Milliseconds(400));  // no wait: one attempt

  config.redis_start_wait = absl::Seconds(-1);
  EXPECT_EQ(config.Validate().code(), absl::StatusCode::kInvalidArgument);
}

TEST(OpenPolitenessStore, AReachableRedisIsUsedAtOnceWhateverTheWait) {
  LocalRedis redis;
  ASSERT_TRUE(redis.Start());
  SystemClock clock;
  PolitenessStoreConfig config;
  config.politeness = redis.url();
  config.redis_start_wait = absl::Seconds(30);
  auto p = OpenPolitenessStore(config, Policy(absl::Milliseconds(10)), absl::Seconds(10), clock, 1);
  ASSERT_TRUE(p.ok()) << p.status();
  // A Redis just started makes an unknown host wait its delay once (10 ms here), no more.
  EXPECT_LT(ClaimWhenAllowed(**p, "a.test"), absl::Seconds(1));
}

}  // namespace
}  // namespace crawler::redis
