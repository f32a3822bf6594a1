// HostControlClient: one partition's host control (host_api.h; docs/api.md "Host control") as
// the scheduler sees it: the core itself in one process (LocalFrontierClient), a gRPC stub
// across processes (GrpcFrontierClient). The methods are Frontier's of the same names (the
// contract, errors included, is in frontier.h); a remote call adds kUnavailable and
// kDeadlineExceeded. ControlHost and DropHostQueue are safe to repeat: the second call sets the
// same control, or finds nothing left to drop.
//
// Thread-safety: implementations are thread-safe.
#ifndef CRAWLER_SERVICES_FRONTIER_HOST_CONTROL_CLIENT_H_
#define CRAWLER_SERVICES_FRONTIER_HOST_CONTROL_CLIENT_H_

#include <string>

#include "absl/status/statusor.h"
#include "services/frontier/host_api.h"

namespace crawler::frontier {

class HostControlClient {
 public:
  virtual ~HostControlClient() = default;

  virtual absl::StatusOr<ListHostsResult> ListHosts(const ListHostsRequest& request) = 0;
  virtual absl::StatusOr<HostDetail> GetHost(const std::string& host_key) = 0;
  virtual absl::StatusOr<HostChangeResult> ControlHost(const std::string& host_key,
                                                       const HostControlChange& change) = 0;
  virtual absl::StatusOr<HostChangeResult> DropHostQueue(const std::string& host_key) = 0;
  virtual absl::StatusOr<ListHostUrlsResult> ListHostUrls(const ListHostUrlsRequest& request) = 0;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_HOST_CONTROL_CLIENT_H_
