#include "lib/politeness/delay_policy.h"

#include <algorithm>
#include <optional>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace crawler::politeness {
namespace {

PolitenessOptions Options() {
  PolitenessOptions o;
  o.min_delay = absl::Seconds(1);
  o.max_delay = absl::Seconds(60);
  o.delay_factor = 2.0;
  o.max_crawl_delay = absl::Seconds(30);
  o.error_backoff_base = absl::Seconds(5);
  o.error_backoff_max = absl::Minutes(10);
  o.jitter_fraction = 0.25;
  o.max_retry_after = absl::Hours(1);
  return o;
}

// docs/architecture.md §5: delay = max(minimum, robots Crawl-delay (capped), delay_factor x last
// response time), clamped to [min, max].
TEST(Design5_DelayFormula, TakesTheLargestTermClampedToRange) {
  const DelayPolicy policy(Options());
  struct Case {
    const char* name;
    HostFeedback feedback;
    absl::Duration want;
  };
  const Case cases[] = {
      {"nothing known: minimum", {}, absl::Seconds(1)},
      {"crawl-delay above minimum", {.crawl_delay = absl::Seconds(7)}, absl::Seconds(7)},
      {"crawl-delay capped", {.crawl_delay = absl::Hours(24)}, absl::Seconds(30)},
      {"crawl-delay below minimum", {.crawl_delay = absl::Milliseconds(10)}, absl::Seconds(1)},
      {"slow responses scale", {.last_response_time = absl::Seconds(4)}, absl::Seconds(8)},
      {"very slow clamps to max", {.last_response_time = absl::Minutes(5)}, absl::Seconds(60)},
      {"largest term wins",
       {.crawl_delay = absl::Seconds(3), .last_response_time = absl::Seconds(2)},
       absl::Seconds(4)},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(policy.NextDelay(c.feedback, 0.5), c.want) << c.name;
  }
}

// Repeated errors back off exponentially, jitter within +-jitter_fraction, capped.
TEST(Design5_ErrorBackoff, DoublesPerFailureWithBoundedJitter) {
  const DelayPolicy policy(Options());
  for (int failures = 1; failures <= 12; ++failures) {
    const absl::Duration nominal =
        std::min(absl::Seconds(5) * (1 << (failures - 1)), absl::Minutes(10));
    const HostFeedback f{.consecutive_failures = failures};
    EXPECT_EQ(policy.NextDelay(f, 0.5), nominal) << failures;  // jitter_unit 0.5 = no spread
    EXPECT_EQ(policy.NextDelay(f, 0.0), nominal * 0.75) << failures;
    EXPECT_GT(policy.NextDelay(f, 0.999), nominal * 1.24) << failures;
    EXPECT_LT(policy.NextDelay(f, 0.999), nominal * 1.25 + absl::Nanoseconds(1)) << failures;
  }
  // A streak long enough to overflow a naive shift stays at the cap.
  EXPECT_EQ(policy.NextDelay({.consecutive_failures = 5000}, 0.5), absl::Minutes(10));
}

TEST(Design5_RetryAfter, BlocksUntilThenButCapped) {
  const DelayPolicy policy(Options());
  EXPECT_EQ(policy.NextDelay({.retry_after = absl::Seconds(120)}, 0.5), absl::Seconds(120));
  EXPECT_EQ(policy.NextDelay({.retry_after = absl::Hours(48)}, 0.5), absl::Hours(1));
  // A Retry-After shorter than the ordinary delay does not shorten it.
  EXPECT_EQ(policy.NextDelay({.crawl_delay = absl::Seconds(9), .retry_after = absl::Seconds(2)},
                             0.5),
            absl::Seconds(9));
}

// RFC 9110 §10.2.3: Retry-After = HTTP-date / delay-seconds.
// The operator's host delay (host control) is not capped: it may exceed max_crawl_delay and
// max_delay, and never shortens a longer delay.
TEST(HostDelay, IsAFloorAboveEveryCap) {
  const DelayPolicy policy(Options());
  EXPECT_EQ(policy.NextDelay({.host_delay = absl::Minutes(5)}, 0.5), absl::Minutes(5));
  EXPECT_EQ(policy.NextDelay({.crawl_delay = absl::Minutes(10), .host_delay = absl::Minutes(2)},
                             0.5),
            absl::Minutes(2));
  EXPECT_EQ(policy.NextDelay({.retry_after = absl::Seconds(50), .host_delay = absl::Seconds(40)},
                             0.5),
            absl::Seconds(50));
}

TEST(Rfc9110_10_2_3, RetryAfterForms) {
  const absl::Time now = absl::FromUnixSeconds(784111777);  // Sun, 06 Nov 1994 08:49:37 GMT
  struct Case {
    const char* value;
    std::optional<absl::Duration> want;
  };
  const Case cases[] = {
      {"120", absl::Seconds(120)},
      {"  0 ", absl::ZeroDuration()},
      {"Sun, 06 Nov 1994 08:50:37 GMT", absl::Seconds(60)},         // IMF-fixdate
      {"Sunday, 06-Nov-94 08:51:37 GMT", absl::Seconds(120)},       // obsolete RFC 850
      {"Sun Nov  6 08:52:37 1994", absl::Seconds(180)},             // obsolete asctime
      {"Sat, 05 Nov 1994 08:49:37 GMT", absl::ZeroDuration()},      // in the past
      {"99999999999999999999999", absl::InfiniteDuration()},        // overflow: caller caps
      {"-5", std::nullopt},
      {"soon", std::nullopt},
      {"", std::nullopt},
      {"1.5", std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ParseRetryAfter(c.value, now), c.want) << c.value;
  }
}

TEST(PolitenessOptions, ValidateRejectsInconsistentRanges) {
  EXPECT_TRUE(Options().Validate().ok());
  PolitenessOptions o = Options();
  o.max_delay = absl::Milliseconds(10);
  EXPECT_EQ(o.Validate().code(), absl::StatusCode::kInvalidArgument);
  o = Options();
  o.max_connections_per_host = 0;
  EXPECT_EQ(o.Validate().code(), absl::StatusCode::kInvalidArgument);
  o = Options();
  o.jitter_fraction = 1.0;
  EXPECT_EQ(o.Validate().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawler::politeness
