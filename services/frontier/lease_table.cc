#include "services/frontier/lease_table.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace crawler::frontier {

const LeaseTable::Lease* LeaseTable::Find(LeaseId id) const {
  auto it = leases_.find(id);
  return it == leases_.end() ? nullptr : &it->second;
}

void LeaseTable::Add(LeaseId id, Lease lease) {
  slots_.insert(SlotOf(lease.host, lease.pos));
  deadlines_.insert({lease.monotonic_deadline, id});
  leases_.emplace(id, std::move(lease));
}

void LeaseTable::Remove(LeaseId id) {
  auto it = leases_.find(id);
  deadlines_.erase({it->second.monotonic_deadline, id});
  slots_.erase(SlotOf(it->second.host, it->second.pos));
  leases_.erase(it);
}

std::vector<LeaseId> LeaseTable::OfHost(uint32_t host) const {
  std::vector<LeaseId> ids;
  for (const auto& [id, lease] : leases_) {
    if (lease.host == host) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<LeaseId> LeaseTable::Expired(absl::Duration monotonic_now, size_t max) const {
  std::vector<LeaseId> expired;
  for (auto it = deadlines_.begin();
       it != deadlines_.end() && it->first <= monotonic_now && expired.size() < max; ++it) {
    expired.push_back(it->second);
  }
  return expired;
}

}  // namespace crawler::frontier
