#include "lib/robots/robots_policy.h"

#include <algorithm>
#include <string_view>

#include "absl/time/time.h"

namespace crawler::robots {
namespace {

constexpr int kMinRedirects = 5;
constexpr int kMaxRedirects = 20;
constexpr absl::Duration kMaxCacheLifetime = absl::Hours(24);
constexpr absl::Duration kMinRetry = absl::Minutes(1);

RobotsPolicyOptions Sanitize(RobotsPolicyOptions o) {
  o.max_redirects = std::clamp(o.max_redirects, kMinRedirects, kMaxRedirects);
  if (o.max_cache_lifetime <= absl::ZeroDuration() || o.max_cache_lifetime > kMaxCacheLifetime) {
    o.max_cache_lifetime = kMaxCacheLifetime;
  }
  o.min_cache_lifetime = std::clamp(o.min_cache_lifetime, absl::ZeroDuration(), o.max_cache_lifetime);
  o.unreachable_retry_after =
      std::clamp(o.unreachable_retry_after, std::min(kMinRetry, o.max_cache_lifetime),
                 o.max_cache_lifetime);
  o.unreachable_disallow_for = std::max(o.unreachable_disallow_for, absl::ZeroDuration());
  o.unreachable_allow_all_after = std::max(o.unreachable_allow_all_after, o.unreachable_disallow_for);
  return o;
}

}  // namespace

std::string_view RobotsActionName(RobotsAction action) {
  switch (action) {
    case RobotsAction::kParseBody:
      return "parse-body";
    case RobotsAction::kFollowRedirect:
      return "follow-redirect";
    case RobotsAction::kAllowAll:
      return "allow-all";
    case RobotsAction::kDisallowAll:
      return "disallow-all";
    case RobotsAction::kKeepLastKnown:
      return "keep-last-known";
  }
  return "unknown";
}

RobotsPolicy::RobotsPolicy(RobotsPolicyOptions options) : options_(Sanitize(options)) {}

absl::Duration RobotsPolicy::Lifetime(const RobotsFetchOutcome& outcome) const {
  if (!outcome.max_age.has_value()) return options_.max_cache_lifetime;
  return std::clamp(*outcome.max_age, options_.min_cache_lifetime, options_.max_cache_lifetime);
}

RobotsDecision RobotsPolicy::Unreachable(const RobotsFetchOutcome& outcome) const {
  RobotsAction action = RobotsAction::kDisallowAll;
  if (outcome.unreachable_for >= options_.unreachable_disallow_for) {
    if (outcome.has_last_known_rules) {
      action = RobotsAction::kKeepLastKnown;
    } else if (outcome.unreachable_for >= options_.unreachable_allow_all_after) {
      action = RobotsAction::kAllowAll;
    }
  }
  return RobotsDecision{action, options_.unreachable_retry_after};
}

RobotsDecision RobotsPolicy::Decide(const RobotsFetchOutcome& outcome) const {
  if (!outcome.http_status.has_value()) return Unreachable(outcome);
  const int status = *outcome.http_status;
  if (status >= 200 && status <= 299) {
    return RobotsDecision{RobotsAction::kParseBody, Lifetime(outcome)};
  }
  if (status == 304) {
    // Only meaningful as the answer to our conditional request; otherwise the server is
    // confused, which is no evidence that the file is absent.
    if (outcome.has_last_known_rules) {
      return RobotsDecision{RobotsAction::kKeepLastKnown, Lifetime(outcome)};
    }
    return Unreachable(outcome);
  }
  if (status >= 300 && status <= 399) {
    if (outcome.has_location && outcome.redirects_followed < options_.max_redirects) {
      return RobotsDecision{RobotsAction::kFollowRedirect, absl::ZeroDuration()};
    }
    return RobotsDecision{RobotsAction::kAllowAll, Lifetime(outcome)};
  }
  if (status >= 400 && status <= 499 && status != 429) {
    return RobotsDecision{RobotsAction::kAllowAll, Lifetime(outcome)};
  }
  // 429, 5xx, and statuses with no defined meaning for a final response (1xx, < 100, >= 600).
  return Unreachable(outcome);
}

}  // namespace crawler::robots
