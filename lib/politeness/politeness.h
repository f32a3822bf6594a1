// Politeness: the claim a fetcher must hold before it sends any request (docs/architecture.md §2.1,
// §5).
//
// A claim names the host key and the IP address the request will go to. It is granted only if
// both the host and the IP are past their next-allowed time and below max_connections_per_host
// requests in flight; granting sets both next-allowed times to now + the host's current delay, in
// one atomic step (in Redis: one script), so that replicas sharing the state can never both be
// granted inside one gap. Release() reports how the request went; the host's delay for the next
// claim is recomputed from it (DelayPolicy) and its next-allowed time pushed out accordingly.
//
// Claims and releases also come in batches (Exchange: releases, then claims): a store in another
// process answers a whole batch in one round trip, so a fetcher with many hosts due at once, and
// the transfers that ended since its last batch, pays one.
//
// Implementations: InProcessPoliteness (standalone crawl; this library) and RedisPoliteness
// (shared by processes; services/common/redis). Both must be safe to call from any thread.
#ifndef CRAWLER_LIB_POLITENESS_POLITENESS_H_
#define CRAWLER_LIB_POLITENESS_POLITENESS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler::politeness {

struct ClaimRequest {
  std::string host_key;  // url::HostKey of the request's URL
  std::string ip;        // the address the connection will use; empty if not resolved yet
  // robots.txt Crawl-delay for this host, if known (the claim caps it).
  std::optional<absl::Duration> crawl_delay;
  // The operator's delay for this host (host control): the gap between request starts is at
  // least this, above every cap of the options. Zero: none.
  absl::Duration host_delay = absl::ZeroDuration();
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

// Counters since construction, for reports and metrics.
struct PolitenessStats {
  uint64_t claims = 0;
  uint64_t granted = 0;
  uint64_t releases = 0;
  uint64_t round_trips = 0;  // to a remote store: batches sent (a batch of claims is one)
  uint64_t unavailable = 0;  // calls refused because the store could not be reached
  uint64_t outages = 0;      // the store went from reachable to unreachable
  // Current state: false while the store is in an outage (always true in process).
  bool store_up = true;
};

struct ReleaseResult {
  // How long from now until the host (and its address) may be claimed again: when to look at
  // the host next, rather than being refused once to learn it.
  absl::Duration wait = absl::ZeroDuration();
};

class Politeness {
 public:
  virtual ~Politeness() = default;

  // Tries to claim one request slot. Unavailable when the shared state cannot be reached: the
  // caller must not send the request (fail closed).
  virtual absl::StatusOr<ClaimResult> Claim(const ClaimRequest& request) = 0;

  // Ends a granted claim. REQUIRES: a granted Claim with the same host_key and ip.
  virtual absl::StatusOr<ReleaseResult> Release(const ReleaseRequest& request) = 0;

  // Releases, then claims, several at once, in order: released[i] answers releases[i] and
  // claimed[i] claims[i]. The default calls Release and Claim for each; a remote store overrides
  // it to pay one round trip per batch.
  struct Exchanged {
    std::vector<absl::StatusOr<ReleaseResult>> released;
    std::vector<absl::StatusOr<ClaimResult>> claimed;
  };
  virtual Exchanged Exchange(std::span<const ReleaseRequest> releases,
                             std::span<const ClaimRequest> claims);
  // Exchange with claims only, or releases only.
  std::vector<absl::StatusOr<ClaimResult>> ClaimAll(std::span<const ClaimRequest> claims) {
    return Exchange({}, claims).claimed;
  }
  std::vector<absl::StatusOr<ReleaseResult>> ReleaseAll(
      std::span<const ReleaseRequest> releases) {
    return Exchange(releases, {}).released;
  }

  // Requests allowed in flight per host (and per address): a caller granted that many need not
  // ask again before one of them ends.
  virtual int MaxConnectionsPerHost() const = 0;

  virtual PolitenessStats Stats() const = 0;
};

}  // namespace crawler::politeness

#endif  // CRAWLER_LIB_POLITENESS_POLITENESS_H_
