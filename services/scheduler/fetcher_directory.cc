#include "services/scheduler/fetcher_directory.h"

#include <algorithm>
#include <tuple>

namespace crawler::scheduler {

void FetcherDirectory::Note(const std::string& id, uint32_t partition, const std::string& address) {
  if (address.empty()) return;
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  for (auto it = by_id_.begin(); it != by_id_.end();) {
    const bool stale = now - it->second.last_report > ttl_;
    if (it->first != id && (it->second.address == address || stale)) {
      it = by_id_.erase(it);
    } else {
      ++it;
    }
  }
  by_id_[id] =
      KnownFetcher{.id = id, .partition = partition, .address = address, .last_report = now};
}

std::vector<KnownFetcher> FetcherDirectory::Live() const {
  const absl::Time now = clock_.Now();
  std::vector<KnownFetcher> live;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, fetcher] : by_id_) {
    if (now - fetcher.last_report <= ttl_) live.push_back(fetcher);
  }
  std::sort(live.begin(), live.end(), [](const KnownFetcher& a, const KnownFetcher& b) {
    return std::tie(a.partition, a.id) < std::tie(b.partition, b.id);
  });
  return live;
}

std::optional<KnownFetcher> FetcherDirectory::Find(const std::string& id) const {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end() || now - it->second.last_report > ttl_) return std::nullopt;
  return it->second;
}

std::string FetcherAddress(std::string_view reported, std::string_view peer) {
  if (reported.empty()) return "";
  if (reported.front() != ':') return std::string(reported);
  // The peer's host: after "ipv4:" / "ipv6:", up to the last ':' (its port).
  const size_t scheme = peer.find(':');
  const size_t port = peer.rfind(':');
  if (scheme == std::string_view::npos || port == scheme) return "";
  const std::string_view kind = peer.substr(0, scheme);
  if (kind != "ipv4" && kind != "ipv6") return "";
  return std::string(peer.substr(scheme + 1, port - scheme - 1)) + std::string(reported);
}

}  // namespace crawler::scheduler
