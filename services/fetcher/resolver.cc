#include "services/fetcher/resolver.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler::fetcher {

std::optional<net::IpAddress> IpLiteralHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    absl::StatusOr<net::IpAddress> v6 = net::IpAddress::Parse(host);
    if (v6.ok() && !v6->is_v4()) return *v6;
    return std::nullopt;
  }
  absl::StatusOr<net::IpAddress> address = net::IpAddress::Parse(host);
  if (!address.ok()) return std::nullopt;
  return *address;
}

absl::StatusOr<std::vector<net::IpAddress>> SystemResolver::Resolve(const std::string& host) {
  if (std::optional<net::IpAddress> literal = IpLiteralHost(host)) {
    return std::vector<net::IpAddress>{*literal};
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (rc != 0) {
    const std::string message = absl::StrCat("resolve ", host, ": ", gai_strerror(rc));
    if (rc == EAI_NONAME || rc == EAI_NODATA) return absl::NotFoundError(message);
    return absl::UnavailableError(message);
  }
  std::vector<net::IpAddress> addresses;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    absl::StatusOr<net::IpAddress> a = net::IpAddress::FromSockaddr(ai->ai_addr);
    if (a.ok() && std::find(addresses.begin(), addresses.end(), *a) == addresses.end()) {
      addresses.push_back(*a);
    }
  }
  freeaddrinfo(list);
  // IPv4 first: more hosts answer on it, and per-IP politeness keys are then stable.
  std::stable_partition(addresses.begin(), addresses.end(),
                        [](const net::IpAddress& a) { return a.is_v4(); });
  if (addresses.empty()) return absl::NotFoundError(absl::StrCat("resolve ", host, ": no address"));
  return addresses;
}

AsyncResolver::AsyncResolver(const AsyncResolverOptions& options, Resolver& resolver,
                             const Clock& clock, std::function<void()> notify)
    : options_(options), resolver_(resolver), clock_(clock), notify_(std::move(notify)) {
  for (int i = 0; i < std::max(1, options_.threads); ++i) threads_.emplace_back([this] { Work(); });
}

AsyncResolver::~AsyncResolver() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

std::optional<absl::StatusOr<std::vector<net::IpAddress>>> AsyncResolver::Cached(
    const std::string& host) {
  if (std::optional<net::IpAddress> literal = IpLiteralHost(host)) {
    return std::vector<net::IpAddress>{*literal};
  }
  absl::MutexLock lock(&mu_);
  auto it = cache_.find(host);
  if (it == cache_.end() || it->second.expires <= clock_.Now()) return std::nullopt;
  return it->second.addresses;
}

void AsyncResolver::Request(const std::string& host) {
  absl::MutexLock lock(&mu_);
  if (!in_progress_.emplace(host, true).second) return;
  pending_.push_back(host);
}

std::vector<AsyncResolver::Result> AsyncResolver::Drain() {
  absl::MutexLock lock(&mu_);
  return std::exchange(done_, {});
}

void AsyncResolver::Work() {
  while (true) {
    std::string host;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](AsyncResolver* r)
               ABSL_EXCLUSIVE_LOCKS_REQUIRED(r->mu_) { return r->stop_ || !r->pending_.empty(); },
          this));
      if (stop_) return;
      host = std::move(pending_.front());
      pending_.pop_front();
    }
    absl::StatusOr<std::vector<net::IpAddress>> addresses = resolver_.Resolve(host);
    {
      absl::MutexLock lock(&mu_);
      const absl::Duration ttl = addresses.ok() ? options_.positive_ttl : options_.negative_ttl;
      const uint64_t generation = ++next_generation_;
      cache_.insert_or_assign(host, Entry{addresses, clock_.Now() + ttl, generation});
      cache_order_.emplace_back(host, generation);
      // Least recently stored first; stale order elements (refreshed hosts) are skipped.
      while (cache_.size() > options_.max_entries && !cache_order_.empty()) {
        auto [oldest, oldest_generation] = std::move(cache_order_.front());
        cache_order_.pop_front();
        auto it = cache_.find(oldest);
        if (it != cache_.end() && it->second.generation == oldest_generation) cache_.erase(it);
      }
      // Bound the order queue too: refreshes append without removing.
      if (cache_order_.size() > 2 * options_.max_entries + 16) {
        std::deque<std::pair<std::string, uint64_t>> live;
        for (auto& element : cache_order_) {
          auto it = cache_.find(element.first);
          if (it != cache_.end() && it->second.generation == element.second) {
            live.push_back(std::move(element));
          }
        }
        cache_order_ = std::move(live);
      }
      in_progress_.erase(host);
      done_.push_back(Result{std::move(host), std::move(addresses)});
    }
    if (notify_) notify_();
  }
}

}  // namespace crawler::fetcher
