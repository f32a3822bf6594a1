// PolitenessOptions: how hard the crawler may press one host and one IP address
// (docs/architecture.md §5). Shared by every Politeness implementation (in-process now, Redis
// later) so both compute the same delays. Validate() clamps and checks once, at load time.
#ifndef CRAWLER_LIB_POLITENESS_POLITENESS_OPTIONS_H_
#define CRAWLER_LIB_POLITENESS_POLITENESS_OPTIONS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace crawler::politeness {

struct PolitenessOptions {
  // Lower bound on the gap between two request starts to one host (and to one IP). Heritrix and
  // Nutch both default to a few seconds; 1 s is polite for ordinary sites and keeps small
  // collections moving. Collections crawling their own infrastructure lower it.
  absl::Duration min_delay = absl::Seconds(1);
  // Upper bound on the computed delay (not on Retry-After and error back-off, which have their
  // own caps below): a slow server must not park its host for hours.
  absl::Duration max_delay = absl::Seconds(60);
  // Adaptive part: delay >= delay_factor x the host's last response time, so a server that slows
  // down under load is given proportionally more room (Heritrix's "delay factor"; 0 turns it off).
  double delay_factor = 2.0;
  // robots.txt Crawl-delay is honoured up to this cap; a site asking for a day between requests
  // would otherwise never be crawled. (RFC 9309 does not define Crawl-delay.)
  absl::Duration max_crawl_delay = absl::Seconds(30);
  // Concurrent requests to one host (and to one IP). 1 is the polite default.
  int max_connections_per_host = 1;
  // Exponential back-off after consecutive failures (network errors, 5xx): base x 2^(n-1), capped,
  // with +-jitter_fraction random spread so that hosts failing together do not retry together.
  absl::Duration error_backoff_base = absl::Seconds(5);
  absl::Duration error_backoff_max = absl::Hours(1);
  double jitter_fraction = 0.25;
  // Retry-After on 429/503 blocks the host until then, but never longer than this.
  absl::Duration max_retry_after = absl::Hours(6);

  // Checks ranges; returns InvalidArgument naming the first bad field.
  absl::Status Validate() const;

  friend bool operator==(const PolitenessOptions&, const PolitenessOptions&) = default;
};

}  // namespace crawler::politeness

#endif  // CRAWLER_LIB_POLITENESS_POLITENESS_OPTIONS_H_
