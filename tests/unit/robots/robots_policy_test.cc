// Tests of RobotsPolicy (lib/robots/robots_policy.h): RFC 9309 §2.3.1 access results and §2.4
// caching, as a pure function of the fetch outcome.
#include "lib/robots/robots_policy.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "absl/time/time.h"

namespace crawler::robots {
namespace {

RobotsFetchOutcome Status(int status) {
  RobotsFetchOutcome outcome;
  outcome.http_status = status;
  return outcome;
}

RobotsFetchOutcome NetworkError() { return RobotsFetchOutcome{}; }

struct PolicyCase {
  std::string_view name;
  RobotsFetchOutcome outcome;
  RobotsAction action;
  absl::Duration lifetime;
};

void RunCases(const RobotsPolicy& policy, const std::vector<PolicyCase>& cases) {
  for (const PolicyCase& c : cases) {
    const RobotsDecision decision = policy.Decide(c.outcome);
    EXPECT_EQ(RobotsActionName(decision.action), RobotsActionName(c.action)) << c.name;
    EXPECT_EQ(decision.cache_lifetime, c.lifetime) << c.name;
  }
}

constexpr absl::Duration k24h = absl::Hours(24);
constexpr absl::Duration kRetry = absl::Minutes(30);

// §2.3.1.1: a successful download is parsed.
TEST(Rfc9309_2_3_1_1, SuccessIsParsed) {
  RunCases(RobotsPolicy(), {
                               {"200", Status(200), RobotsAction::kParseBody, k24h},
                               {"204", Status(204), RobotsAction::kParseBody, k24h},
                               {"299", Status(299), RobotsAction::kParseBody, k24h},
                           });
}

// §2.3.1.2: at least five consecutive redirects are followed; beyond that, unavailable.
TEST(Rfc9309_2_3_1_2, Redirects) {
  auto redirect = [](int status, int followed) {
    RobotsFetchOutcome o = Status(status);
    o.redirects_followed = followed;
    return o;
  };
  RobotsFetchOutcome no_location = redirect(302, 0);
  no_location.has_location = false;
  RunCases(RobotsPolicy(),
           {
               {"301 first", redirect(301, 0), RobotsAction::kFollowRedirect, absl::ZeroDuration()},
               {"302", redirect(302, 1), RobotsAction::kFollowRedirect, absl::ZeroDuration()},
               {"303", redirect(303, 2), RobotsAction::kFollowRedirect, absl::ZeroDuration()},
               {"307", redirect(307, 3), RobotsAction::kFollowRedirect, absl::ZeroDuration()},
               {"308, the fifth", redirect(308, 4), RobotsAction::kFollowRedirect,
                absl::ZeroDuration()},
               {"the sixth is not followed", redirect(301, 5), RobotsAction::kAllowAll, k24h},
               {"far beyond", redirect(301, 50), RobotsAction::kAllowAll, k24h},
               {"no Location", no_location, RobotsAction::kAllowAll, k24h},
               {"300 with a Location", redirect(300, 0), RobotsAction::kFollowRedirect,
                absl::ZeroDuration()},
           });

  RobotsPolicyOptions more;
  more.max_redirects = 8;
  RunCases(RobotsPolicy(more),
           {
               {"8 configured, 8th followed", redirect(301, 7), RobotsAction::kFollowRedirect,
                absl::ZeroDuration()},
               {"8 configured, 9th not", redirect(301, 8), RobotsAction::kAllowAll, k24h},
           });
  RobotsPolicyOptions fewer;
  fewer.max_redirects = 1;
  EXPECT_EQ(RobotsPolicy(fewer).options().max_redirects, 5) << "the RFC's minimum";
  fewer.max_redirects = 1000;
  EXPECT_EQ(RobotsPolicy(fewer).options().max_redirects, 20);
}

// §2.3.1.3: 4xx means unavailable: allow all. 429 is the exception (slow down, not absent).
TEST(Rfc9309_2_3_1_3, UnavailableAllowsAll) {
  RunCases(RobotsPolicy(),
           {
               {"400", Status(400), RobotsAction::kAllowAll, k24h},
               {"401", Status(401), RobotsAction::kAllowAll, k24h},
               {"403", Status(403), RobotsAction::kAllowAll, k24h},
               {"404", Status(404), RobotsAction::kAllowAll, k24h},
               {"410", Status(410), RobotsAction::kAllowAll, k24h},
               {"499", Status(499), RobotsAction::kAllowAll, k24h},
               {"429 is unreachable", Status(429), RobotsAction::kDisallowAll, kRetry},
           });
}

// §2.3.1.4: 5xx and network errors mean unreachable: disallow all, retried soon.
TEST(Rfc9309_2_3_1_4, UnreachableDisallowsAll) {
  RunCases(RobotsPolicy(),
           {
               {"500", Status(500), RobotsAction::kDisallowAll, kRetry},
               {"503", Status(503), RobotsAction::kDisallowAll, kRetry},
               {"599", Status(599), RobotsAction::kDisallowAll, kRetry},
               {"network error", NetworkError(), RobotsAction::kDisallowAll, kRetry},
               {"1xx as final status", Status(100), RobotsAction::kDisallowAll, kRetry},
               {"nonsense status 0", Status(0), RobotsAction::kDisallowAll, kRetry},
               {"nonsense status 600", Status(600), RobotsAction::kDisallowAll, kRetry},
               {"304 we did not ask for", Status(304), RobotsAction::kDisallowAll, kRetry},
           });
}

// §2.3.1.4 / §2.4: after a long unreachable period, the last known rules, or (after 30 days,
// without them) allow all.
TEST(Rfc9309_2_3_1_4, LongUnreachablePeriods) {
  auto unreachable = [](std::optional<int> status, absl::Duration for_how_long, bool last_known) {
    RobotsFetchOutcome o;
    o.http_status = status;
    o.unreachable_for = for_how_long;
    o.has_last_known_rules = last_known;
    return o;
  };
  RunCases(
      RobotsPolicy(),
      {
          {"first failure, rules known", unreachable(503, absl::ZeroDuration(), true),
           RobotsAction::kDisallowAll, kRetry},
          {"11h, rules known", unreachable(503, absl::Hours(11), true),
           RobotsAction::kDisallowAll, kRetry},
          {"12h, rules known", unreachable(503, absl::Hours(12), true),
           RobotsAction::kKeepLastKnown, kRetry},
          {"60 days, rules known", unreachable(std::nullopt, absl::Hours(24 * 60), true),
           RobotsAction::kKeepLastKnown, kRetry},
          {"12h, nothing known", unreachable(503, absl::Hours(12), false),
           RobotsAction::kDisallowAll, kRetry},
          {"29 days, nothing known", unreachable(std::nullopt, absl::Hours(24 * 29), false),
           RobotsAction::kDisallowAll, kRetry},
          {"30 days, nothing known", unreachable(500, absl::Hours(24 * 30), false),
           RobotsAction::kAllowAll, kRetry},
      });

  RobotsPolicyOptions strict;
  strict.unreachable_allow_all_after = absl::InfiniteDuration();
  strict.unreachable_disallow_for = absl::InfiniteDuration();
  RunCases(RobotsPolicy(strict),
           {
               {"strict: a year, rules known", unreachable(503, absl::Hours(24 * 365), true),
                RobotsAction::kDisallowAll, kRetry},
               {"strict: a year, nothing known", unreachable(503, absl::Hours(24 * 365), false),
                RobotsAction::kDisallowAll, kRetry},
           });
}

// §2.4: max-age is honoured within [min, 24 h]; never more than 24 h.
TEST(Rfc9309_2_4, CacheLifetime) {
  auto with_max_age = [](int status, absl::Duration max_age) {
    RobotsFetchOutcome o = Status(status);
    o.max_age = max_age;
    return o;
  };
  RobotsFetchOutcome not_modified = with_max_age(304, absl::Hours(3));
  not_modified.has_last_known_rules = true;
  RobotsFetchOutcome not_modified_plain = Status(304);
  not_modified_plain.has_last_known_rules = true;
  RobotsFetchOutcome error_with_max_age = with_max_age(503, absl::Hours(5));
  RunCases(RobotsPolicy(),
           {
               {"no max-age", Status(200), RobotsAction::kParseBody, k24h},
               {"max-age 2h", with_max_age(200, absl::Hours(2)), RobotsAction::kParseBody,
                absl::Hours(2)},
               {"max-age 0 raised to the minimum", with_max_age(200, absl::ZeroDuration()),
                RobotsAction::kParseBody, absl::Hours(1)},
               {"max-age a week clamped to 24h", with_max_age(200, absl::Hours(24 * 7)),
                RobotsAction::kParseBody, k24h},
               {"max-age on a 404", with_max_age(404, absl::Hours(6)), RobotsAction::kAllowAll,
                absl::Hours(6)},
               {"304 refreshes the last known rules", not_modified, RobotsAction::kKeepLastKnown,
                absl::Hours(3)},
               {"304 without max-age", not_modified_plain, RobotsAction::kKeepLastKnown, k24h},
               {"max-age does not stretch an error's retry", error_with_max_age,
                RobotsAction::kDisallowAll, kRetry},
           });
}

TEST(Rfc9309_2_4, OptionsAreClamped) {
  RobotsPolicyOptions o;
  o.max_cache_lifetime = absl::Hours(48);
  o.min_cache_lifetime = absl::Hours(30);
  o.unreachable_retry_after = absl::Seconds(1);
  o.unreachable_disallow_for = -absl::Hours(1);
  o.unreachable_allow_all_after = -absl::Hours(2);
  const RobotsPolicyOptions clamped = RobotsPolicy(o).options();
  EXPECT_EQ(clamped.max_cache_lifetime, k24h);
  EXPECT_EQ(clamped.min_cache_lifetime, k24h);
  EXPECT_EQ(clamped.unreachable_retry_after, absl::Minutes(1));
  EXPECT_EQ(clamped.unreachable_disallow_for, absl::ZeroDuration());
  EXPECT_EQ(clamped.unreachable_allow_all_after, absl::ZeroDuration());

  o = RobotsPolicyOptions();
  o.max_cache_lifetime = absl::ZeroDuration();
  o.unreachable_retry_after = absl::Hours(100);
  const RobotsPolicyOptions clamped2 = RobotsPolicy(o).options();
  EXPECT_EQ(clamped2.max_cache_lifetime, k24h);
  EXPECT_EQ(clamped2.unreachable_retry_after, k24h);

  o = RobotsPolicyOptions();
  o.max_cache_lifetime = absl::Hours(6);
  RobotsFetchOutcome long_max_age = Status(200);
  long_max_age.max_age = absl::Hours(12);
  EXPECT_EQ(RobotsPolicy(o).Decide(long_max_age).cache_lifetime, absl::Hours(6));
}

TEST(RobotsPolicy, ActionNames) {
  EXPECT_EQ(RobotsActionName(RobotsAction::kParseBody), "parse-body");
  EXPECT_EQ(RobotsActionName(RobotsAction::kFollowRedirect), "follow-redirect");
  EXPECT_EQ(RobotsActionName(RobotsAction::kAllowAll), "allow-all");
  EXPECT_EQ(RobotsActionName(RobotsAction::kDisallowAll), "disallow-all");
  EXPECT_EQ(RobotsActionName(RobotsAction::kKeepLastKnown), "keep-last-known");
}

}  // namespace
}  // namespace crawler::robots
