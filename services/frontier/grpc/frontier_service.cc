#include "services/frontier/grpc/frontier_service.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/grpc/status.h"
#include "services/frontier/grpc/frontier_convert.h"
#include "services/frontier/grpc/host_convert.h"
#include "services/frontier/grpc/host_move_convert.h"
#include "services/frontier/local_frontier_client.h"

namespace crawler::frontier {
namespace {

using grpc_common::ToGrpcStatus;

// Runs `call` on the collection's core itself (host control: no FrontierClient carries it).
template <typename Call>
grpc::Status OnFrontier(const absl::StatusOr<std::shared_ptr<Frontier>>& core, Call call) {
  if (!core.ok()) return ToGrpcStatus(core.status());
  return ToGrpcStatus(call(**core));
}

// Runs `call` on the collection's core through a LocalFrontierClient (the same calls an
// in-process caller makes) and turns its error into the reply's status.
template <typename Call>
grpc::Status OnCore(const absl::StatusOr<std::shared_ptr<Frontier>>& core, Call call) {
  if (!core.ok()) return ToGrpcStatus(core.status());
  LocalFrontierClient local(**core);
  return ToGrpcStatus(call(local));
}

}  // namespace

absl::StatusOr<std::shared_ptr<Frontier>> FrontierService::Find(const std::string& collection,
                                                                uint64_t generation) const {
  if (collection.empty()) return absl::InvalidArgumentError("collection: required");
  FrontierHost::Held held = host_.FindHeld(collection);
  if (held.core == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("collection ", collection, " is not open on this frontier"));
  }
  if (generation != 0 && held.generation != 0 && generation != held.generation) {
    return absl::FailedPreconditionError(
        absl::StrCat("collection ", collection, " of generation ", generation,
                     " is gone from this frontier (deleted; it now holds generation ",
                     held.generation, ")"));
  }
  return held.core;
}

std::map<std::string, std::set<std::string>, std::less<>> FrontierCallRoles() {
  const std::set<std::string> fetcher = {"fetcher"};
  const std::set<std::string> scheduler = {"scheduler"};
  const std::set<std::string> both = {"fetcher", "scheduler"};
  return {{"AddUrls", both},          {"Lease", fetcher},          {"Complete", fetcher},
          {"ReleaseLeases", fetcher}, {"ReportHostTimes", fetcher}, {"GetStats", both},
          {"LookupUrls", scheduler},  {"GetRevisitStatus", scheduler},
          {"RetuneRevisits", scheduler}, {"OpenCollection", scheduler},
          {"DropCollection", scheduler}, {"ListHosts", scheduler},
          {"GetHost", scheduler},        {"ControlHost", scheduler},
          {"DropHostQueue", scheduler},  {"ListHostUrls", scheduler},
          {"GetHostControls", fetcher},  {"ListHostsToMove", scheduler},
          {"BeginHostMove", scheduler},  {"ExportHost", scheduler},
          {"ImportHost", scheduler},     {"ForgetHost", scheduler},
          {"ListHeldUrls", scheduler},   {"DeleteHeldUrls", scheduler}};
}

grpc::Status FrontierService::Authorize(grpc::ServerContext* context, const char* method) const {
  return auth_ == nullptr ? grpc::Status::OK : auth_->Check(*context, method);
}

grpc::Status FrontierService::AddUrls(grpc::ServerContext* context,
                                      const v1::AddUrlsRequest* request,
                                      v1::AddUrlsResponse* response) {
  if (grpc::Status s = Authorize(context, "AddUrls"); !s.ok()) return s;
  const auto found = Find(request->collection(), request->generation());
  return OnCore(found, [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<std::vector<UrlToAdd>> urls = FromAddUrlsRequest(*request);
    if (!urls.ok()) return urls.status();
    absl::StatusOr<AddResult> result = core.AddUrls(*urls);
    if (!result.ok()) return result.status();
    *response = ToProto(*result);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::Lease(grpc::ServerContext* context, const v1::LeaseRequest* request,
                                    v1::LeaseResponse* response) {
  if (grpc::Status s = Authorize(context, "Lease"); !s.ok()) return s;
  const auto found = Find(request->collection(), request->generation());
  return OnCore(found, [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<LeaseArgs> args = FromLeaseRequest(*request);
    if (!args.ok()) return args.status();
    absl::StatusOr<std::vector<LeasedTask>> tasks = core.Lease(args->max_urls, args->max_per_host);
    if (!tasks.ok()) return tasks.status();
    *response = ToLeaseResponse(*tasks);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::Complete(grpc::ServerContext* context,
                                       const v1::CompleteRequest* request,
                                       v1::CompleteResponse* response) {
  if (grpc::Status s = Authorize(context, "Complete"); !s.ok()) return s;
  const auto found = Find(request->collection(), request->generation());
  return OnCore(found, [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<std::vector<FetchOutcome>> outcomes = FromCompleteRequest(*request);
    if (!outcomes.ok()) return outcomes.status();
    absl::StatusOr<CompleteResult> result = core.Complete(*outcomes);
    if (!result.ok()) return result.status();
    *response = ToProto(*result);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::ReportHostTimes(grpc::ServerContext* context,
                                              const v1::ReportHostTimesRequest* request,
                                              v1::ReportHostTimesResponse* response) {
  if (grpc::Status s = Authorize(context, "ReportHostTimes"); !s.ok()) return s;
  const auto found = Find(request->collection(), request->generation());
  return OnCore(found, [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<std::vector<HostTime>> times = FromReportHostTimesRequest(*request);
    if (!times.ok()) return times.status();
    absl::StatusOr<size_t> updated = core.ReportHostTimes(*times);
    if (!updated.ok()) return updated.status();
    response->set_hosts_updated(*updated);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::GetStats(grpc::ServerContext* context,
                                       const v1::GetStatsRequest* request,
                                       v1::GetStatsResponse* response) {
  if (grpc::Status s = Authorize(context, "GetStats"); !s.ok()) return s;
  const auto found = Find(request->collection(), request->generation());
  return OnCore(found, [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<FrontierStats> stats = core.Stats();
    if (!stats.ok()) return stats.status();
    *response->mutable_stats() = ToProto(*stats);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::LookupUrls(grpc::ServerContext* context,
                                         const v1::LookupUrlsRequest* request,
                                         v1::LookupUrlsResponse* response) {
  if (grpc::Status s = Authorize(context, "LookupUrls"); !s.ok()) return s;
  return OnCore(Find(request->collection(), 0), [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<std::vector<std::string>> urls = FromLookupUrlsRequest(*request);
    if (!urls.ok()) return urls.status();
    absl::StatusOr<std::vector<std::optional<UrlRecord>>> records = core.LookupUrls(*urls);
    if (!records.ok()) return records.status();
    *response = ToLookupUrlsResponse(*records);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::GetRevisitStatus(grpc::ServerContext* context,
                                               const v1::GetRevisitStatusRequest* request,
                                               v1::GetRevisitStatusResponse* response) {
  if (grpc::Status s = Authorize(context, "GetRevisitStatus"); !s.ok()) return s;
  return OnCore(Find(request->collection(), 0), [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<RevisitStatus> status = core.GetRevisitStatus();
    if (!status.ok()) return status.status();
    *response = ToProto(*status);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::RetuneRevisits(grpc::ServerContext* context,
                                             const v1::RetuneRevisitsRequest* request,
                                             v1::RetuneRevisitsResponse*) {
  if (grpc::Status s = Authorize(context, "RetuneRevisits"); !s.ok()) return s;
  return OnCore(Find(request->collection(), 0), [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<FleetSummaryValue> fleet = FromRetuneRevisitsRequest(*request);
    if (!fleet.ok()) return fleet.status();
    return core.RetuneRevisits(fleet->View());
  });
}

grpc::Status FrontierService::ReleaseLeases(grpc::ServerContext* context,
                                            const v1::ReleaseLeasesRequest* request,
                                            v1::ReleaseLeasesResponse* response) {
  if (grpc::Status s = Authorize(context, "ReleaseLeases"); !s.ok()) return s;
  const auto found = Find(request->collection(), request->generation());
  return OnCore(found, [&](FrontierClient& core) -> absl::Status {
    absl::StatusOr<std::vector<LeaseId>> ids = FromReleaseLeasesRequest(*request);
    if (!ids.ok()) return ids.status();
    absl::StatusOr<size_t> released = core.ReleaseLeases(*ids);
    if (!released.ok()) return released.status();
    response->set_released(*released);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::OpenCollection(grpc::ServerContext* context,
                                             const v1::OpenCollectionRequest* request,
                                             v1::OpenCollectionResponse* response) {
  if (grpc::Status s = Authorize(context, "OpenCollection"); !s.ok()) return s;
  absl::StatusOr<OpenCollectionArgs> args = FromOpenCollectionRequest(*request);
  if (!args.ok()) return ToGrpcStatus(args.status());
  absl::StatusOr<bool> changed = host_.OpenCollection(args->collection, args->Layout());
  if (!changed.ok()) {
    // The host names the settings' own fields; on the wire they sit under "collection".
    const absl::Status& s = changed.status();
    if (absl::IsInvalidArgument(s)) {
      return ToGrpcStatus(absl::InvalidArgumentError(absl::StrCat("collection.", s.message())));
    }
    return ToGrpcStatus(s);
  }
  response->set_changed(*changed);
  return grpc::Status::OK;
}

grpc::Status FrontierService::DropCollection(grpc::ServerContext* context,
                                             const v1::DropCollectionRequest* request,
                                             v1::DropCollectionResponse* response) {
  if (grpc::Status s = Authorize(context, "DropCollection"); !s.ok()) return s;
  if (request->name().empty()) {
    return ToGrpcStatus(absl::InvalidArgumentError("name: required"));
  }
  absl::StatusOr<bool> dropped = host_.DropCollection(request->name());
  if (!dropped.ok()) return ToGrpcStatus(dropped.status());
  response->set_dropped(*dropped);
  return grpc::Status::OK;
}

grpc::Status FrontierService::ListHosts(grpc::ServerContext* context,
                                        const v1::ListHostsRequest* request,
                                        v1::ListHostsResponse* response) {
  if (grpc::Status s = Authorize(context, "ListHosts"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<ListHostsRequest> args = FromProto(*request);
    if (!args.ok()) return args.status();
    absl::StatusOr<ListHostsResult> result = core.ListHosts(*args);
    if (!result.ok()) return result.status();
    *response = ToProto(*result);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::GetHost(grpc::ServerContext* context,
                                      const v1::GetHostRequest* request,
                                      v1::GetHostResponse* response) {
  if (grpc::Status s = Authorize(context, "GetHost"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<HostDetail> detail = core.GetHost(request->host_key());
    if (!detail.ok()) return detail.status();
    *response = ToProto(*detail);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::ControlHost(grpc::ServerContext* context,
                                          const v1::ControlHostRequest* request,
                                          v1::ControlHostResponse* response) {
  if (grpc::Status s = Authorize(context, "ControlHost"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<std::pair<std::string, HostControlChange>> change = FromProto(*request);
    if (!change.ok()) return change.status();
    absl::StatusOr<HostChangeResult> result = core.ControlHost(change->first, change->second);
    if (!result.ok()) return result.status();
    *response = ToControlHostResponse(*result);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::DropHostQueue(grpc::ServerContext* context,
                                            const v1::DropHostQueueRequest* request,
                                            v1::DropHostQueueResponse* response) {
  if (grpc::Status s = Authorize(context, "DropHostQueue"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<HostChangeResult> result = core.DropHostQueue(request->host_key());
    if (!result.ok()) return result.status();
    *response = ToDropHostQueueResponse(*result);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::ListHostUrls(grpc::ServerContext* context,
                                           const v1::ListHostUrlsRequest* request,
                                           v1::ListHostUrlsResponse* response) {
  if (grpc::Status s = Authorize(context, "ListHostUrls"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<ListHostUrlsRequest> args = FromProto(*request);
    if (!args.ok()) return args.status();
    absl::StatusOr<ListHostUrlsResult> result = core.ListHostUrls(*args);
    if (!result.ok()) return result.status();
    *response = ToProto(*result);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::GetHostControls(grpc::ServerContext* context,
                                              const v1::GetHostControlsRequest* request,
                                              v1::GetHostControlsResponse* response) {
  if (grpc::Status s = Authorize(context, "GetHostControls"); !s.ok()) return s;
  const auto found = Find(request->collection(), request->generation());
  return OnFrontier(found, [&](Frontier& core) -> absl::Status {
    *response = ToProto(core.FetcherControls(request->known_version()));
    return absl::OkStatus();
  });
}

// ---- A reshard's moves (the scheduler's calls) ------------------------------------------

namespace {

// A page size of the reshard calls: [1, 10000]; 0: 1000.
absl::StatusOr<size_t> MovePageSize(uint32_t requested) {
  if (requested == 0) return size_t{1000};
  if (requested > 10000) return absl::InvalidArgumentError("page_size: at most 10000");
  return size_t{requested};
}

}  // namespace

grpc::Status FrontierService::ListHostsToMove(grpc::ServerContext* context,
                                              const v1::ListHostsToMoveRequest* request,
                                              v1::ListHostsToMoveResponse* response) {
  if (grpc::Status s = Authorize(context, "ListHostsToMove"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<size_t> size = MovePageSize(request->page_size());
    if (!size.ok()) return size.status();
    absl::StatusOr<HostsToMove> page = core.ListHostsToMove(request->after(), *size);
    if (!page.ok()) return page.status();
    *response = ToProto(*page);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::BeginHostMove(grpc::ServerContext* context,
                                            const v1::BeginHostMoveRequest* request,
                                            v1::BeginHostMoveResponse* response) {
  if (grpc::Status s = Authorize(context, "BeginHostMove"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<uint32_t> leased = core.BeginHostMove(request->host_key());
    if (!leased.ok()) return leased.status();
    response->set_leased(*leased);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::ExportHost(grpc::ServerContext* context,
                                         const v1::ExportHostRequest* request,
                                         v1::HostChunk* response) {
  if (grpc::Status s = Authorize(context, "ExportHost"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<size_t> size = MovePageSize(request->max_urls());
    if (!size.ok()) return size.status();
    absl::StatusOr<HostChunk> chunk =
        core.ExportHost(request->host_key(), request->after(), *size);
    if (!chunk.ok()) return chunk.status();
    *response = ToProto(*chunk);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::ImportHost(grpc::ServerContext* context,
                                         const v1::ImportHostRequest* request,
                                         v1::ImportHostResponse* response) {
  if (grpc::Status s = Authorize(context, "ImportHost"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<HostChunk> chunk = FromProto(request->chunk());
    if (!chunk.ok()) return chunk.status();
    absl::Status imported = core.ImportHost(*chunk);
    if (absl::IsAlreadyExists(imported)) {
      response->set_already_here(true);
      return absl::OkStatus();
    }
    return imported;
  });
}

grpc::Status FrontierService::ForgetHost(grpc::ServerContext* context,
                                         const v1::ForgetHostRequest* request,
                                         v1::ForgetHostResponse* response) {
  if (grpc::Status s = Authorize(context, "ForgetHost"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<uint64_t> deleted = core.ForgetHost(request->host_key());
    if (!deleted.ok()) return deleted.status();
    response->set_urls_deleted(*deleted);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::ListHeldUrls(grpc::ServerContext* context,
                                           const v1::ListHeldUrlsRequest* request,
                                           v1::ListHeldUrlsResponse* response) {
  if (grpc::Status s = Authorize(context, "ListHeldUrls"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    absl::StatusOr<size_t> size = MovePageSize(request->page_size());
    if (!size.ok()) return size.status();
    absl::StatusOr<HeldUrls> page = core.ListHeldUrls(request->after(), *size);
    if (!page.ok()) return page.status();
    *response = ToProto(*page);
    return absl::OkStatus();
  });
}

grpc::Status FrontierService::DeleteHeldUrls(grpc::ServerContext* context,
                                             const v1::DeleteHeldUrlsRequest* request,
                                             v1::DeleteHeldUrlsResponse* /*response*/) {
  if (grpc::Status s = Authorize(context, "DeleteHeldUrls"); !s.ok()) return s;
  return OnFrontier(Find(request->collection(), 0), [&](Frontier& core) -> absl::Status {
    return core.DeleteHeldUrls({request->seqs().begin(), request->seqs().end()});
  });
}

}  // namespace crawler::frontier
