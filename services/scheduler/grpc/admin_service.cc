#include "services/scheduler/grpc/admin_service.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/field_mask_util.h"
#include "services/collections/grpc/collection_convert.h"
#include "services/common/grpc/proto_convert.h"
#include "services/common/grpc/status.h"
#include "services/frontier/grpc/host_convert.h"
#include "services/scheduler/grpc/scheduler_convert.h"

namespace crawler::scheduler {
namespace {

constexpr size_t kMaxSeedsPerMessage = 10'000;
constexpr size_t kMaxRejectedSamples = 100;

grpc::Status ToGrpc(const absl::Status& status) { return grpc_common::ToGrpcStatus(status); }

template <typename T, typename Message>
grpc::Status Answer(absl::StatusOr<T> result, Message* response) {
  if (!result.ok()) return ToGrpc(result.status());
  *response = ToProto(*result);
  return grpc::Status::OK;
}

// `current` with the fields of `request` that `mask` names (empty: every field but name and
// seeds). The name and the seeds cannot change (seeds: AddSeeds).
absl::StatusOr<collections::Collection> Merge(const v1::Collection& request,
                                              const google::protobuf::FieldMask& mask,
                                              const collections::Collection& current) {
  v1::Collection merged = collections::ToProto(current);
  if (mask.paths_size() == 0) {
    v1::Collection replacement = request;
    *replacement.mutable_seeds() = merged.seeds();
    merged = std::move(replacement);
  } else {
    for (const std::string& path : mask.paths()) {
      if (path == "name" || path == "seeds") {
        return grpc_common::InvalidField(
            "update_mask", absl::StrCat("'", path, "' cannot change (seeds: use AddSeeds)"));
      }
    }
    if (!google::protobuf::util::FieldMaskUtil::IsValidFieldMask<v1::Collection>(mask)) {
      return grpc_common::InvalidField("update_mask", "names a field Collection does not have");
    }
    google::protobuf::util::FieldMaskUtil::MergeOptions merge;
    merge.set_replace_message_fields(true);
    merge.set_replace_repeated_fields(true);
    google::protobuf::util::FieldMaskUtil::MergeMessageTo(request, mask, merge, &merged);
  }
  return collections::FromProto(merged, "collection");
}

}  // namespace

AdminService::AdminService(CollectionManager& manager, std::string token, const Clock& clock,
                           Logger log)
    : manager_(manager),
      clock_(clock),
      auth_({.service = "admin API", .token = std::move(token)}, clock, std::move(log)) {}

grpc::Status AdminService::CreateCollection(grpc::ServerContext* context,
                                            const v1::CreateCollectionRequest* request,
                                            v1::CollectionInfo* response) {
  if (grpc::Status s = auth_.Check(*context, "CreateCollection"); !s.ok()) return s;
  absl::StatusOr<collections::Collection> collection =
      collections::FromProto(request->collection(), "collection");
  if (!collection.ok()) return ToGrpc(collection.status());
  return Answer(manager_.Create(*std::move(collection)), response);
}

grpc::Status AdminService::UpdateCollection(grpc::ServerContext* context,
                                            const v1::UpdateCollectionRequest* request,
                                            v1::CollectionInfo* response) {
  if (grpc::Status s = auth_.Check(*context, "UpdateCollection"); !s.ok()) return s;
  const v1::Collection& wanted = request->collection();
  const google::protobuf::FieldMask& mask = request->update_mask();
  return Answer(manager_.Update(wanted.name(),
                                [&](const collections::Collection& current) {
                                  return Merge(wanted, mask, current);
                                }),
                response);
}

grpc::Status AdminService::GetCollection(grpc::ServerContext* context,
                                         const v1::GetCollectionRequest* request,
                                         v1::CollectionInfo* response) {
  if (grpc::Status s = auth_.Check(*context, "GetCollection"); !s.ok()) return s;
  return Answer(manager_.Get(request->name()), response);
}

grpc::Status AdminService::ListCollections(grpc::ServerContext* context,
                                           const v1::ListCollectionsRequest* request,
                                           v1::ListCollectionsResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "ListCollections"); !s.ok()) return s;
  auto page = manager_.List(request->page_size(), request->page_token());
  if (!page.ok()) return ToGrpc(page.status());
  for (const CollectionInfo& info : page->first) *response->add_collections() = ToProto(info);
  response->set_next_page_token(page->second);
  return grpc::Status::OK;
}

grpc::Status AdminService::PauseCollection(grpc::ServerContext* context,
                                           const v1::PauseCollectionRequest* request,
                                           v1::CollectionInfo* response) {
  if (grpc::Status s = auth_.Check(*context, "PauseCollection"); !s.ok()) return s;
  return Answer(manager_.Pause(request->name()), response);
}

grpc::Status AdminService::ResumeCollection(grpc::ServerContext* context,
                                            const v1::ResumeCollectionRequest* request,
                                            v1::CollectionInfo* response) {
  if (grpc::Status s = auth_.Check(*context, "ResumeCollection"); !s.ok()) return s;
  return Answer(manager_.Resume(request->name()), response);
}

grpc::Status AdminService::DeleteCollection(grpc::ServerContext* context,
                                            const v1::DeleteCollectionRequest* request,
                                            v1::DeleteCollectionResponse*) {
  if (grpc::Status s = auth_.Check(*context, "DeleteCollection"); !s.ok()) return s;
  return ToGrpc(manager_.Delete(request->name()));
}

// Seeds are fed message by message as they arrive (each at most 10,000), so a stream of any
// length holds one message's seeds in memory at a time.
grpc::Status AdminService::AddSeeds(grpc::ServerContext* context,
                                    grpc::ServerReader<v1::AddSeedsRequest>* reader,
                                    v1::AddSeedsResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "AddSeeds"); !s.ok()) return s;
  std::string collection;
  v1::AddSeedsRequest message;
  while (reader->Read(&message)) {
    if (collection.empty()) {
      if (message.collection().empty()) {
        return ToGrpc(grpc_common::InvalidField("collection", "required in the first message"));
      }
      collection = message.collection();
    } else if (!message.collection().empty() && message.collection() != collection) {
      return ToGrpc(grpc_common::InvalidField(
          "collection", absl::StrCat("changed within the stream from '", collection, "' to '",
                                     message.collection(), "'")));
    }
    if (static_cast<size_t>(message.seeds_size()) > kMaxSeedsPerMessage) {
      return ToGrpc(grpc_common::InvalidField(
          "seeds", absl::StrCat("at most ", kMaxSeedsPerMessage, " per message, got ",
                                message.seeds_size())));
    }
    if (message.seeds_size() == 0) continue;
    const std::vector<std::string> seeds(message.seeds().begin(), message.seeds().end());
    absl::StatusOr<SeedReport> report = manager_.AddSeeds(collection, seeds, message.sitemaps());
    if (!report.ok()) return ToGrpc(report.status());
    response->set_seeds(response->seeds() + report->seeds);
    response->set_queued(response->queued() + report->queued);
    response->set_already_seen(response->already_seen() + report->already_seen);
    response->set_rejected(response->rejected() + report->rejected.size());
    for (const std::string& rejected : report->rejected) {
      if (static_cast<size_t>(response->rejected_samples_size()) >= kMaxRejectedSamples) break;
      response->add_rejected_samples(rejected);
    }
  }
  if (collection.empty()) {
    return ToGrpc(grpc_common::InvalidField("collection", "the stream named no collection"));
  }
  return grpc::Status::OK;
}

grpc::Status AdminService::GetCollectionStats(grpc::ServerContext* context,
                                              const v1::GetCollectionStatsRequest* request,
                                              v1::CollectionStats* response) {
  if (grpc::Status s = auth_.Check(*context, "GetCollectionStats"); !s.ok()) return s;
  return Answer(manager_.Stats(request->name()), response);
}

grpc::Status AdminService::ExplainUrl(grpc::ServerContext* context,
                                      const v1::ExplainUrlRequest* request,
                                      v1::ExplainUrlResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "ExplainUrl"); !s.ok()) return s;
  const std::vector<std::string> urls(request->urls().begin(), request->urls().end());
  return Answer(manager_.Explain(request->collection(), urls), response);
}

grpc::Status AdminService::ListHosts(grpc::ServerContext* context,
                                     const v1::ListHostsRequest* request,
                                     v1::ListHostsResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "ListHosts"); !s.ok()) return s;
  absl::StatusOr<frontier::ListHostsRequest> args = frontier::FromProto(*request);
  if (!args.ok()) return ToGrpc(args.status());
  absl::StatusOr<frontier::ListHostsResult> result =
      manager_.ListHosts(request->collection(), *args);
  if (!result.ok()) return ToGrpc(result.status());
  *response = frontier::ToProto(*result);
  return grpc::Status::OK;
}

grpc::Status AdminService::GetHost(grpc::ServerContext* context,
                                   const v1::GetHostRequest* request,
                                   v1::GetHostResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "GetHost"); !s.ok()) return s;
  absl::StatusOr<frontier::HostDetail> detail =
      manager_.GetHost(request->collection(), request->host_key());
  if (!detail.ok()) return ToGrpc(detail.status());
  *response = frontier::ToProto(*detail);
  return grpc::Status::OK;
}

grpc::Status AdminService::ControlHost(grpc::ServerContext* context,
                                       const v1::ControlHostRequest* request,
                                       v1::ControlHostResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "ControlHost"); !s.ok()) return s;
  absl::StatusOr<std::pair<std::string, frontier::HostControlChange>> change =
      frontier::FromProto(*request);
  if (!change.ok()) return ToGrpc(change.status());
  absl::StatusOr<frontier::HostChangeResult> result =
      manager_.ControlHost(request->collection(), change->first, change->second);
  if (!result.ok()) return ToGrpc(result.status());
  *response = frontier::ToControlHostResponse(*result);
  return grpc::Status::OK;
}

grpc::Status AdminService::DropHostQueue(grpc::ServerContext* context,
                                         const v1::DropHostQueueRequest* request,
                                         v1::DropHostQueueResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "DropHostQueue"); !s.ok()) return s;
  absl::StatusOr<frontier::HostChangeResult> result =
      manager_.DropHostQueue(request->collection(), request->host_key());
  if (!result.ok()) return ToGrpc(result.status());
  *response = frontier::ToDropHostQueueResponse(*result);
  return grpc::Status::OK;
}

grpc::Status AdminService::GetPartitions(grpc::ServerContext* context,
                                         const v1::GetPartitionsRequest* /*request*/,
                                         v1::PartitionsStatus* response) {
  if (grpc::Status s = auth_.Check(*context, "GetPartitions"); !s.ok()) return s;
  ReshardStatus status;
  if (resharder_ != nullptr) {
    status = resharder_->Status();
  } else {
    status.layout = manager_.Layout();
  }
  response->set_epoch(status.layout.epoch);
  response->set_partition_count(status.layout.count);
  response->set_reshard_to(status.layout.reshard_to);
  response->set_resharded_from(status.layout.resharded_from);
  response->set_phase(PhaseName(status.phase));
  response->set_blocked_reason(status.blocked_reason);
  response->set_from(status.from);
  response->set_to(status.to);
  if (status.started != absl::InfinitePast()) {
    *response->mutable_started() = grpc_common::TimeToProto(status.started);
  }
  if (status.flipped != absl::InfinitePast()) {
    *response->mutable_flipped() = grpc_common::TimeToProto(status.flipped);
  }
  if (status.finished != absl::InfinitePast()) {
    *response->mutable_finished() = grpc_common::TimeToProto(status.finished);
  }
  response->set_hosts_moved(status.hosts_moved);
  response->set_urls_moved(status.urls_moved);
  response->set_held_delivered(status.held_delivered);
  response->set_hosts_left(status.hosts_left);
  response->set_held_urls(status.held_urls);
  response->set_partitions_unreachable(status.partitions_unreachable);
  if (status.started != absl::InfinitePast()) {
    const absl::Time end = status.flipped != absl::InfinitePast() ? status.flipped : clock_.Now();
    const double seconds = absl::ToDoubleSeconds(end - status.started);
    if (seconds > 0) response->set_hosts_per_second(status.hosts_moved / seconds);
  }
  return grpc::Status::OK;
}

grpc::Status AdminService::ListHostUrls(grpc::ServerContext* context,
                                        const v1::ListHostUrlsRequest* request,
                                        v1::ListHostUrlsResponse* response) {
  if (grpc::Status s = auth_.Check(*context, "ListHostUrls"); !s.ok()) return s;
  absl::StatusOr<frontier::ListHostUrlsRequest> args = frontier::FromProto(*request);
  if (!args.ok()) return ToGrpc(args.status());
  absl::StatusOr<frontier::ListHostUrlsResult> result =
      manager_.ListHostUrls(request->collection(), *args);
  if (!result.ok()) return ToGrpc(result.status());
  *response = frontier::ToProto(*result);
  return grpc::Status::OK;
}

SchedulerInternalService::SchedulerInternalService(CollectionManager& manager,
                                                   absl::Duration report_interval,
                                                   FetcherDirectory* fetchers,
                                                   grpc_common::CallAuth* auth)
    : manager_(manager), report_interval_(report_interval), fetchers_(fetchers), auth_(auth) {}

grpc::Status SchedulerInternalService::ReportFetcherStats(
    grpc::ServerContext* context, const v1::ReportFetcherStatsRequest* request,
    v1::ReportFetcherStatsResponse* response) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->Check(*context, "ReportFetcherStats"); !s.ok()) return s;
  }
  absl::StatusOr<FetcherReport> report = FromProto(*request);
  if (!report.ok()) return ToGrpc(report.status());
  if (fetchers_ != nullptr) {
    fetchers_->Note(
        report->archive_volume.empty() ? report->incarnation : report->archive_volume,
        report->partition, FetcherAddress(report->archive_address, context->peer()));
  }
  absl::StatusOr<std::vector<FetcherCollection>> live = manager_.TakeReport(*report);
  if (!live.ok()) return ToGrpc(live.status());
  *response = ToProto(FetcherReportReply{.collections = *std::move(live),
                                         .report_interval = report_interval_,
                                         .layout = manager_.Layout()});
  return grpc::Status::OK;
}

}  // namespace crawler::scheduler
