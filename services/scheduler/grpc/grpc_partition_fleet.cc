#include "services/scheduler/grpc/grpc_partition_fleet.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/frontier/collection_settings.h"
#include "services/frontier/grpc/grpc_frontier_client.h"

namespace crawler::scheduler {
GrpcPartitionFleet::GrpcPartitionFleet(std::vector<std::shared_ptr<grpc::Channel>> channels,
                                       absl::Duration deadline, absl::Duration lease_refill)
    : channels_(std::move(channels)), deadline_(deadline), lease_refill_(lease_refill) {
  layout_.count = static_cast<uint32_t>(channels_.size());
}

partition::PartitionLayout GrpcPartitionFleet::layout() const {
  absl::MutexLock lock(&mu_);
  return layout_;
}

absl::Status GrpcPartitionFleet::SetLayout(const partition::PartitionLayout& layout) {
  if (absl::Status s = partition::ValidateLayout(layout); !s.ok()) return s;
  if (layout.Span() > channels_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "partition layout ", layout.Describe(), " needs ", layout.Span(),
        " frontiers; ", channels_.size(), " are configured (frontiers)"));
  }
  absl::MutexLock lock(&mu_);
  layout_ = layout;
  return absl::OkStatus();
}

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

frontier::HostMoveClient& GrpcPartitionFleet::HostMove(uint32_t k,
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
  const partition::PartitionLayout now = layout();
  frontier::CollectionSettings settings =
      frontier::SettingsFor(collection, k, now.count, lease_refill_, max_pages);
  settings.generation = generation;
  return control.OpenCollection(settings, now).status();
}

absl::Status GrpcPartitionFleet::Drop(uint32_t k, const std::string& name) {
  frontier::FrontierControlClient control(
      channels_.at(k), frontier::GrpcFrontierClientOptions{.deadline = deadline_});
  return control.DropCollection(name).status();
}

}  // namespace crawler::scheduler
