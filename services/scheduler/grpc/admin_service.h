// The scheduler's gRPC services: AdminService (crawler.v1.Admin, the users' API, guarded by a
// bearer token) and SchedulerInternalService (crawler.v1.SchedulerInternal, the fetchers'
// reports). Both are thin: authorise (Admin), convert, call the CollectionManager (and, for a
// report, the FetcherDirectory of the fetchers' archive files), convert back.
//
// Authentication (grpc_common::CallAuth): every Admin call must carry the metadata
// `authorization: Bearer <token>` with the admin token read from a file at start-up; a missing
// or wrong token is answered UNAUTHENTICATED and logged (at most once a second) with the method
// and the peer, never with either token. The internal service takes the internal credential
// (the roles' token and, with mutual TLS, the fetcher role) when its server is given one.
//
// Thread-safety: gRPC calls the handlers from many threads; the manager is thread-safe.
#ifndef CRAWLER_SERVICES_SCHEDULER_GRPC_ADMIN_SERVICE_H_
#define CRAWLER_SERVICES_SCHEDULER_GRPC_ADMIN_SERVICE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/v1/admin.grpc.pb.h"
#include "crawler/v1/scheduler.grpc.pb.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "services/common/grpc/call_auth.h"
#include "services/scheduler/collection_manager.h"
#include "services/scheduler/resharder.h"
#include "services/scheduler/fetcher_directory.h"

namespace crawler::scheduler {

class AdminService final : public v1::Admin::Service {
 public:
  // `token` must not be empty. The manager and clock must outlive the service. Refused calls
  // are logged to `log`.
  AdminService(CollectionManager& manager, std::string token, const Clock& clock,
               Logger log = {});
  // Where GetPartitions reads the reshard's status (null: a steady layout of the manager's).
  void SetResharder(const Resharder* resharder) { resharder_ = resharder; }

  grpc::Status CreateCollection(grpc::ServerContext* context,
                                const v1::CreateCollectionRequest* request,
                                v1::CollectionInfo* response) override;
  grpc::Status UpdateCollection(grpc::ServerContext* context,
                                const v1::UpdateCollectionRequest* request,
                                v1::CollectionInfo* response) override;
  grpc::Status GetCollection(grpc::ServerContext* context, const v1::GetCollectionRequest* request,
                             v1::CollectionInfo* response) override;
  grpc::Status ListCollections(grpc::ServerContext* context,
                               const v1::ListCollectionsRequest* request,
                               v1::ListCollectionsResponse* response) override;
  grpc::Status PauseCollection(grpc::ServerContext* context,
                               const v1::PauseCollectionRequest* request,
                               v1::CollectionInfo* response) override;
  grpc::Status ResumeCollection(grpc::ServerContext* context,
                                const v1::ResumeCollectionRequest* request,
                                v1::CollectionInfo* response) override;
  grpc::Status DeleteCollection(grpc::ServerContext* context,
                                const v1::DeleteCollectionRequest* request,
                                v1::DeleteCollectionResponse* response) override;
  grpc::Status AddSeeds(grpc::ServerContext* context,
                        grpc::ServerReader<v1::AddSeedsRequest>* reader,
                        v1::AddSeedsResponse* response) override;
  grpc::Status GetCollectionStats(grpc::ServerContext* context,
                                  const v1::GetCollectionStatsRequest* request,
                                  v1::CollectionStats* response) override;
  grpc::Status ExplainUrl(grpc::ServerContext* context, const v1::ExplainUrlRequest* request,
                          v1::ExplainUrlResponse* response) override;
  // Host control, routed by the manager to the partition that owns the host.
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
  grpc::Status GetPartitions(grpc::ServerContext* context, const v1::GetPartitionsRequest* request,
                             v1::PartitionsStatus* response) override;

 private:
  CollectionManager& manager_;
  const Clock& clock_;
  grpc_common::CallAuth auth_;
  const Resharder* resharder_ = nullptr;
};

class SchedulerInternalService final : public v1::SchedulerInternal::Service {
 public:
  // `report_interval`: sent in every reply (how often fetchers should report). `fetchers`
  // (may be null; must outlive the service) learns from each report where the fetcher serves
  // its archive files. `auth` (may be null: no check; must outlive the service) is the internal
  // credential.
  SchedulerInternalService(CollectionManager& manager, absl::Duration report_interval,
                           FetcherDirectory* fetchers = nullptr,
                           grpc_common::CallAuth* auth = nullptr);

  grpc::Status ReportFetcherStats(grpc::ServerContext* context,
                                  const v1::ReportFetcherStatsRequest* request,
                                  v1::ReportFetcherStatsResponse* response) override;

 private:
  CollectionManager& manager_;
  const absl::Duration report_interval_;
  FetcherDirectory* const fetchers_;
  grpc_common::CallAuth* const auth_;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_GRPC_ADMIN_SERVICE_H_
