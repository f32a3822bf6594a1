#include "services/scheduler/grpc/grpc_scheduler_client.h"

#include <utility>

#include "absl/time/clock.h"
#include "grpcpp/client_context.h"
#include "services/common/grpc/status.h"
#include "services/scheduler/grpc/scheduler_convert.h"

namespace crawler::scheduler {

GrpcSchedulerClient::GrpcSchedulerClient(std::shared_ptr<grpc::Channel> channel,
                                         absl::Duration deadline)
    : stub_(v1::SchedulerInternal::NewStub(std::move(channel))), deadline_(deadline) {}

GrpcSchedulerClient::~GrpcSchedulerClient() = default;

absl::StatusOr<FetcherReportReply> GrpcSchedulerClient::Report(const FetcherReport& report) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline_));
  v1::ReportFetcherStatsResponse response;
  grpc::Status status = stub_->ReportFetcherStats(&context, ToProto(report), &response);
  if (!status.ok()) return grpc_common::FromGrpcStatus(status);
  return FromProto(response);
}

}  // namespace crawler::scheduler
