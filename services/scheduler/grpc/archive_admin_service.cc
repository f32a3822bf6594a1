#include "services/scheduler/grpc/archive_admin_service.h"

#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/grpc/status.h"

namespace crawler::scheduler {

ArchiveAdminService::ArchiveAdminService(FetcherDirectory& fetchers, std::string token,
                                         const Clock& clock, ArchiveAdminOptions options)
    : fetchers_(fetchers),
      options_(std::move(options)),
      auth_({.service = "admin API", .token = std::move(token)}, clock, options_.log) {}

absl::StatusOr<std::unique_ptr<v1::ArchiveFiles::Stub>> ArchiveAdminService::StubFor(
    const std::string& address) {
  absl::MutexLock lock(&mu_);
  auto it = channels_.find(address);
  if (it == channels_.end()) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        grpc_common::MakeChannel(address, options_.channel);
    if (!channel.ok()) return channel.status();
    it = channels_.emplace(address, *std::move(channel)).first;
  }
  return v1::ArchiveFiles::NewStub(it->second);
}

grpc::Status ArchiveAdminService::ListCollectionFiles(grpc::ServerContext* context,
                                                      const v1::ListCollectionFilesRequest* request,
                                                      v1::ListCollectionFilesResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "ListCollectionFiles"); !s.ok()) return s;
  if (request->collection().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "collection is required");
  }
  std::set<uint32_t> covered;
  for (const KnownFetcher& fetcher : fetchers_.Live()) {
    covered.insert(fetcher.partition);
    v1::FetcherArchive* out = response->add_fetchers();
    out->set_fetcher(fetcher.id);
    out->set_partition(fetcher.partition);
    out->set_address(fetcher.address);
    absl::StatusOr<std::unique_ptr<v1::ArchiveFiles::Stub>> stub = StubFor(fetcher.address);
    if (!stub.ok()) {
      out->set_error(std::string(stub.status().message()));
      continue;
    }
    grpc::ClientContext call;
    absl::Time deadline = absl::Now() + options_.list_deadline;
    if (context->deadline() != std::chrono::system_clock::time_point::max()) {
      deadline = std::min(deadline, absl::FromChrono(context->deadline()));
    }
    call.set_deadline(absl::ToChronoTime(deadline));
    v1::ListArchiveFilesRequest ask;
    ask.set_collection(request->collection());
    v1::ListArchiveFilesResponse listing;
    grpc::Status status = (*stub)->ListArchiveFiles(&call, ask, &listing);
    if (!status.ok()) {
      out->set_error(absl::StrCat("fetcher at ", fetcher.address, ": ",
                                  grpc_common::FromGrpcStatus(status).ToString()));
      continue;
    }
    *out->mutable_files() = std::move(*listing.mutable_files());
    *out->mutable_in_progress() = std::move(*listing.mutable_in_progress());
  }
  for (uint32_t k = 0; k < options_.partitions; ++k) {
    if (covered.count(k) == 0) response->add_partitions_without_fetcher(k);
  }
  return grpc::Status::OK;
}

grpc::Status ArchiveAdminService::ReadCollectionFile(
    grpc::ServerContext* context, const v1::ReadCollectionFileRequest* request,
    grpc::ServerWriter<v1::ArchiveFileChunk>* writer) {
  if (grpc::Status s = auth_.Check(*context, "ReadCollectionFile"); !s.ok()) return s;
  std::optional<KnownFetcher> fetcher = fetchers_.Find(request->fetcher());
  if (!fetcher.has_value()) {
    return grpc::Status(
        grpc::StatusCode::NOT_FOUND,
        absl::StrCat("fetcher ", request->fetcher(),
                     " has not reported recently: list the files again"));
  }
  absl::StatusOr<std::unique_ptr<v1::ArchiveFiles::Stub>> stub = StubFor(fetcher->address);
  if (!stub.ok()) return grpc_common::ToGrpcStatus(stub.status());
  // The client's deadline and cancellation reach the fetcher's read.
  std::unique_ptr<grpc::ClientContext> call = grpc::ClientContext::FromServerContext(*context);
  v1::ReadArchiveFileRequest ask;
  ask.set_collection(request->collection());
  ask.set_name(request->name());
  ask.set_offset(request->offset());
  std::unique_ptr<grpc::ClientReader<v1::ArchiveFileChunk>> reader =
      (*stub)->ReadArchiveFile(call.get(), ask);
  v1::ArchiveFileChunk chunk;
  while (reader->Read(&chunk)) {
    if (!writer->Write(chunk)) {
      call->TryCancel();
      break;
    }
  }
  return reader->Finish();
}

}  // namespace crawler::scheduler
