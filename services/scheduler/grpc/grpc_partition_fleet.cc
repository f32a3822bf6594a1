#include "services/scheduler/grpc/grpc_partition_fleet.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/frontier/collection_settings.h"
#include "services/frontier/grpc/grpc_frontier_client.h"

namespace crawler::scheduler {
GrpcPartitionFleet::GrpcPartitionFleet(std::vector<std::shared_ptr<grpc::Channel>> channels,
                                       absl::Duration deadline, absl::Duration lease_refill)
    : channels_(std::move(channels)), deadline_(deadline), lease_refill_(lease_refill) {}

GrpcPartitionFleet::~GrpcPartitionFleet() = default;

absl::StatusOr<std::unique_ptr<PartitionFleet>> GrpcPartitionFleet::Create(
    const std::vector<std::string>& targets, const grpc_common::ChannelOptions& channel,
    absl::Duration deadline, absl::Duration lease_refill) {
  if (targets.empty()) return absl::InvalidArgumentError("no frontier partition");
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (const std::string& target : targets) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> c = grpc_common::MakeChannel(target, channel);
    if (!c.ok()) return c.status();
    channels.push_back(*std::move(c));
  }
  return std::unique_ptr<PartitionFleet>(
      new GrpcPartitionFleet(std::move(channels), deadline, lease_refill));
}

frontier::FrontierClient& GrpcPartitionFleet::Partition(uint32_t k,
                                                        const std::string& collection) {
  return Client(k, collection);
}

frontier::HostControlClient& GrpcPartitionFleet::HostControl(uint32_t k,
                                                             const std::string& collection) {
  return Client(k, collection);
}

frontier::GrpcFrontierClient& GrpcPartitionFleet::Client(uint32_t k,
                                                         const std::string& collection) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<frontier::GrpcFrontierClient>& client = clients_[{k, collection}];
  if (client == nullptr) {
    client = std::make_unique<frontier::GrpcFrontierClient>(
        channels_.at(k), collection, frontier::GrpcFrontierClientOptions{.deadline = deadline_});
  }
  return *client;
}

absl::Status GrpcPartitionFleet::Open(uint32_t k, const collections::Collection& collection,
                                      std::optional<uint64_t> max_pages, uint64_t generation) {
  frontier::FrontierControlClient control(
      channels_.at(k), frontier::GrpcFrontierClientOptions{.deadline = deadline_});
  frontier::CollectionSettings settings =
      frontier::SettingsFor(collection, k, size(), lease_refill_, max_pages);
  settings.generation = generation;
  return control.OpenCollection(settings, size()).status();
}

absl::Status GrpcPartitionFleet::Drop(uint32_t k, const std::string& name) {
  frontier::FrontierControlClient control(
      channels_.at(k), frontier::GrpcFrontierClientOptions{.deadline = deadline_});
  return control.DropCollection(name).status();
}

}  // namespace crawler::scheduler
