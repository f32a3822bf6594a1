#include "services/fetcher/grpc/archive_files_service.h"

#include "services/common/grpc/proto_convert.h"
#include "services/common/grpc/status.h"

namespace crawler::fetcher {

void ListingToProto(const ArchiveListing& listing, v1::ListArchiveFilesResponse& out) {
  for (const ArchiveFileInfo& file : listing.files) {
    v1::ArchiveFile* f = out.add_files();
    f->set_name(file.name);
    f->set_kind(file.kind == ArchiveFileInfo::Kind::kWarc ? v1::ARCHIVE_FILE_KIND_WARC
                                                          : v1::ARCHIVE_FILE_KIND_CDXJ);
    f->set_size(file.size);
    f->set_sha256(file.sha256);
    *f->mutable_modify_time() = grpc_common::TimeToProto(file.modified);
  }
  for (const std::string& name : listing.in_progress) out.add_in_progress(name);
}

grpc::Status ArchiveFilesService::ListArchiveFiles(grpc::ServerContext* context,
                                                   const v1::ListArchiveFilesRequest* request,
                                                   v1::ListArchiveFilesResponse* response) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->Check(*context, "ListArchiveFiles"); !s.ok()) return s;
  }
  absl::StatusOr<ArchiveListing> listing = store_.List(request->collection());
  if (!listing.ok()) return grpc_common::ToGrpcStatus(listing.status());
  ListingToProto(*listing, *response);
  return grpc::Status::OK;
}

grpc::Status ArchiveFilesService::ReadArchiveFile(
    grpc::ServerContext* context, const v1::ReadArchiveFileRequest* request,
    grpc::ServerWriter<v1::ArchiveFileChunk>* writer) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->Check(*context, "ReadArchiveFile"); !s.ok()) return s;
  }
  v1::ArchiveFileChunk chunk;
  absl::Status status = store_.Read(request->collection(), request->name(), request->offset(),
                                    [&](uint64_t offset, std::string_view data) {
                                      if (context->IsCancelled()) return false;
                                      chunk.set_offset(offset);
                                      chunk.set_data(data.data(), data.size());
                                      return writer->Write(chunk);
                                    });
  return grpc_common::ToGrpcStatus(status);
}

}  // namespace crawler::fetcher
