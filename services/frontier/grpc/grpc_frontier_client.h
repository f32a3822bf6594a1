// GrpcFrontierClient: a FrontierClient (frontier_client.h), HostControlClient
// (host_control_client.h) and HostMoveClient (host_move_client.h) for one collection on one
// frontier server, over crawler.v1.Frontier. Each method is one RPC (LookupUrls: one per kMaxLookupUrls
// URLs) with a deadline of its own; statuses come back through grpc_common::FromGrpcStatus, so
// a server that is down or unreachable answers kUnavailable, one too slow kDeadlineExceeded:
// both retryable for the fetcher's FrontierLink and RetryCall. IsExhausted is GetStats' flag.
// Across partitions, wrap one client per partition in a RoutedFrontierClient.
//
// FrontierControlClient: the scheduler's side of the same service: it opens (or re-opens with
// new settings) and drops collections on a partition.
//
// Thread-safety: thread-safe (a grpc::Channel and stub are). The channel is shared: open it
// with grpc_common::MakeChannel (services/common/grpc/channel.h).
#ifndef CRAWLER_SERVICES_FRONTIER_GRPC_GRPC_FRONTIER_CLIENT_H_
#define CRAWLER_SERVICES_FRONTIER_GRPC_GRPC_FRONTIER_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/v1/frontier.grpc.pb.h"
#include "grpcpp/channel.h"
#include "lib/partition/layout.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/frontier_client.h"
#include "services/frontier/host_control_client.h"
#include "services/frontier/host_move_client.h"

namespace crawler::frontier {

struct GrpcFrontierClientOptions {
  // Deadline of each call. Long enough for a large batch on a loaded server (a Complete of 512
  // outcomes is one RocksDB write); short enough that a hung server is treated as down soon.
  absl::Duration deadline = absl::Seconds(10);
};

class GrpcFrontierClient final : public FrontierClient,
                                 public HostControlClient,
                                 public HostMoveClient {
 public:
  // Calls go to `collection` on the server behind `channel` (not null). With a `generation`
  // (FrontierCollection.generation; 0: none), a fetcher's calls (AddUrls, Lease, Complete,
  // ReleaseLeases, ReportHostTimes, Stats) are for that generation only: once the collection
  // was deleted, or deleted and created again, they fail with kFailedPrecondition instead of
  // landing in the new one.
  GrpcFrontierClient(std::shared_ptr<grpc::Channel> channel, std::string collection,
                     const GrpcFrontierClientOptions& options = {}, uint64_t generation = 0);

  absl::StatusOr<AddResult> AddUrls(const std::vector<UrlToAdd>& urls) override;
  absl::StatusOr<std::vector<LeasedTask>> Lease(size_t max_urls, size_t max_per_host) override;
  absl::StatusOr<CompleteResult> Complete(const std::vector<FetchOutcome>& outcomes) override;
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<LeaseId>& lease_ids) override;
  absl::StatusOr<FetcherControlTable> HostControls(uint64_t known_version) override;
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<HostTime>& times) override;
  absl::StatusOr<bool> IsExhausted() override;
  absl::StatusOr<FrontierStats> Stats() override;
  absl::StatusOr<std::vector<std::optional<UrlRecord>>> LookupUrls(
      const std::vector<std::string>& canonical_urls) override;
  absl::StatusOr<RevisitStatus> GetRevisitStatus() override;
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override;

  // Host control (HostControlClient), for the scheduler's Admin calls.
  absl::StatusOr<ListHostsResult> ListHosts(const ListHostsRequest& request) override;
  absl::StatusOr<HostDetail> GetHost(const std::string& host_key) override;
  absl::StatusOr<HostChangeResult> ControlHost(const std::string& host_key,
                                               const HostControlChange& change) override;
  absl::StatusOr<HostChangeResult> DropHostQueue(const std::string& host_key) override;
  absl::StatusOr<ListHostUrlsResult> ListHostUrls(const ListHostUrlsRequest& request) override;

  // A reshard's moves (HostMoveClient), for the scheduler.
  absl::StatusOr<HostsToMove> ListHostsToMove(uint64_t after, size_t max_hosts) override;
  absl::StatusOr<uint32_t> BeginHostMove(const std::string& host_key) override;
  absl::StatusOr<HostChunk> ExportHost(const std::string& host_key, const std::string& after,
                                       size_t max_urls) override;
  absl::Status ImportHost(const HostChunk& chunk) override;
  absl::StatusOr<uint64_t> ForgetHost(const std::string& host_key) override;
  absl::StatusOr<HeldUrls> ListHeldUrls(uint64_t after, size_t max_urls) override;
  absl::Status DeleteHeldUrls(const std::vector<uint64_t>& seqs) override;

  const std::string& collection() const { return collection_; }

 private:
  // `request` for this client's generation.
  template <typename Request>
  Request Stamped(Request request) const {
    request.set_generation(generation_);
    return request;
  }

  const GrpcFrontierClientOptions options_;
  const std::string collection_;
  const uint64_t generation_;
  const std::unique_ptr<v1::Frontier::Stub> stub_;
};

class FrontierControlClient {
 public:
  explicit FrontierControlClient(std::shared_ptr<grpc::Channel> channel,
                                 const GrpcFrontierClientOptions& options = {});

  // Frontier.OpenCollection: true if the partition opened or re-opened the collection (or
  // took a new layout), false if it ran it with these settings already. kFailedPrecondition
  // when the server's partition is outside the layout.
  absl::StatusOr<bool> OpenCollection(const CollectionSettings& collection,
                                      const partition::PartitionLayout& layout);
  absl::StatusOr<bool> OpenCollection(const CollectionSettings& collection,
                                      uint32_t partition_count) {
    return OpenCollection(collection, partition::PartitionLayout{.count = partition_count});
  }
  // Frontier.DropCollection: false if the partition did not hold the collection.
  absl::StatusOr<bool> DropCollection(std::string_view name);

 private:
  const GrpcFrontierClientOptions options_;
  const std::unique_ptr<v1::Frontier::Stub> stub_;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_GRPC_GRPC_FRONTIER_CLIENT_H_
