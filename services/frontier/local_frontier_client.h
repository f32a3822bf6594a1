// LocalFrontierClient: a FrontierClient (and HostControlClient, HostMoveClient) that calls a
// Frontier core in this process. Its calls
// fail only when the core does (a store error); it adds no buffering, so a call returning OK is
// as durable as the core's own.
//
// Thread-safety: as the Frontier (thread-safe). The Frontier must outlive this object.
#ifndef CRAWLER_SERVICES_FRONTIER_LOCAL_FRONTIER_CLIENT_H_
#define CRAWLER_SERVICES_FRONTIER_LOCAL_FRONTIER_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_client.h"
#include "services/frontier/host_control_client.h"
#include "services/frontier/host_move_client.h"

namespace crawler::frontier {

class LocalFrontierClient final : public FrontierClient,
                                  public HostControlClient,
                                  public HostMoveClient {
 public:
  explicit LocalFrontierClient(Frontier& frontier) : frontier_(frontier) {}

  absl::StatusOr<AddResult> AddUrls(const std::vector<UrlToAdd>& urls) override {
    return frontier_.AddUrls(urls);
  }
  absl::StatusOr<std::vector<LeasedTask>> Lease(size_t max_urls, size_t max_per_host) override {
    return frontier_.Lease(max_urls, max_per_host);
  }
  absl::StatusOr<CompleteResult> Complete(const std::vector<FetchOutcome>& outcomes) override {
    return frontier_.Complete(outcomes);
  }
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<LeaseId>& lease_ids) override {
    return frontier_.ReleaseLeases(lease_ids);
  }
  absl::StatusOr<FetcherControlTable> HostControls(uint64_t known_version) override {
    return frontier_.FetcherControls(known_version);
  }
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<HostTime>& times) override {
    return frontier_.ReportHostTimes(times);
  }
  absl::StatusOr<bool> IsExhausted() override { return frontier_.IsExhausted(); }
  absl::StatusOr<FrontierStats> Stats() override { return frontier_.Stats(); }
  absl::StatusOr<std::vector<std::optional<UrlRecord>>> LookupUrls(
      const std::vector<std::string>& canonical_urls) override;
  absl::StatusOr<RevisitStatus> GetRevisitStatus() override {
    return frontier_.GetRevisitStatus();
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override {
    return frontier_.RetuneRevisits(fleet);
  }

  absl::StatusOr<ListHostsResult> ListHosts(const ListHostsRequest& request) override {
    return frontier_.ListHosts(request);
  }
  absl::StatusOr<HostDetail> GetHost(const std::string& host_key) override {
    return frontier_.GetHost(host_key);
  }
  absl::StatusOr<HostChangeResult> ControlHost(const std::string& host_key,
                                               const HostControlChange& change) override {
    return frontier_.ControlHost(host_key, change);
  }
  absl::StatusOr<HostChangeResult> DropHostQueue(const std::string& host_key) override {
    return frontier_.DropHostQueue(host_key);
  }
  absl::StatusOr<ListHostUrlsResult> ListHostUrls(const ListHostUrlsRequest& request) override {
    return frontier_.ListHostUrls(request);
  }

  absl::StatusOr<HostsToMove> ListHostsToMove(uint64_t after, size_t max_hosts) override {
    return frontier_.ListHostsToMove(after, max_hosts);
  }
  absl::StatusOr<uint32_t> BeginHostMove(const std::string& host_key) override {
    return frontier_.BeginHostMove(host_key);
  }
  absl::StatusOr<HostChunk> ExportHost(const std::string& host_key, const std::string& after,
                                       size_t max_urls) override {
    return frontier_.ExportHost(host_key, after, max_urls);
  }
  absl::Status ImportHost(const HostChunk& chunk) override { return frontier_.ImportHost(chunk); }
  absl::StatusOr<uint64_t> ForgetHost(const std::string& host_key) override {
    return frontier_.ForgetHost(host_key);
  }
  absl::StatusOr<HeldUrls> ListHeldUrls(uint64_t after, size_t max_urls) override {
    return frontier_.ListHeldUrls(after, max_urls);
  }
  absl::Status DeleteHeldUrls(const std::vector<uint64_t>& seqs) override {
    return frontier_.DeleteHeldUrls(seqs);
  }

 private:
  Frontier& frontier_;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_LOCAL_FRONTIER_CLIENT_H_
