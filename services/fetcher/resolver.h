// Name resolution for the fetcher (docs/architecture.md §6 "resolve (cached, honouring TTL
// bounds)").
//
// Resolver is the blocking lookup (getaddrinfo in production, a table in tests). AsyncResolver
// runs lookups on a few threads so the network loop never blocks on DNS, and caches answers:
// getaddrinfo does not report TTLs, so entries live for a fixed `positive_ttl` (failures for
// `negative_ttl`), bounded to `max_entries` hosts, oldest evicted first.
//
// Thread-safety: Resolver implementations must be thread-safe. AsyncResolver's Request/Drain are
// called by the fetcher's loop thread; its workers call the `notify` callback from their threads.
#ifndef CRAWLER_SERVICES_FETCHER_RESOLVER_H_
#define CRAWLER_SERVICES_FETCHER_RESOLVER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/net/ip_address.h"

namespace crawler::fetcher {

// The address an IP-literal host names: "192.0.2.1", or "[2001:db8::1]" as URLs write IPv6
// hosts (also accepted without the brackets). nullopt for a host name, which needs DNS. Literals
// are never looked up: getaddrinfo knows nothing of the brackets, and there is nothing to ask.
std::optional<net::IpAddress> IpLiteralHost(std::string_view host);

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Addresses of `host` (an ASCII host name or IP literal, IPv6 in brackets or not), IPv4
  // first. kNotFound if the name does not exist, kUnavailable for temporary failures.
  virtual absl::StatusOr<std::vector<net::IpAddress>> Resolve(const std::string& host) = 0;
};

// getaddrinfo(3); IP literals are answered without it (IpLiteralHost).
class SystemResolver final : public Resolver {
 public:
  absl::StatusOr<std::vector<net::IpAddress>> Resolve(const std::string& host) override;
};

struct AsyncResolverOptions {
  int threads = 4;  // concurrent lookups; each blocks in getaddrinfo
  absl::Duration positive_ttl = absl::Minutes(10);
  absl::Duration negative_ttl = absl::Minutes(1);
  size_t max_entries = 100'000;
};

class AsyncResolver {
 public:
  struct Result {
    std::string host;
    absl::StatusOr<std::vector<net::IpAddress>> addresses;
  };

  // `resolver` and `clock` must outlive this object. `notify` is called (from a worker thread)
  // after a result becomes available.
  AsyncResolver(const AsyncResolverOptions& options, Resolver& resolver, const Clock& clock,
                std::function<void()> notify);
  ~AsyncResolver();

  // A cached answer, if fresh; an IP-literal host's address at once (IpLiteralHost).
  std::optional<absl::StatusOr<std::vector<net::IpAddress>>> Cached(const std::string& host);
  // Starts a lookup unless one for `host` is under way. Its result arrives through Drain().
  void Request(const std::string& host);
  // Results finished since the last call.
  std::vector<Result> Drain();

 private:
  struct Entry {
    absl::StatusOr<std::vector<net::IpAddress>> addresses;
    absl::Time expires;
    uint64_t generation = 0;  // matches the newest cache_order_ element of this host
  };
  void Work();

  const AsyncResolverOptions options_;
  Resolver& resolver_;
  const Clock& clock_;
  const std::function<void()> notify_;

  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<std::string> pending_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, bool> in_progress_ ABSL_GUARDED_BY(mu_);
  std::vector<Result> done_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Entry> cache_ ABSL_GUARDED_BY(mu_);
  // (host, generation) in the order entries were stored or refreshed; elements whose generation
  // is not the entry's current one are stale and skipped.
  std::deque<std::pair<std::string, uint64_t>> cache_order_ ABSL_GUARDED_BY(mu_);
  uint64_t next_generation_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_RESOLVER_H_
