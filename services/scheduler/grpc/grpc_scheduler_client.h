// GrpcSchedulerClient: SchedulerClient (services/scheduler/scheduler_client.h) over gRPC: each
// report is one SchedulerInternal.ReportFetcherStats call with a deadline.
//
// Thread-safety: thread-safe (a gRPC stub).
#ifndef CRAWLER_SERVICES_SCHEDULER_GRPC_GRPC_SCHEDULER_CLIENT_H_
#define CRAWLER_SERVICES_SCHEDULER_GRPC_GRPC_SCHEDULER_CLIENT_H_

#include <memory>

#include "absl/time/time.h"
#include "crawler/v1/scheduler.grpc.pb.h"
#include "grpcpp/channel.h"
#include "services/scheduler/scheduler_client.h"

namespace crawler::scheduler {

class GrpcSchedulerClient final : public SchedulerClient {
 public:
  GrpcSchedulerClient(std::shared_ptr<grpc::Channel> channel, absl::Duration deadline);
  ~GrpcSchedulerClient() override;

  absl::StatusOr<FetcherReportReply> Report(const FetcherReport& report) override;

 private:
  std::unique_ptr<v1::SchedulerInternal::Stub> stub_;
  const absl::Duration deadline_;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_GRPC_GRPC_SCHEDULER_CLIENT_H_
