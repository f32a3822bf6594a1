// HostMoveClient: the calls that move a collection's hosts off one partition during a reshard
// (Frontier::ListHostsToMove ... DeleteHeldUrls, docs/architecture.md §4), as the mover (the
// scheduler) makes them on each partition. Over gRPC: GrpcFrontierClient; in process:
// LocalFrontierClient.
//
// Thread-safety: implementations are thread-safe.
#ifndef CRAWLER_SERVICES_FRONTIER_HOST_MOVE_CLIENT_H_
#define CRAWLER_SERVICES_FRONTIER_HOST_MOVE_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/frontier/host_transfer.h"

namespace crawler::frontier {

class HostMoveClient {
 public:
  virtual ~HostMoveClient() = default;

  virtual absl::StatusOr<HostsToMove> ListHostsToMove(uint64_t after, size_t max_hosts) = 0;
  // Returns the host's URLs still on lease.
  virtual absl::StatusOr<uint32_t> BeginHostMove(const std::string& host_key) = 0;
  virtual absl::StatusOr<HostChunk> ExportHost(const std::string& host_key,
                                               const std::string& after, size_t max_urls) = 0;
  // kAlreadyExists: the last chunk found the host here (a move done before).
  virtual absl::Status ImportHost(const HostChunk& chunk) = 0;
  // Returns the URLs deleted.
  virtual absl::StatusOr<uint64_t> ForgetHost(const std::string& host_key) = 0;
  virtual absl::StatusOr<HeldUrls> ListHeldUrls(uint64_t after, size_t max_urls) = 0;
  virtual absl::Status DeleteHeldUrls(const std::vector<uint64_t>& seqs) = 0;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_HOST_MOVE_CLIENT_H_
