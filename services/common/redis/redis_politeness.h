// RedisPoliteness: the Politeness of processes that share hosts (distributed fetchers, several
// standalone crawls), its state in one Redis server (docs/architecture.md §5). Every claim and
// release is one Lua script run with EVALSHA, atomic in Redis; times come from Redis's clock (TIME
// inside the script), so processes with skewed clocks agree. Delays come from the same DelayPolicy
// as InProcessPoliteness: this process computes them and the script only applies them.
//
// Keys (the prefix is configurable, default "crawler:politeness:"); host keys and addresses
// only, never URLs:
//   <prefix>epoch        when this Redis first saw a claim (µs, Redis time); never expires
//   <prefix>h:<host key> hash: n = next allowed start (µs), s = spacing between request
//                        starts (µs, from the last response time), f = consecutive failures,
//                        and "@<token>" = expiry (µs) of each connection slot claimed
//   <prefix>i:<address>  hash: n = next allowed start of the IP address, and its slots
// A hash expires `idle_ttl` after its next-allowed time and its slots' expiry. A slot expires on
// its own after `slot_ttl` (a fetcher that died mid-request cannot hold a host): a claim drops
// the expired slots it finds. Tokens are this process's random id and a counter.
//
// Failure behaviour (fail closed): when Redis cannot be reached, claims return kUnavailable and
// the caller sends nothing. The first failure is logged once; later calls fail fast without
// touching the network until a back-off (100 ms doubling to 5 s) has passed, then one attempt
// reconnects; recovery is logged once. An error reply (a Redis still loading, out of memory, a
// read-only replica) fails its whole batch the same way; slots the batch's other claims took
// meanwhile expire after `slot_ttl`.
//
// A Redis that comes back empty (restarted without persistence, or flushed) must not let hosts
// be contacted early. Two rules cover it:
//  - each process remembers the next-allowed times it learnt or set (a "floor" per host and
//    address, kept while in the future) and sends them with every claim; the script raises the
//    stored time to the floor, writing it back;
//  - for `fresh_grace` after the epoch key was created, a host or address unknown to Redis is
//    not granted at once: its next-allowed time is set one spacing delay ahead (it waits its
//    delay once). Hosts last contacted by other processes are then protected too.
//
// Thread-safety: all methods are thread-safe; each call takes a connection from a small pool,
// so concurrent callers do not queue behind one another's round trips.
#ifndef CRAWLER_SERVICES_COMMON_REDIS_REDIS_POLITENESS_H_
#define CRAWLER_SERVICES_COMMON_REDIS_REDIS_POLITENESS_H_

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "lib/politeness/delay_policy.h"
#include "lib/politeness/politeness.h"
#include "lib/politeness/politeness_options.h"
#include "services/common/redis/redis_client.h"

namespace crawler::redis {

struct RedisPolitenessOptions {
  RedisOptions redis;
  std::string key_prefix = "crawler:politeness:";
  // How long a claimed connection slot lives without its release: the longest a request can
  // take (the fetcher's total timeout) plus a margin.
  absl::Duration slot_ttl = absl::Seconds(90);
  // A host's or address's hash expires this long after its next-allowed time (an idle host
  // starts again from its base delay, as InProcessPoliteness::Forget).
  absl::Duration idle_ttl = absl::Hours(1);
  // How long after Redis starts empty an unknown host waits its delay once; 0 turns the rule
  // off. Default: the politeness max_delay, the longest ordinary gap between two requests.
  absl::Duration fresh_grace = absl::Seconds(60);
  // Connections kept open for reuse.
  int max_idle_connections = 4;
  // Where an outage and the recovery are said (once each).
  Logger log;
};

class RedisPoliteness final : public politeness::Politeness {
 public:
  // Connects once to check the address and password (kUnavailable / kPermissionDenied), and
  // loads the scripts. REQUIRES: policy.Validate().ok(); `clock` outlives this object.
  static absl::StatusOr<std::unique_ptr<RedisPoliteness>> Create(
      const RedisPolitenessOptions& options, const politeness::PolitenessOptions& policy,
      const Clock& clock, uint64_t seed);
  ~RedisPoliteness() override;

  absl::StatusOr<politeness::ClaimResult> Claim(const politeness::ClaimRequest& request) override;
  absl::StatusOr<politeness::ReleaseResult> Release(
      const politeness::ReleaseRequest& request) override;
  // One pipeline: every release, then every claim.
  Exchanged Exchange(std::span<const politeness::ReleaseRequest> releases,
                     std::span<const politeness::ClaimRequest> claims) override;
  int MaxConnectionsPerHost() const override {
    return policy_.options().max_connections_per_host;
  }

  politeness::PolitenessStats Stats() const override;

 private:
  struct Held;  // a granted claim not yet released
  struct Pending;  // the commands of one Exchange, and what their replies are for
  RedisPoliteness(const RedisPolitenessOptions& options,
                  const politeness::PolitenessOptions& policy, const Clock& clock, uint64_t seed);

  // Runs the scripts (EVALSHA of each command's script) in one pipeline, reloading the scripts
  // once on NOSCRIPT. kUnavailable when Redis cannot be reached (then logged once per outage).
  absl::StatusOr<std::vector<Reply>> Run(std::vector<std::vector<std::string>> commands);
  // A pooled or new connection; `fail_fast` is set when refused without trying (in an outage,
  // before its next retry).
  absl::StatusOr<std::unique_ptr<RedisConnection>> Acquire(bool& fail_fast);
  // Loads both scripts on `connection`; returns their SHA-1s (claim, release).
  absl::StatusOr<std::pair<std::string, std::string>> LoadScripts(
      RedisConnection& connection) const;
  void Recycle(std::unique_ptr<RedisConnection> connection);
  absl::Status Failed(const absl::Status& cause);

  // Adds the release / claim commands of an Exchange (results of requests that need no command,
  // e.g. a release without a claim, are filled in at once).
  void AddReleases(std::span<const politeness::ReleaseRequest> releases, Pending& pending,
                   Exchanged& out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddClaims(std::span<const politeness::ClaimRequest> claims, Pending& pending)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::string> Keys(const std::string& host_key, const std::string& ip) const;
  // Redis time (µs) estimated from this process's clock and the last reply.
  int64_t EstimatedRedisNow() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void LearnRedisNow(int64_t redis_now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int64_t Floor(const absl::flat_hash_map<std::string, int64_t>& floors, const std::string& key)
      const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Remember(absl::flat_hash_map<std::string, int64_t>& floors, const std::string& key,
                int64_t next) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const RedisPolitenessOptions options_;
  const politeness::DelayPolicy policy_;
  const Clock& clock_;
  const std::string instance_;  // makes claim tokens unique across processes
  std::string claim_sha_;  // set by Create, then constant
  std::string release_sha_;

  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<RedisConnection>> idle_ ABSL_GUARDED_BY(mu_);
  // Outage state: calls before retry_at fail fast.
  bool down_ ABSL_GUARDED_BY(mu_) = false;
  absl::Duration down_since_ ABSL_GUARDED_BY(mu_);
  absl::Duration retry_at_ ABSL_GUARDED_BY(mu_);
  absl::Duration retry_wait_ ABSL_GUARDED_BY(mu_);
  // Redis time minus this process's monotonic time, µs, from the last reply.
  int64_t redis_offset_ ABSL_GUARDED_BY(mu_) = 0;
  bool offset_known_ ABSL_GUARDED_BY(mu_) = false;
  // Claims granted and not released, by host key: (token, address, crawl delay).
  absl::flat_hash_map<std::string, std::vector<Held>> held_ ABSL_GUARDED_BY(mu_);
  // The floors: next-allowed times (µs, Redis time) this process learnt, while in the future.
  absl::flat_hash_map<std::string, int64_t> host_floors_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, int64_t> ip_floors_ ABSL_GUARDED_BY(mu_);
  uint64_t next_token_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t calls_since_prune_ ABSL_GUARDED_BY(mu_) = 0;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
  politeness::PolitenessStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::redis

#endif  // CRAWLER_SERVICES_COMMON_REDIS_REDIS_POLITENESS_H_
