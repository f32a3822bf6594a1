// GrpcPartitionFleet: the frontier partitions over gRPC, partition k at targets[k] (one channel
// each, shared by every collection's client). Open sends partition k its FrontierCollection:
// the collection's page limits shared out over the N partitions, its re-visit options, its
// depth limit and the URLs of a host on lease at once (services/collections/shares.h).
//
// Thread-safety: thread-safe.
#ifndef CRAWLER_SERVICES_SCHEDULER_GRPC_GRPC_PARTITION_FLEET_H_
#define CRAWLER_SERVICES_SCHEDULER_GRPC_GRPC_PARTITION_FLEET_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "services/common/grpc/channel.h"
#include "services/frontier/grpc/grpc_frontier_client.h"
#include "services/scheduler/partition_fleet.h"

namespace crawler::scheduler {

class GrpcPartitionFleet final : public PartitionFleet {
 public:
  // kInvalidArgument for no target or a bad one.
  static absl::StatusOr<std::unique_ptr<PartitionFleet>> Create(
      const std::vector<std::string>& targets, const grpc_common::ChannelOptions& channel,
      absl::Duration deadline, absl::Duration lease_refill);
  ~GrpcPartitionFleet() override;

  uint32_t size() const override { return layout().Span(); }
  partition::PartitionLayout layout() const override;
  absl::Status SetLayout(const partition::PartitionLayout& layout) override;
  frontier::FrontierClient& Partition(uint32_t k, const std::string& collection) override;
  frontier::HostControlClient& HostControl(uint32_t k, const std::string& collection) override;
  frontier::HostMoveClient& HostMove(uint32_t k, const std::string& collection) override;
  absl::Status Open(uint32_t k, const collections::Collection& collection,
                    std::optional<uint64_t> max_pages = std::nullopt,
                    uint64_t generation = 0) override;
  absl::Status Drop(uint32_t k, const std::string& name) override;

 private:
  GrpcPartitionFleet(std::vector<std::shared_ptr<grpc::Channel>> channels,
                     absl::Duration deadline, absl::Duration lease_refill);

  const std::vector<std::shared_ptr<grpc::Channel>> channels_;
  const absl::Duration deadline_;
  const absl::Duration lease_refill_;
  mutable absl::Mutex mu_;
  // Starts as every target, one partition each, until SetLayout.
  partition::PartitionLayout layout_ ABSL_GUARDED_BY(mu_);
  // The client of partition k for a collection (created on first use).
  frontier::GrpcFrontierClient& Client(uint32_t k, const std::string& collection);

  std::map<std::pair<uint32_t, std::string>, std::unique_ptr<frontier::GrpcFrontierClient>>
      clients_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_GRPC_GRPC_PARTITION_FLEET_H_
