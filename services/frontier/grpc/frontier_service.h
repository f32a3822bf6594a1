// FrontierService: the crawler.v1.Frontier gRPC handlers of a frontier server, over the
// collections of a FrontierHost (frontier_host.h). Each handler only finds the request's
// collection (NOT_FOUND naming it), decodes the request (frontier_convert.h: INVALID_ARGUMENT
// naming the field), calls the core and encodes the reply; errors cross as
// grpc_common::ToGrpcStatus maps them (a URL of a foreign host stays FAILED_PRECONDITION
// naming its owner partition, a store failure UNAVAILABLE...). No business logic lives here.
//
// Bounds: LookupUrls takes at most kMaxLookupUrls URLs; the other batches are bounded by the
// server's message size limit and the core's own caps (max_urls_per_lease).
//
// Thread-safety: thread-safe (gRPC calls the handlers from many threads). The host must
// outlive the service.
#ifndef CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_SERVICE_H_
#define CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "crawler/v1/frontier.grpc.pb.h"
#include "services/common/grpc/call_auth.h"
#include "services/frontier/grpc/frontier_host.h"

namespace crawler::frontier {

// The roles allowed each Frontier method (callers with a client certificate): fetchers lease,
// complete and hand over outlinks; the scheduler opens, drops and tunes collections and feeds
// seeds; both read statistics.
std::map<std::string, std::set<std::string>, std::less<>> FrontierCallRoles();

class FrontierService final : public v1::Frontier::Service {
 public:
  // `auth` (may be null: no check; must outlive the service): who may call what
  // (grpc_common::CallAuth; FrontierCallRoles()).
  explicit FrontierService(FrontierHost& host, grpc_common::CallAuth* auth = nullptr)
      : host_(host), auth_(auth) {}

  grpc::Status AddUrls(grpc::ServerContext* context, const v1::AddUrlsRequest* request,
                       v1::AddUrlsResponse* response) override;
  grpc::Status Lease(grpc::ServerContext* context, const v1::LeaseRequest* request,
                     v1::LeaseResponse* response) override;
  grpc::Status Complete(grpc::ServerContext* context, const v1::CompleteRequest* request,
                        v1::CompleteResponse* response) override;
  grpc::Status ReportHostTimes(grpc::ServerContext* context,
                               const v1::ReportHostTimesRequest* request,
                               v1::ReportHostTimesResponse* response) override;
  grpc::Status GetStats(grpc::ServerContext* context, const v1::GetStatsRequest* request,
                        v1::GetStatsResponse* response) override;
  grpc::Status LookupUrls(grpc::ServerContext* context, const v1::LookupUrlsRequest* request,
                          v1::LookupUrlsResponse* response) override;
  // Host control (host_convert.h), the scheduler's calls for Admin.
  grpc::Status ListHosts(grpc::ServerContext* context, const v1::ListHostsRequest* request,
                         v1::ListHostsResponse* response) override;
  grpc::Status GetHost(grpc::ServerContext* context, const v1::GetHostRequest* request,
                       v1::GetHostResponse* response) override;
  grpc::Status ControlHost(grpc::ServerContext* context, const v1::ControlHostRequest* request,
                           v1::ControlHostResponse* response) override;
  grpc::Status DropHostQueue(grpc::ServerContext* context, const v1::DropHostQueueRequest* request,
                             v1::DropHostQueueResponse* response) override;
  grpc::Status ListHostUrls(grpc::ServerContext* context, const v1::ListHostUrlsRequest* request,
                            v1::ListHostUrlsResponse* response) override;
  grpc::Status ListHostsToMove(grpc::ServerContext* context,
                               const v1::ListHostsToMoveRequest* request,
                               v1::ListHostsToMoveResponse* response) override;
  grpc::Status BeginHostMove(grpc::ServerContext* context, const v1::BeginHostMoveRequest* request,
                             v1::BeginHostMoveResponse* response) override;
  grpc::Status ExportHost(grpc::ServerContext* context, const v1::ExportHostRequest* request,
                          v1::HostChunk* response) override;
  grpc::Status ImportHost(grpc::ServerContext* context, const v1::ImportHostRequest* request,
                          v1::ImportHostResponse* response) override;
  grpc::Status ForgetHost(grpc::ServerContext* context, const v1::ForgetHostRequest* request,
                          v1::ForgetHostResponse* response) override;
  grpc::Status ListHeldUrls(grpc::ServerContext* context, const v1::ListHeldUrlsRequest* request,
                            v1::ListHeldUrlsResponse* response) override;
  grpc::Status DeleteHeldUrls(grpc::ServerContext* context,
                              const v1::DeleteHeldUrlsRequest* request,
                              v1::DeleteHeldUrlsResponse* response) override;
  // The fetchers' control table (their poll).
  grpc::Status GetHostControls(grpc::ServerContext* context,
                               const v1::GetHostControlsRequest* request,
                               v1::GetHostControlsResponse* response) override;
  grpc::Status GetRevisitStatus(grpc::ServerContext* context,
                                const v1::GetRevisitStatusRequest* request,
                                v1::GetRevisitStatusResponse* response) override;
  grpc::Status RetuneRevisits(grpc::ServerContext* context,
                              const v1::RetuneRevisitsRequest* request,
                              v1::RetuneRevisitsResponse* response) override;
  grpc::Status ReleaseLeases(grpc::ServerContext* context, const v1::ReleaseLeasesRequest* request,
                             v1::ReleaseLeasesResponse* response) override;
  grpc::Status OpenCollection(grpc::ServerContext* context,
                              const v1::OpenCollectionRequest* request,
                              v1::OpenCollectionResponse* response) override;
  grpc::Status DropCollection(grpc::ServerContext* context,
                              const v1::DropCollectionRequest* request,
                              v1::DropCollectionResponse* response) override;

 private:
  // The collection's core, or NOT_FOUND naming it (INVALID_ARGUMENT when no name is given);
  // FAILED_PRECONDITION when it holds another generation than `generation` (0: any).
  absl::StatusOr<std::shared_ptr<Frontier>> Find(const std::string& collection,
                                                 uint64_t generation) const;

  // OK, or the refusal of a caller who may not call `method`.
  grpc::Status Authorize(grpc::ServerContext* context, const char* method) const;

  FrontierHost& host_;
  grpc_common::CallAuth* const auth_;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_SERVICE_H_
