// AsyncResolver tests (docs/architecture.md §6 "resolve (cached, honouring TTL bounds)"): answers
// arrive through Drain after the notify callback, are cached for positive_ttl (failures for
// negative_ttl) on the injected clock, concurrent requests for one host share one lookup, and
// the cache is bounded. A table-driven fake Resolver; no sleeps (waits are condition waits).
#include "services/fetcher/resolver.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/net/ip_address.h"

namespace crawler::fetcher {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

net::IpAddress Ip(const std::string& text) { return net::IpAddress::Parse(text).value(); }

// Answers from a table; can hold every lookup until Release() so requests overlap.
class FakeResolver final : public Resolver {
 public:
  void Set(const std::string& host, absl::StatusOr<std::vector<net::IpAddress>> answer) {
    absl::MutexLock lock(&mu_);
    answers_.insert_or_assign(host, std::move(answer));
  }
  void Hold() {
    absl::MutexLock lock(&mu_);
    held_ = true;
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    held_ = false;
  }
  int calls(const std::string& host) const {
    absl::MutexLock lock(&mu_);
    auto it = calls_.find(host);
    return it == calls_.end() ? 0 : it->second;
  }
  // Waits until `n` lookups are blocked in Resolve (10 s bound).
  bool WaitForBlocked(int n) {
    absl::MutexLock lock(&mu_);
    want_blocked_ = n;
    return mu_.AwaitWithTimeout(absl::Condition(this, &FakeResolver::EnoughBlocked),
                                absl::Seconds(10));
  }

  absl::StatusOr<std::vector<net::IpAddress>> Resolve(const std::string& host) override {
    absl::MutexLock lock(&mu_);
    ++calls_[host];
    ++blocked_;
    mu_.Await(absl::Condition(+[](bool* held) { return !*held; }, &held_));
    --blocked_;
    auto it = answers_.find(host);
    if (it == answers_.end()) return absl::NotFoundError("no such host: " + host);
    return it->second;
  }

 private:
  bool EnoughBlocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return blocked_ >= want_blocked_; }

  mutable absl::Mutex mu_;
  std::map<std::string, absl::StatusOr<std::vector<net::IpAddress>>> answers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> calls_ ABSL_GUARDED_BY(mu_);
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  int blocked_ ABSL_GUARDED_BY(mu_) = 0;
  int want_blocked_ ABSL_GUARDED_BY(mu_) = 0;
};

class AsyncResolverTest : public ::testing::Test {
 protected:
  AsyncResolverTest() {
    fake_.Set("a.test", std::vector<net::IpAddress>{Ip("192.0.2.1"), Ip("2001:db8::1")});
    fake_.Set("b.test", std::vector<net::IpAddress>{Ip("192.0.2.2")});
    fake_.Set("c.test", std::vector<net::IpAddress>{Ip("192.0.2.3")});
    fake_.Set("flaky.test", absl::UnavailableError("temporary failure"));
  }

  ~AsyncResolverTest() override {
    fake_.Release();  // a failed test must not leave workers blocked in the destructor's join
    resolver_.reset();
  }

  void Start(AsyncResolverOptions options = {}) {
    resolver_ = std::make_unique<AsyncResolver>(options, fake_, clock_, [this] {
      absl::MutexLock lock(&mu_);
      ++notified_;
    });
  }

  // Drains until `n` results arrived (10 s bound: a failure, not a hang).
  std::vector<AsyncResolver::Result> DrainN(size_t n) {
    std::vector<AsyncResolver::Result> results;
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (results.size() < n && absl::Now() < deadline) {
      {
        absl::MutexLock lock(&mu_);
        mu_.AwaitWithTimeout(absl::Condition(this, &AsyncResolverTest::NewNotification),
                             absl::Milliseconds(100));
        notified_seen_ = notified_;
      }
      for (AsyncResolver::Result& r : resolver_->Drain()) results.push_back(std::move(r));
    }
    return results;
  }

  int notified() {
    absl::MutexLock lock(&mu_);
    return notified_;
  }

  bool NewNotification() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return notified_ > notified_seen_;
  }

  FakeClock clock_;
  FakeResolver fake_;
  absl::Mutex mu_;
  int notified_ ABSL_GUARDED_BY(mu_) = 0;
  int notified_seen_ ABSL_GUARDED_BY(mu_) = 0;
  std::unique_ptr<AsyncResolver> resolver_;
};

// RFC 3986 §3.2.2: an IPv6 host is written in brackets ("[::1]"). IP literals name their
// address: no lookup (getaddrinfo would fail on the brackets), an answer at once.
TEST(IpLiteralHost, LiteralsAreTheirAddressNamesAreNot) {
  EXPECT_EQ(IpLiteralHost("[::1]"), Ip("::1"));
  EXPECT_EQ(IpLiteralHost("[2001:db8::5]"), Ip("2001:db8::5"));
  EXPECT_EQ(IpLiteralHost("::1"), Ip("::1"));
  EXPECT_EQ(IpLiteralHost("127.0.0.1"), Ip("127.0.0.1"));
  EXPECT_EQ(IpLiteralHost("a.test"), std::nullopt);
  EXPECT_EQ(IpLiteralHost("[127.0.0.1]"), std::nullopt);  // brackets hold IPv6 only
  EXPECT_EQ(IpLiteralHost("[::1"), std::nullopt);
  EXPECT_EQ(IpLiteralHost(""), std::nullopt);
}

TEST(SystemResolver, Rfc3986_3_2_2_IpLiteralsResolveWithoutDns) {
  SystemResolver resolver;
  absl::StatusOr<std::vector<net::IpAddress>> v6 = resolver.Resolve("[::1]");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_THAT(*v6, ElementsAre(Ip("::1")));
  absl::StatusOr<std::vector<net::IpAddress>> v4 = resolver.Resolve("127.0.0.1");
  ASSERT_TRUE(v4.ok()) << v4.status();
  EXPECT_THAT(*v4, ElementsAre(Ip("127.0.0.1")));
}

TEST_F(AsyncResolverTest, IpLiteralsAreAnsweredAtOnceWithoutALookup) {
  Start();
  auto cached = resolver_->Cached("[::1]");
  ASSERT_TRUE(cached.has_value());
  ASSERT_TRUE(cached->ok());
  EXPECT_THAT(**cached, ElementsAre(Ip("::1")));
  EXPECT_EQ(fake_.calls("[::1]"), 0);
}

TEST_F(AsyncResolverTest, AnswerArrivesThroughDrainAndIsCached) {
  Start();
  EXPECT_FALSE(resolver_->Cached("a.test").has_value());
  resolver_->Request("a.test");
  std::vector<AsyncResolver::Result> results = DrainN(1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].host, "a.test");
  ASSERT_TRUE(results[0].addresses.ok());
  EXPECT_THAT(*results[0].addresses, ElementsAre(Ip("192.0.2.1"), Ip("2001:db8::1")));
  EXPECT_GE(notified(), 1);

  auto cached = resolver_->Cached("a.test");
  ASSERT_TRUE(cached.has_value());
  ASSERT_TRUE(cached->ok());
  EXPECT_THAT(**cached, ElementsAre(Ip("192.0.2.1"), Ip("2001:db8::1")));
  EXPECT_EQ(fake_.calls("a.test"), 1);
  EXPECT_THAT(resolver_->Drain(), IsEmpty());  // each result is drained once
}

TEST_F(AsyncResolverTest, PositiveAnswersExpireAfterPositiveTtl) {
  Start({.threads = 1, .positive_ttl = absl::Minutes(10), .negative_ttl = absl::Minutes(1)});
  resolver_->Request("a.test");
  ASSERT_EQ(DrainN(1).size(), 1u);
  clock_.Advance(absl::Minutes(10) - absl::Seconds(1));
  EXPECT_TRUE(resolver_->Cached("a.test").has_value());
  clock_.Advance(absl::Seconds(1));
  EXPECT_FALSE(resolver_->Cached("a.test").has_value());

  // A new lookup refreshes it.
  fake_.Set("a.test", std::vector<net::IpAddress>{Ip("192.0.2.99")});
  resolver_->Request("a.test");
  ASSERT_EQ(DrainN(1).size(), 1u);
  auto cached = resolver_->Cached("a.test");
  ASSERT_TRUE(cached.has_value() && cached->ok());
  EXPECT_THAT(**cached, ElementsAre(Ip("192.0.2.99")));
  EXPECT_EQ(fake_.calls("a.test"), 2);
}

TEST_F(AsyncResolverTest, FailuresAreCachedForNegativeTtlWithTheirCode) {
  Start({.threads = 2, .positive_ttl = absl::Minutes(10), .negative_ttl = absl::Minutes(1)});
  resolver_->Request("nonexistent.test");
  resolver_->Request("flaky.test");
  std::vector<AsyncResolver::Result> results = DrainN(2);
  ASSERT_EQ(results.size(), 2u);
  for (const AsyncResolver::Result& r : results) EXPECT_FALSE(r.addresses.ok()) << r.host;

  auto missing = resolver_->Cached("nonexistent.test");
  ASSERT_TRUE(missing.has_value());
  EXPECT_TRUE(absl::IsNotFound(missing->status())) << missing->status();
  auto flaky = resolver_->Cached("flaky.test");
  ASSERT_TRUE(flaky.has_value());
  EXPECT_TRUE(absl::IsUnavailable(flaky->status())) << flaky->status();

  clock_.Advance(absl::Seconds(59));
  EXPECT_TRUE(resolver_->Cached("nonexistent.test").has_value());
  clock_.Advance(absl::Seconds(1));
  EXPECT_FALSE(resolver_->Cached("nonexistent.test").has_value());
  EXPECT_FALSE(resolver_->Cached("flaky.test").has_value());
}

TEST_F(AsyncResolverTest, ConcurrentRequestsForOneHostShareOneLookup) {
  fake_.Hold();
  Start({.threads = 4});
  resolver_->Request("a.test");
  ASSERT_TRUE(fake_.WaitForBlocked(1));
  resolver_->Request("a.test");
  resolver_->Request("a.test");
  resolver_->Request("b.test");
  ASSERT_TRUE(fake_.WaitForBlocked(2));
  fake_.Release();
  std::vector<AsyncResolver::Result> results = DrainN(2);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(fake_.calls("a.test"), 1);
  EXPECT_EQ(fake_.calls("b.test"), 1);
  EXPECT_THAT(resolver_->Drain(), IsEmpty());

  // Once finished, a new request for the host starts a new lookup.
  resolver_->Request("a.test");
  ASSERT_EQ(DrainN(1).size(), 1u);
  EXPECT_EQ(fake_.calls("a.test"), 2);
}

TEST_F(AsyncResolverTest, NotifyIsCalledForEveryResult) {
  Start({.threads = 2});
  resolver_->Request("a.test");
  resolver_->Request("b.test");
  resolver_->Request("c.test");
  ASSERT_EQ(DrainN(3).size(), 3u);
  EXPECT_EQ(notified(), 3);
}

TEST_F(AsyncResolverTest, CacheIsBoundedToMaxEntries) {
  Start({.threads = 1, .max_entries = 2});
  for (const char* host : {"a.test", "b.test", "c.test"}) {
    resolver_->Request(host);
    ASSERT_EQ(DrainN(1).size(), 1u) << host;
  }
  EXPECT_FALSE(resolver_->Cached("a.test").has_value());  // the oldest went first
  EXPECT_TRUE(resolver_->Cached("b.test").has_value());
  EXPECT_TRUE(resolver_->Cached("c.test").has_value());
}

// "Oldest evicted first" (resolver.h): an entry refreshed after it expired is the newest one,
// so the bound must not evict it before entries resolved earlier.
TEST_F(AsyncResolverTest, RefreshedEntryIsNotEvictedBeforeOlderOnes) {
  Start({.threads = 1, .positive_ttl = absl::Minutes(10), .max_entries = 2});
  resolver_->Request("a.test");
  ASSERT_EQ(DrainN(1).size(), 1u);
  clock_.Advance(absl::Minutes(1));
  resolver_->Request("b.test");
  ASSERT_EQ(DrainN(1).size(), 1u);
  clock_.Advance(absl::Minutes(9));  // a.test expired, b.test has 1 minute left
  ASSERT_FALSE(resolver_->Cached("a.test").has_value());
  resolver_->Request("a.test");  // refreshed: now the newest entry
  ASSERT_EQ(DrainN(1).size(), 1u);
  resolver_->Request("c.test");
  ASSERT_EQ(DrainN(1).size(), 1u);
  EXPECT_TRUE(resolver_->Cached("a.test").has_value())
      << "the entry resolved most recently was evicted";
  EXPECT_FALSE(resolver_->Cached("b.test").has_value());
  EXPECT_TRUE(resolver_->Cached("c.test").has_value());
}

}  // namespace
}  // namespace crawler::fetcher
