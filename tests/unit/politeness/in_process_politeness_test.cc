#include "lib/politeness/in_process_politeness.h"

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"

namespace crawler::politeness {
namespace {

PolitenessOptions Options() {
  PolitenessOptions o;
  o.min_delay = absl::Milliseconds(100);
  o.max_delay = absl::Seconds(10);
  o.delay_factor = 0.0;
  o.error_backoff_base = absl::Seconds(1);
  o.error_backoff_max = absl::Seconds(60);
  o.jitter_fraction = 0.0;
  return o;
}

bool Granted(InProcessPoliteness& p, const std::string& host, const std::string& ip = "") {
  absl::StatusOr<ClaimResult> r = p.Claim({.host_key = host, .ip = ip});
  EXPECT_TRUE(r.ok());
  return r.ok() && r->granted;
}

void ReleaseOk(InProcessPoliteness& p, const std::string& host, const std::string& ip = "",
               bool failed = false) {
  EXPECT_TRUE(p.Release({.host_key = host, .ip = ip, .failed = failed}).ok());
}

// docs/architecture.md §5: at most max_connections in flight per host (default 1).
TEST(Design5_Connections, OneInFlightPerHostByDefault) {
  FakeClock clock;
  InProcessPoliteness p(Options(), clock, 1);
  ASSERT_TRUE(Granted(p, "a.example"));
  clock.Advance(absl::Seconds(5));  // long past the delay: still refused while in flight
  absl::StatusOr<ClaimResult> second = p.Claim({.host_key = "a.example"});
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->granted);
  EXPECT_TRUE(Granted(p, "b.example"));  // other hosts are independent
  ReleaseOk(p, "a.example");
  clock.Advance(absl::Milliseconds(100));
  EXPECT_TRUE(Granted(p, "a.example"));
}

// The gap between two requests to one host is at least min_delay, measured from the response.
TEST(Design5_Delay, NextClaimWaitsForTheDelay) {
  FakeClock clock;
  InProcessPoliteness p(Options(), clock, 1);
  ASSERT_TRUE(Granted(p, "h"));
  clock.Advance(absl::Milliseconds(30));
  ReleaseOk(p, "h");
  clock.Advance(absl::Milliseconds(99));
  absl::StatusOr<ClaimResult> early = p.Claim({.host_key = "h"});
  ASSERT_TRUE(early.ok());
  EXPECT_FALSE(early->granted);
  EXPECT_EQ(early->wait, absl::Milliseconds(1));
  clock.Advance(absl::Milliseconds(1));
  EXPECT_TRUE(Granted(p, "h"));
}

// docs/architecture.md §5, per-IP: hosts sharing an address share a budget (virtual hosting).
TEST(Design5_PerIp, HostsOnOneAddressShareTheGap) {
  PolitenessOptions o = Options();
  o.max_connections_per_host = 4;  // so only the time gap can refuse
  FakeClock clock;
  InProcessPoliteness p(o, clock, 1);
  ASSERT_TRUE(Granted(p, "a.example", "192.0.2.7"));
  EXPECT_FALSE(Granted(p, "b.example", "192.0.2.7"));
  EXPECT_TRUE(Granted(p, "c.example", "192.0.2.8"));
  clock.Advance(absl::Milliseconds(100));
  EXPECT_TRUE(Granted(p, "b.example", "192.0.2.7"));
}

TEST(Design5_Backoff, FailuresPushTheHostOutExponentially) {
  FakeClock clock;
  InProcessPoliteness p(Options(), clock, 1);
  absl::Duration previous_gap = absl::ZeroDuration();
  for (int failure = 1; failure <= 4; ++failure) {
    ASSERT_TRUE(Granted(p, "h"));
    ReleaseOk(p, "h", "", /*failed=*/true);
    absl::StatusOr<ClaimResult> r = p.Claim({.host_key = "h"});
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->granted);
    EXPECT_EQ(r->wait, absl::Seconds(1) * (1 << (failure - 1))) << failure;
    EXPECT_GT(r->wait, previous_gap);
    previous_gap = r->wait;
    clock.Advance(r->wait);
  }
  // A success resets the streak.
  ASSERT_TRUE(Granted(p, "h"));
  ReleaseOk(p, "h");
  clock.Advance(absl::Milliseconds(100));
  EXPECT_TRUE(Granted(p, "h"));
}

TEST(Design5_RetryAfter, BlocksTheHostOnce) {
  FakeClock clock;
  InProcessPoliteness p(Options(), clock, 1);
  ASSERT_TRUE(Granted(p, "h"));
  absl::StatusOr<ReleaseResult> released =
      p.Release({.host_key = "h", .retry_after = absl::Seconds(5)});
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(released->wait, absl::Seconds(5));  // the caller knows when to look again
  clock.Advance(absl::Seconds(4));
  EXPECT_FALSE(Granted(p, "h"));
  clock.Advance(absl::Seconds(1));
  ASSERT_TRUE(Granted(p, "h"));
  ReleaseOk(p, "h");
  clock.Advance(absl::Milliseconds(100));  // back to the ordinary delay
  EXPECT_TRUE(Granted(p, "h"));
}

TEST(InProcessPoliteness, ReleaseWithoutClaimIsAnError) {
  FakeClock clock;
  InProcessPoliteness p(Options(), clock, 1);
  EXPECT_EQ(p.Release({.host_key = "never"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(InProcessPoliteness, ForgetDropsOnlyIdleEntries) {
  FakeClock clock;
  InProcessPoliteness p(Options(), clock, 1);
  ASSERT_TRUE(Granted(p, "idle", "192.0.2.1"));
  ReleaseOk(p, "idle", "192.0.2.1");
  ASSERT_TRUE(Granted(p, "busy", "192.0.2.2"));
  clock.Advance(absl::Minutes(10));
  EXPECT_EQ(p.Forget(absl::Minutes(1)), 2u);  // "idle" and its address
  EXPECT_EQ(p.HostCount(), 1u);
  EXPECT_EQ(p.AddressCount(), 1u);
}

}  // namespace
}  // namespace crawler::politeness
