#include "services/scheduler/grpc/admin_service.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/grpc/proto_convert.h"
#include "services/common/grpc/status.h"

namespace crawler::scheduler {
namespace {

constexpr size_t kMaxSeedsPerMessage = 10'000;
constexpr size_t kMaxRejectedSamples = 100;

grpc::Status ToGrpc(const absl::Status& status) { return grpc_common::ToGrpcStatus(status); }

template <typename T, typename Message>
grpc::Status Answer(absl::StatusOr<T> result, Message* response) {
  if (!result.ok()) return ToGrpc(result.status());
  *response = *std::move(result);
  return grpc::Status::OK;
}

}  // namespace

AdminService::AdminService(CollectionManager& manager, std::string token, const Clock& clock)
    : manager_(manager),
      auth_({.service = "scheduler (admin API)", .token = std::move(token)}, clock) {}

grpc::Status AdminService::CreateCollection(grpc::ServerContext* context,
                                            const v1::CreateCollectionRequest* request,
                                            v1::CollectionInfo* response) {
  if (grpc::Status s = auth_.Check(*context, "CreateCollection"); !s.ok()) return s;
  return Answer(manager_.Create(request->collection()), response);
}

grpc::Status AdminService::UpdateCollection(grpc::ServerContext* context,
                                            const v1::UpdateCollectionRequest* request,
                                            v1::CollectionInfo* response) {
  if (grpc::Status s = auth_.Check(*context, "UpdateCollection"); !s.ok()) return s;
  return Answer(manager_.Update(request->collection(), request->update_mask()), response);
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
  for (v1::CollectionInfo& info : page->first) *response->add_collections() = std::move(info);
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
    absl::StatusOr<SeedReport> report = manager_.AddSeeds(collection, seeds);
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

SchedulerInternalService::SchedulerInternalService(CollectionManager& manager,
                                                   absl::Duration report_interval,
                                                   grpc_common::CallAuth* auth)
    : manager_(manager), report_interval_(report_interval), auth_(auth) {}

grpc::Status SchedulerInternalService::ReportFetcherStats(
    grpc::ServerContext* context, const v1::ReportFetcherStatsRequest* request,
    v1::ReportFetcherStatsResponse* response) {
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->Check(*context, "ReportFetcherStats"); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<v1::FetcherCollection>> live = manager_.FetcherReport(*request);
  if (!live.ok()) return ToGrpc(live.status());
  for (v1::FetcherCollection& c : *live) *response->add_collections() = std::move(c);
  *response->mutable_report_interval() = grpc_common::DurationToProto(report_interval_);
  return grpc::Status::OK;
}

}  // namespace crawler::scheduler
