// ArchiveFilesService: crawler.v1.ArchiveFiles (proto/crawler/v1/archive.proto) on a fetcher's
// internal port, over an ArchiveFileStore: converts, calls, converts back; a read is streamed
// chunk by chunk as the store hands it on, so memory is one chunk per call. Only the scheduler
// calls it (ArchiveAdmin relays users' calls), with the internal credential (CallAuth).
//
// Thread-safety: gRPC calls the handlers from many threads; the store is thread-safe.
#ifndef CRAWLER_SERVICES_FETCHER_GRPC_ARCHIVE_FILES_SERVICE_H_
#define CRAWLER_SERVICES_FETCHER_GRPC_ARCHIVE_FILES_SERVICE_H_

#include "crawler/v1/archive.grpc.pb.h"
#include "services/common/grpc/call_auth.h"
#include "services/fetcher/archive_file_store.h"

namespace crawler::fetcher {

class ArchiveFilesService final : public v1::ArchiveFiles::Service {
 public:
  // The store must outlive the service; so must `auth` (may be null: no check), who may call.
  explicit ArchiveFilesService(ArchiveFileStore& store, grpc_common::CallAuth* auth = nullptr)
      : store_(store), auth_(auth) {}

  grpc::Status ListArchiveFiles(grpc::ServerContext* context,
                                const v1::ListArchiveFilesRequest* request,
                                v1::ListArchiveFilesResponse* response) override;
  grpc::Status ReadArchiveFile(grpc::ServerContext* context,
                               const v1::ReadArchiveFileRequest* request,
                               grpc::ServerWriter<v1::ArchiveFileChunk>* writer) override;

 private:
  ArchiveFileStore& store_;
  grpc_common::CallAuth* const auth_;
};

// The listing as the wire has it.
void ListingToProto(const ArchiveListing& listing, v1::ListArchiveFilesResponse& out);

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_GRPC_ARCHIVE_FILES_SERVICE_H_
