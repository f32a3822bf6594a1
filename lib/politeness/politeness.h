// Politeness: the claim a fetcher must hold before it sends any request (DESIGN.md §2.1, §5).
//
// A claim names the host key and the IP address the request will go to. It is granted only if
// both the host and the IP are past their next-allowed time and below max_connections_per_host
// requests in flight; granting sets both next-allowed times to now + the host's current delay, in
// one atomic step (in Redis: one script), so that replicas sharing the state can never both be
// granted inside one gap. Release() reports how the request went; the host's delay for the next
// claim is recomputed from it (DelayPolicy) and its next-allowed time pushed out accordingly.
//
// Implementations: InProcessPoliteness (standalone crawl; this library) and a Redis-backed one
// (distributed; services/common/redis). Both must be safe to call from any thread.
#ifndef CRAWLER_LIB_POLITENESS_POLITENESS_H_
#define CRAWLER_LIB_POLITENESS_POLITENESS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler::politeness {

struct ClaimRequest {
  std::string host_key;  // url::HostKey of the request's URL
  std::string ip;        // the address the connection will use; empty if not resolved yet
  // robots.txt Crawl-delay for this host, if known (the claim caps it).
  std::optional<absl::Duration> crawl_delay;
};

struct ClaimResult {
  bool granted = false;
  // When not granted: how long until the claim could succeed (a hint for re-trying; another
  // claimant may win meanwhile). Zero when only the connection limit refused it.
  absl::Duration wait = absl::ZeroDuration();
};

// How the claimed request ended.
struct ReleaseRequest {
  std::string host_key;
  std::string ip;
  absl::Duration response_time = absl::ZeroDuration();
  // Network error or 5xx: counts towards the exponential back-off. Any other outcome resets it.
  bool failed = false;
  // Retry-After of a 429/503 response, already parsed (ParseRetryAfter).
  std::optional<absl::Duration> retry_after;
};

class Politeness {
 public:
  virtual ~Politeness() = default;

  // Tries to claim one request slot. Unavailable when the shared state cannot be reached: the
  // caller must not send the request (fail closed).
  virtual absl::StatusOr<ClaimResult> Claim(const ClaimRequest& request) = 0;

  // Ends a granted claim. REQUIRES: a granted Claim with the same host_key and ip.
  virtual absl::Status Release(const ReleaseRequest& request) = 0;
};

}  // namespace crawler::politeness

#endif  // CRAWLER_LIB_POLITENESS_POLITENESS_H_
