// Frontier's internals shared by the files it is split into (frontier.cc, frontier_lease.cc,
// frontier_complete.cc, frontier_recovery.cc, frontier_requeue.cc, frontier_revisit.cc): the
// per-batch staging of host headers and small helpers. Not part of the frontier's interface;
// include only from those files.
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_INTERNAL_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/btree_map.h"
#include "services/frontier/frontier.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {
namespace internal {

using storage::QueuePos;

// Store batches written while recovering or expiring many leases are cut at this many URLs.
inline constexpr size_t kMaxUrlsPerInternalBatch = 4096;

inline QueuePos Successor(const QueuePos& pos) {
  if (pos.seq == std::numeric_limits<uint64_t>::max()) return pos;
  return QueuePos{pos.band, pos.depth, pos.seq + 1};
}

inline QueuePos PosOf(const UrlRecord& record) {
  return QueuePos{storage::BandOfPriority(record.priority), record.depth, record.seq};
}

inline uint8_t QueueFlagsOf(const UrlRecord& record) {
  return static_cast<uint8_t>(
      (record.last_outcome.has_value() ? storage::kQueueFlagHasHistory : uint8_t{0}) |
      storage::QueueFlagsOfSitemapLevel(record.sitemap_level));
}

inline uint64_t SaturatingSub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace internal

// The host headers one batch changes, held aside until the batch is written so a failed write
// leaves memory untouched. New hosts get the ids after the current last one, in order.
class Frontier::Staging {
 public:
  explicit Staging(const HostTable& hosts) : hosts_(hosts) {}

  HostState& State(uint32_t index) {
    auto [it, inserted] = staged_.try_emplace(index);
    if (inserted) it->second = hosts_.state(index);
    return it->second;
  }

  uint32_t AddHost(std::string_view key) {
    const auto index = static_cast<uint32_t>(hosts_.size() + new_keys_.size());
    new_keys_.emplace_back(key);
    staged_[index] = HostState{};
    return index;
  }

  std::string_view KeyOf(uint32_t index) const {
    return index < hosts_.size() ? hosts_.key(index)
                                 : std::string_view(new_keys_[index - hosts_.size()]);
  }

  const absl::btree_map<uint32_t, HostState>& staged() const { return staged_; }
  const std::vector<std::string>& new_keys() const { return new_keys_; }
  bool empty() const { return staged_.empty(); }

 private:
  const HostTable& hosts_;
  absl::btree_map<uint32_t, HostState> staged_;
  std::vector<std::string> new_keys_;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_INTERNAL_H_
