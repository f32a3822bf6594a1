#include "services/frontier/grpc/grpc_frontier_client.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/client_context.h"
#include "services/common/grpc/status.h"
#include "services/frontier/grpc/frontier_convert.h"
#include "services/frontier/grpc/host_convert.h"
#include "services/frontier/grpc/host_move_convert.h"

namespace crawler::frontier {
namespace {

using grpc_common::FromGrpcStatus;

// One RPC under the per-call deadline.
template <typename Request, typename Response>
absl::StatusOr<Response> Call(v1::Frontier::Stub& stub,
                              grpc::Status (v1::Frontier::Stub::*method)(grpc::ClientContext*,
                                                                         const Request&, Response*),
                              absl::Duration deadline, const Request& request) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  Response response;
  if (absl::Status s = FromGrpcStatus((stub.*method)(&context, request, &response)); !s.ok()) {
    return s;
  }
  return response;
}

}  // namespace

GrpcFrontierClient::GrpcFrontierClient(std::shared_ptr<grpc::Channel> channel,
                                       std::string collection,
                                       const GrpcFrontierClientOptions& options,
                                       uint64_t generation)
    : options_(options),
      collection_(std::move(collection)),
      generation_(generation),
      stub_(v1::Frontier::NewStub(std::move(channel))) {}

absl::StatusOr<AddResult> GrpcFrontierClient::AddUrls(const std::vector<UrlToAdd>& urls) {
  absl::StatusOr<v1::AddUrlsResponse> response =
      Call(*stub_, &v1::Frontier::Stub::AddUrls, options_.deadline,
           Stamped(ToAddUrlsRequest(collection_, urls)));
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::StatusOr<std::vector<LeasedTask>> GrpcFrontierClient::Lease(size_t max_urls,
                                                                  size_t max_per_host) {
  // The server refuses 0 (a request that cannot be granted); the core answers it with nothing.
  if (max_urls == 0 || max_per_host == 0) return std::vector<LeasedTask>{};
  absl::StatusOr<v1::LeaseResponse> response =
      Call(*stub_, &v1::Frontier::Stub::Lease, options_.deadline,
           Stamped(ToLeaseRequest(collection_, {max_urls, max_per_host})));
  if (!response.ok()) return response.status();
  return FromLeaseResponse(*response);
}

absl::StatusOr<CompleteResult> GrpcFrontierClient::Complete(
    const std::vector<FetchOutcome>& outcomes) {
  absl::StatusOr<v1::CompleteResponse> response =
      Call(*stub_, &v1::Frontier::Stub::Complete, options_.deadline,
           Stamped(ToCompleteRequest(collection_, outcomes)));
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::StatusOr<size_t> GrpcFrontierClient::ReleaseLeases(const std::vector<LeaseId>& lease_ids) {
  absl::StatusOr<v1::ReleaseLeasesResponse> response =
      Call(*stub_, &v1::Frontier::Stub::ReleaseLeases, options_.deadline,
           Stamped(ToReleaseLeasesRequest(collection_, lease_ids)));
  if (!response.ok()) return response.status();
  return static_cast<size_t>(response->released());
}

absl::StatusOr<size_t> GrpcFrontierClient::ReportHostTimes(const std::vector<HostTime>& times) {
  absl::StatusOr<v1::ReportHostTimesResponse> response =
      Call(*stub_, &v1::Frontier::Stub::ReportHostTimes, options_.deadline,
           Stamped(ToReportHostTimesRequest(collection_, times)));
  if (!response.ok()) return response.status();
  return static_cast<size_t>(response->hosts_updated());
}

absl::StatusOr<bool> GrpcFrontierClient::IsExhausted() {
  absl::StatusOr<FrontierStats> stats = Stats();
  if (!stats.ok()) return stats.status();
  return stats->exhausted;
}

absl::StatusOr<FrontierStats> GrpcFrontierClient::Stats() {
  v1::GetStatsRequest request;
  request.set_collection(collection_);
  request.set_generation(generation_);
  absl::StatusOr<v1::GetStatsResponse> response =
      Call(*stub_, &v1::Frontier::Stub::GetStats, options_.deadline, request);
  if (!response.ok()) return response.status();
  return FromProto(response->stats(), "stats");
}

absl::StatusOr<std::vector<std::optional<UrlRecord>>> GrpcFrontierClient::LookupUrls(
    const std::vector<std::string>& canonical_urls) {
  std::vector<std::optional<UrlRecord>> records;
  records.reserve(canonical_urls.size());
  for (size_t begin = 0; begin < canonical_urls.size(); begin += kMaxLookupUrls) {
    const size_t end = std::min(canonical_urls.size(), begin + kMaxLookupUrls);
    const std::vector<std::string> chunk(canonical_urls.begin() + begin,
                                         canonical_urls.begin() + end);
    absl::StatusOr<v1::LookupUrlsResponse> response =
        Call(*stub_, &v1::Frontier::Stub::LookupUrls, options_.deadline,
             ToLookupUrlsRequest(collection_, chunk));
    if (!response.ok()) return response.status();
    absl::StatusOr<std::vector<std::optional<UrlRecord>>> got = FromLookupUrlsResponse(*response);
    if (!got.ok()) return got.status();
    if (got->size() != chunk.size()) {
      return absl::InternalError("LookupUrls: the frontier answered for another number of URLs");
    }
    for (std::optional<UrlRecord>& record : *got) records.push_back(std::move(record));
  }
  return records;
}

absl::StatusOr<RevisitStatus> GrpcFrontierClient::GetRevisitStatus() {
  v1::GetRevisitStatusRequest request;
  request.set_collection(collection_);
  absl::StatusOr<v1::GetRevisitStatusResponse> response =
      Call(*stub_, &v1::Frontier::Stub::GetRevisitStatus, options_.deadline, request);
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::Status GrpcFrontierClient::RetuneRevisits(const recrawl::FleetSummary& fleet) {
  return Call(*stub_, &v1::Frontier::Stub::RetuneRevisits, options_.deadline,
              ToRetuneRevisitsRequest(collection_, fleet))
      .status();
}

// ---- A reshard's moves -----------------------------------------------------------------

namespace {

uint32_t PageSize(size_t n) { return static_cast<uint32_t>(std::min<size_t>(n, 10000)); }

}  // namespace

absl::StatusOr<HostsToMove> GrpcFrontierClient::ListHostsToMove(uint64_t after,
                                                                size_t max_hosts) {
  v1::ListHostsToMoveRequest request;
  request.set_collection(collection_);
  request.set_after(after);
  request.set_page_size(PageSize(max_hosts));
  absl::StatusOr<v1::ListHostsToMoveResponse> response =
      Call(*stub_, &v1::Frontier::Stub::ListHostsToMove, options_.deadline, request);
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::StatusOr<uint32_t> GrpcFrontierClient::BeginHostMove(const std::string& host_key) {
  v1::BeginHostMoveRequest request;
  request.set_collection(collection_);
  request.set_host_key(host_key);
  absl::StatusOr<v1::BeginHostMoveResponse> response =
      Call(*stub_, &v1::Frontier::Stub::BeginHostMove, options_.deadline, request);
  if (!response.ok()) return response.status();
  return response->leased();
}

absl::StatusOr<HostChunk> GrpcFrontierClient::ExportHost(const std::string& host_key,
                                                         const std::string& after,
                                                         size_t max_urls) {
  v1::ExportHostRequest request;
  request.set_collection(collection_);
  request.set_host_key(host_key);
  request.set_after(after);
  request.set_max_urls(PageSize(max_urls));
  absl::StatusOr<v1::HostChunk> response =
      Call(*stub_, &v1::Frontier::Stub::ExportHost, options_.deadline, request);
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::Status GrpcFrontierClient::ImportHost(const HostChunk& chunk) {
  v1::ImportHostRequest request;
  request.set_collection(collection_);
  *request.mutable_chunk() = ToProto(chunk);
  absl::StatusOr<v1::ImportHostResponse> response =
      Call(*stub_, &v1::Frontier::Stub::ImportHost, options_.deadline, request);
  if (!response.ok()) return response.status();
  if (response->already_here()) {
    return absl::AlreadyExistsError(absl::StrCat("the partition holds host ", chunk.host_key));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> GrpcFrontierClient::ForgetHost(const std::string& host_key) {
  v1::ForgetHostRequest request;
  request.set_collection(collection_);
  request.set_host_key(host_key);
  absl::StatusOr<v1::ForgetHostResponse> response =
      Call(*stub_, &v1::Frontier::Stub::ForgetHost, options_.deadline, request);
  if (!response.ok()) return response.status();
  return response->urls_deleted();
}

absl::StatusOr<HeldUrls> GrpcFrontierClient::ListHeldUrls(uint64_t after, size_t max_urls) {
  v1::ListHeldUrlsRequest request;
  request.set_collection(collection_);
  request.set_after(after);
  request.set_page_size(PageSize(max_urls));
  absl::StatusOr<v1::ListHeldUrlsResponse> response =
      Call(*stub_, &v1::Frontier::Stub::ListHeldUrls, options_.deadline, request);
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::Status GrpcFrontierClient::DeleteHeldUrls(const std::vector<uint64_t>& seqs) {
  v1::DeleteHeldUrlsRequest request;
  request.set_collection(collection_);
  for (const uint64_t seq : seqs) request.add_seqs(seq);
  return Call(*stub_, &v1::Frontier::Stub::DeleteHeldUrls, options_.deadline, request).status();
}

FrontierControlClient::FrontierControlClient(std::shared_ptr<grpc::Channel> channel,
                                             const GrpcFrontierClientOptions& options)
    : options_(options), stub_(v1::Frontier::NewStub(std::move(channel))) {}

absl::StatusOr<bool> FrontierControlClient::OpenCollection(
    const CollectionSettings& collection, const partition::PartitionLayout& layout) {
  absl::StatusOr<v1::OpenCollectionResponse> response =
      Call(*stub_, &v1::Frontier::Stub::OpenCollection, options_.deadline,
           ToOpenCollectionRequest(OpenCollectionArgs::With(collection, layout)));
  if (!response.ok()) return response.status();
  return response->changed();
}

absl::StatusOr<bool> FrontierControlClient::DropCollection(std::string_view name) {
  v1::DropCollectionRequest request;
  request.set_name(std::string(name));
  absl::StatusOr<v1::DropCollectionResponse> response =
      Call(*stub_, &v1::Frontier::Stub::DropCollection, options_.deadline, request);
  if (!response.ok()) return response.status();
  return response->dropped();
}

absl::StatusOr<FetcherControlTable> GrpcFrontierClient::HostControls(uint64_t known_version) {
  v1::GetHostControlsRequest request;
  request.set_collection(collection_);
  request.set_known_version(known_version);
  absl::StatusOr<v1::GetHostControlsResponse> response = Call(
      *stub_, &v1::Frontier::Stub::GetHostControls, options_.deadline, Stamped(request));
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::StatusOr<ListHostsResult> GrpcFrontierClient::ListHosts(const ListHostsRequest& request) {
  absl::StatusOr<v1::ListHostsResponse> response = Call(
      *stub_, &v1::Frontier::Stub::ListHosts, options_.deadline, ToProto(collection_, request));
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::StatusOr<HostDetail> GrpcFrontierClient::GetHost(const std::string& host_key) {
  v1::GetHostRequest request;
  request.set_collection(collection_);
  request.set_host_key(host_key);
  absl::StatusOr<v1::GetHostResponse> response =
      Call(*stub_, &v1::Frontier::Stub::GetHost, options_.deadline, request);
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::StatusOr<HostChangeResult> GrpcFrontierClient::ControlHost(
    const std::string& host_key, const HostControlChange& change) {
  absl::StatusOr<v1::ControlHostResponse> response =
      Call(*stub_, &v1::Frontier::Stub::ControlHost, options_.deadline,
           ToProto(collection_, host_key, change));
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::StatusOr<HostChangeResult> GrpcFrontierClient::DropHostQueue(const std::string& host_key) {
  v1::DropHostQueueRequest request;
  request.set_collection(collection_);
  request.set_host_key(host_key);
  absl::StatusOr<v1::DropHostQueueResponse> response =
      Call(*stub_, &v1::Frontier::Stub::DropHostQueue, options_.deadline, request);
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

absl::StatusOr<ListHostUrlsResult> GrpcFrontierClient::ListHostUrls(
    const ListHostUrlsRequest& request) {
  absl::StatusOr<v1::ListHostUrlsResponse> response = Call(
      *stub_, &v1::Frontier::Stub::ListHostUrls, options_.deadline, ToProto(collection_, request));
  if (!response.ok()) return response.status();
  return FromProto(*response);
}

}  // namespace crawler::frontier
