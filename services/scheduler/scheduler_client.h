// SchedulerClient: the scheduler as a fetcher talks to it (docs/architecture.md §3.2): a fetcher
// reports its counters every few seconds and learns from the reply which collections to crawl.
// Over gRPC: GrpcSchedulerClient (services/scheduler/grpc/grpc_scheduler_client.h); tests give
// a fake.
//
// Thread-safety: implementations are thread-safe.
#ifndef CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CLIENT_H_
#define CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CLIENT_H_

#include "absl/status/statusor.h"
#include "services/scheduler/scheduler_api.h"

namespace crawler::scheduler {

class SchedulerClient {
 public:
  virtual ~SchedulerClient() = default;

  // Hands `report` over and returns every live collection. kUnavailable or kDeadlineExceeded
  // while the scheduler cannot be reached; kInvalidArgument for a report it refuses.
  virtual absl::StatusOr<FetcherReportReply> Report(const FetcherReport& report) = 0;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_SCHEDULER_CLIENT_H_
