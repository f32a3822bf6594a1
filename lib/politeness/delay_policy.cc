#include "lib/politeness/delay_policy.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/http/http_date.h"

namespace crawler::politeness {

absl::Duration DelayPolicy::NextDelay(const HostFeedback& feedback, double jitter_unit) const {
  absl::Duration delay = options_.min_delay;
  if (feedback.crawl_delay.has_value()) {
    delay = std::max(delay, std::min(*feedback.crawl_delay, options_.max_crawl_delay));
  }
  delay = std::max(delay, options_.delay_factor * feedback.last_response_time);
  delay = std::clamp(delay, options_.min_delay, options_.max_delay);
  delay = std::max(delay, feedback.host_delay);

  if (feedback.consecutive_failures > 0) {
    // 2^(n-1), saturating well before overflow: 2^30 x any sane base exceeds every cap.
    const int exponent = std::min(feedback.consecutive_failures - 1, 30);
    absl::Duration backoff = std::min(options_.error_backoff_base * (int64_t{1} << exponent),
                                      options_.error_backoff_max);
    const double spread = 1.0 + options_.jitter_fraction * (2.0 * jitter_unit - 1.0);
    backoff = backoff * spread;
    delay = std::max(delay, backoff);
  }
  if (feedback.retry_after.has_value()) {
    delay = std::max(delay, std::min(*feedback.retry_after, options_.max_retry_after));
  }
  return delay;
}

std::optional<absl::Duration> ParseRetryAfter(std::string_view value, absl::Time now) {
  // Debian's abseil is built with its own string_view type (ABSL_OPTION_USE_STD_STRING_VIEW 0).
  const absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()));
  if (trimmed.empty()) return std::nullopt;
  if (std::all_of(trimmed.begin(), trimmed.end(), absl::ascii_isdigit)) {
    int64_t seconds = 0;
    // Absurdly long digit strings overflow; treat them as "very long", the caller caps it.
    if (!absl::SimpleAtoi(trimmed, &seconds)) return absl::InfiniteDuration();
    return absl::Seconds(seconds);
  }
  // HTTP-date (RFC 9110 §5.6.7).
  const std::optional<absl::Time> when = http::ParseHttpDate(value);
  if (!when.has_value()) return std::nullopt;
  return std::max(*when - now, absl::ZeroDuration());
}

}  // namespace crawler::politeness
