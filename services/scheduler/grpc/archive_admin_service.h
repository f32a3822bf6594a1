// ArchiveAdminService: crawler.v1.ArchiveAdmin (proto/crawler/v1/archive.proto) on the admin
// port: a user's way to a collection's archive files, which live on the fetchers' volumes
// (docs/archive.md). A listing asks every live fetcher (FetcherDirectory) for its files of the
// collection, one after the other, and says which partitions have no fetcher to ask; a read is
// relayed from the fetcher chunk by chunk (memory: one chunk per call), its deadline and
// cancellation passed on.
//
// Only fetchers in the directory are ever called: a client names a fetcher by the id the
// listing gave, never by an address. Every call needs the admin token (grpc_common::CallAuth).
//
// Thread-safety: gRPC calls the handlers from many threads; channels to fetchers are made once
// per address and shared.
#ifndef CRAWLER_SERVICES_SCHEDULER_GRPC_ARCHIVE_ADMIN_SERVICE_H_
#define CRAWLER_SERVICES_SCHEDULER_GRPC_ARCHIVE_ADMIN_SERVICE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "crawler/v1/archive.grpc.pb.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "services/common/grpc/call_auth.h"
#include "services/common/grpc/channel.h"
#include "services/scheduler/fetcher_directory.h"

namespace crawler::scheduler {

struct ArchiveAdminOptions {
  // How fetchers are reached (TLS as towards the frontiers).
  grpc_common::ChannelOptions channel;
  // The number of partitions, to say which have no live fetcher.
  uint32_t partitions = 1;
  // Deadline of one fetcher's listing. A fetcher's first listing of a collection reads every
  // file for its SHA-256 (~1 s per GB), so this is generous.
  absl::Duration list_deadline = absl::Minutes(10);
  // Where refused calls are logged.
  Logger log;
};

class ArchiveAdminService final : public v1::ArchiveAdmin::Service {
 public:
  // `fetchers` and `clock` must outlive the service; `token` is the admin token (not empty).
  ArchiveAdminService(FetcherDirectory& fetchers, std::string token, const Clock& clock,
                      ArchiveAdminOptions options);

  grpc::Status ListCollectionFiles(grpc::ServerContext* context,
                                   const v1::ListCollectionFilesRequest* request,
                                   v1::ListCollectionFilesResponse* response) override;
  grpc::Status ReadCollectionFile(grpc::ServerContext* context,
                                  const v1::ReadCollectionFileRequest* request,
                                  grpc::ServerWriter<v1::ArchiveFileChunk>* writer) override;

 private:
  absl::StatusOr<std::unique_ptr<v1::ArchiveFiles::Stub>> StubFor(const std::string& address)
      ABSL_LOCKS_EXCLUDED(mu_);

  FetcherDirectory& fetchers_;
  const ArchiveAdminOptions options_;
  grpc_common::CallAuth auth_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_GRPC_ARCHIVE_ADMIN_SERVICE_H_
