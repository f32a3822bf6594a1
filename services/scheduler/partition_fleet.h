// PartitionFleet: the frontier partitions as the scheduler sees them (docs/architecture.md §3): N
// partitions, each reachable for a collection's calls (seeds, statistics, lookups, re-visit
// tuning, host control) and for opening and dropping collections. In the services it is a set of gRPC
// channels (GrpcPartitionFleet, grpc_partition_fleet.h); a unit test may hold cores in memory.
//
// Thread-safety: implementations are thread-safe; the clients Partition() returns live as long
// as the fleet.
#ifndef CRAWLER_SERVICES_SCHEDULER_PARTITION_FLEET_H_
#define CRAWLER_SERVICES_SCHEDULER_PARTITION_FLEET_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "lib/partition/layout.h"
#include "services/collections/collection.h"
#include "services/frontier/frontier_client.h"
#include "services/frontier/host_control_client.h"
#include "services/frontier/host_move_client.h"

namespace crawler::scheduler {

class PartitionFleet {
 public:
  virtual ~PartitionFleet() = default;

  // The partitions reachable now: layout().Span() (N when no reshard is under way).
  virtual uint32_t size() const = 0;

  // How hosts are spread over the partitions (partition::PartitionLayout): Open pushes it to
  // each partition with the collection. SetLayout changes it (the Resharder's steps);
  // kInvalidArgument for a layout beyond the partitions this fleet can reach.
  virtual partition::PartitionLayout layout() const = 0;
  virtual absl::Status SetLayout(const partition::PartitionLayout& layout) = 0;

  // Partition k's client for `collection` (k < size()).
  virtual frontier::FrontierClient& Partition(uint32_t k, const std::string& collection) = 0;
  // Partition k's host control for `collection` (k < size()): the operator's calls on the
  // hosts it owns.
  virtual frontier::HostControlClient& HostControl(uint32_t k, const std::string& collection) = 0;
  // Partition k's reshard calls for `collection` (k < size()).
  virtual frontier::HostMoveClient& HostMove(uint32_t k, const std::string& collection) = 0;

  // Opens `collection` on partition k with its share of the collection's limits, or reopens it
  // if its settings changed. Idempotent. `max_pages`: partition k's page budget (a focused
  // collection's split, FocusBudgetTuner); nullopt: its even share of the collection's.
  // `generation`: which collection of this name (FrontierCollection.generation; 0: unknown).
  virtual absl::Status Open(uint32_t k, const collections::Collection& collection,
                            std::optional<uint64_t> max_pages = std::nullopt,
                            uint64_t generation = 0) = 0;

  // Drops the collection and its data on partition k. Idempotent (OK if it was not there).
  virtual absl::Status Drop(uint32_t k, const std::string& name) = 0;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_PARTITION_FLEET_H_
