// LeaseTable: the URLs a Frontier has out on lease, found three ways: by lease id (Complete,
// ReleaseLeases), by deadline (lease expiry) and by queue slot (a leased URL keeps its queue
// entry until its completion, and a scan of its host's queue must pass over it). Memory grows
// with the URLs on lease, at most hosts x max_in_flight_per_host.
//
// Thread-safety: not thread-safe; the Frontier's mutex guards it.
#ifndef CRAWLER_SERVICES_FRONTIER_LEASE_TABLE_H_
#define CRAWLER_SERVICES_FRONTIER_LEASE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/storage_format.h"

namespace crawler::frontier {

class LeaseTable {
 public:
  struct Lease {
    uint32_t host = 0;
    storage::QueuePos pos;  // of its queue entry, which stays until the completion
    std::string url;
    absl::Duration monotonic_deadline;
    // A lease mark is stored for it (storage_format.h, frontier.leases version 2): the batch
    // that ends the lease deletes it.
    bool marked = false;
  };

  size_t size() const { return leases_.size(); }
  // The lease `id`, or null if it is not out.
  const Lease* Find(LeaseId id) const;
  bool Contains(LeaseId id) const { return leases_.contains(id); }
  // True if the queue entry at (host, pos) is out on lease.
  bool IsLeased(uint32_t host, const storage::QueuePos& pos) const {
    return slots_.contains(SlotOf(host, pos));
  }

  // REQUIRES: `id` is not out.
  void Add(LeaseId id, Lease lease);
  // Ends lease `id`. REQUIRES: it is out.
  void Remove(LeaseId id);

  // The leases of host `host`, by id (a scan of every lease: for operator calls only).
  std::vector<LeaseId> OfHost(uint32_t host) const;

  // Up to `max` leases whose deadline is at or before `monotonic_now`, earliest first.
  std::vector<LeaseId> Expired(absl::Duration monotonic_now, size_t max) const;

 private:
  // A queue entry's identity: host id, then the QueuePos fields.
  using Slot = std::tuple<uint32_t, uint8_t, uint32_t, uint64_t>;
  static Slot SlotOf(uint32_t host, const storage::QueuePos& pos) {
    return {host, pos.band, pos.depth, pos.seq};
  }

  absl::flat_hash_map<LeaseId, Lease> leases_;
  absl::btree_set<std::pair<absl::Duration, LeaseId>> deadlines_;
  absl::flat_hash_set<Slot> slots_;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_LEASE_TABLE_H_
