#include "services/scheduler/grpc/grpc_partition_fleet.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/grpc/grpc_frontier_client.h"
#include "services/wiring/collection_options.h"

namespace crawler::scheduler {
namespace {

// Partition k of n's share of `collection`, as its frontier runs it.
frontier::CollectionSettings SettingsFor(const Collection& collection, uint32_t k, uint32_t n,
                                         absl::Duration lease_refill,
                                         std::optional<uint64_t> max_pages) {
  frontier::CollectionSettings settings;
  settings.name = collection.name;
  const uint64_t share = max_pages.value_or(wiring::ShareOf(collection.limits.max_pages, k, n));
  if (share != frontier::FrontierOptions::kUnlimited) settings.max_pages = share;
  if (collection.limits.max_pages_per_host != CollectionLimits::kUnlimited) {
    settings.max_pages_per_host = collection.limits.max_pages_per_host;
  }
  settings.max_in_flight_per_host =
      static_cast<uint32_t>(wiring::LeaseAheadPerHost(collection.politeness, lease_refill));
  settings.max_depth = collection.scope.max_depth;
  settings.revisit = collection.revisit.options;
  settings.focus = collection.focus.FrontierOptions();
  return settings;
}

}  // namespace

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
  absl::MutexLock lock(&mu_);
  std::unique_ptr<frontier::FrontierClient>& client = clients_[{k, collection}];
  if (client == nullptr) {
    client = std::make_unique<frontier::GrpcFrontierClient>(
        channels_.at(k), collection, frontier::GrpcFrontierClientOptions{.deadline = deadline_});
  }
  return *client;
}

absl::Status GrpcPartitionFleet::Open(uint32_t k, const Collection& collection,
                                      std::optional<uint64_t> max_pages, uint64_t generation) {
  frontier::FrontierControlClient control(
      channels_.at(k), frontier::GrpcFrontierClientOptions{.deadline = deadline_});
  frontier::CollectionSettings settings =
      SettingsFor(collection, k, size(), lease_refill_, max_pages);
  settings.generation = generation;
  return control.OpenCollection(settings, size()).status();
}

absl::Status GrpcPartitionFleet::Drop(uint32_t k, const std::string& name) {
  frontier::FrontierControlClient control(
      channels_.at(k), frontier::GrpcFrontierClientOptions{.deadline = deadline_});
  return control.DropCollection(name).status();
}

}  // namespace crawler::scheduler
