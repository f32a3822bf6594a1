// Conversion between the frontier's API types (services/frontier/frontier_api.h, url_record.h,
// lib/recrawl's FleetSummary) and their crawler.v1 messages (proto/crawler/v1/frontier.proto,
// common.proto): the only code that knows both. The frontier's gRPC handlers and its gRPC
// client use it; the core never sees a proto.
//
// Encoding (To*) cannot fail: every domain value has a wire form. Decoding (From*) checks what
// the wire cannot: enums out of range or UNSPECIFIED where a value is required, malformed or
// negative times and durations, missing required fields (collection, lease_id, deadline...),
// integers wider than their domain field (priority <= 255), an undecodable rate histogram. It
// returns kInvalidArgument naming the field path ("outcomes[2].outcome: ..."). Semantic checks
// stay with the domain (ValidateRevisitOptions, the frontier's own counting of invalid URLs).
// Time conventions: services/common/grpc/proto_convert.h.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_CONVERT_H_
#define CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_CONVERT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/v1/common.pb.h"
#include "crawler/v1/frontier.pb.h"
#include "lib/partition/layout.h"
#include "lib/recrawl/rate_histogram.h"
#include "lib/recrawl/rate_prior.h"
#include "lib/recrawl/revisit_policy.h"
#include "services/collections/grpc/revisit_convert.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

// Enums. Decoding rejects UNSPECIFIED and values this build does not know.
v1::OutcomeClass ToProto(OutcomeClass outcome);
absl::StatusOr<OutcomeClass> FromProto(v1::OutcomeClass outcome, std::string_view field);
v1::UrlStatus ToProto(UrlStatus status);
absl::StatusOr<UrlStatus> FromProto(v1::UrlStatus status, std::string_view field);

// The re-visit options: services/collections/grpc/revisit_convert.h.
using collections::FromProto;
using collections::ToProto;

// A collection as a frontier partition runs it (Frontier.OpenCollection). Decoding requires the
// name (its syntax is checked by ValidateCollectionName, where it is used); unset optional
// limits decode to nullopt (unlimited).
v1::FrontierCollection ToProto(const CollectionSettings& collection);
absl::StatusOr<CollectionSettings> FromProto(const v1::FrontierCollection& collection,
                                             std::string_view field);

// Frontier.OpenCollection. Decoding requires the collection and partition_count >= 1.
struct OpenCollectionArgs {
  CollectionSettings collection;
  uint32_t partition_count = 0;
  // The rest of the partition layout (partition::PartitionLayout); 0 when not resharding.
  uint32_t reshard_to = 0;
  uint32_t resharded_from = 0;
  uint64_t layout_epoch = 0;

  partition::PartitionLayout Layout() const {
    return {.epoch = layout_epoch,
            .count = partition_count,
            .reshard_to = reshard_to,
            .resharded_from = resharded_from};
  }
  static OpenCollectionArgs With(const CollectionSettings& collection,
                                 const partition::PartitionLayout& layout) {
    return {.collection = collection,
            .partition_count = layout.count,
            .reshard_to = layout.reshard_to,
            .resharded_from = layout.resharded_from,
            .layout_epoch = layout.epoch};
  }

  friend bool operator==(const OpenCollectionArgs&, const OpenCollectionArgs&) = default;
};
v1::OpenCollectionRequest ToOpenCollectionRequest(const OpenCollectionArgs& args);
absl::StatusOr<OpenCollectionArgs> FromOpenCollectionRequest(
    const v1::OpenCollectionRequest& request);

// Frontier.ReleaseLeases (the reply is the count released). Decoding requires the collection;
// lease ids are not checked (unknown ones are ignored by the frontier).
v1::ReleaseLeasesRequest ToReleaseLeasesRequest(std::string_view collection,
                                                const std::vector<LeaseId>& lease_ids);
absl::StatusOr<std::vector<LeaseId>> FromReleaseLeasesRequest(
    const v1::ReleaseLeasesRequest& request);

// Frontier.AddUrls.
v1::AddUrlsRequest ToAddUrlsRequest(std::string_view collection, const std::vector<UrlToAdd>& urls);
absl::StatusOr<std::vector<UrlToAdd>> FromAddUrlsRequest(const v1::AddUrlsRequest& request);
// One URL offered to a frontier, as AddUrlsRequest and ListHeldUrlsResponse carry it; decoding
// refuses a priority over 255, a sitemap level over kMaxSitemapLevel and sitemap hints out of
// range (naming the field under `field`).
void ToProto(const UrlToAdd& url, v1::UrlToAdd& p);
absl::StatusOr<UrlToAdd> FromProto(const v1::UrlToAdd& p, std::string_view field);
v1::AddUrlsResponse ToProto(const AddResult& result);
AddResult FromProto(const v1::AddUrlsResponse& response);

// Frontier.Lease. Counts above 2^32 - 1 are sent as 2^32 - 1 (the server caps them anyway);
// decoding requires both >= 1.
struct LeaseArgs {
  size_t max_urls = 0;
  size_t max_per_host = 0;

  friend bool operator==(const LeaseArgs&, const LeaseArgs&) = default;
};
v1::LeaseRequest ToLeaseRequest(std::string_view collection, const LeaseArgs& args);
absl::StatusOr<LeaseArgs> FromLeaseRequest(const v1::LeaseRequest& request);
v1::LeaseResponse ToLeaseResponse(const std::vector<LeasedTask>& tasks);
absl::StatusOr<std::vector<LeasedTask>> FromLeaseResponse(const v1::LeaseResponse& response);

// Frontier.Complete.
v1::CompleteRequest ToCompleteRequest(std::string_view collection,
                                      const std::vector<FetchOutcome>& outcomes);
absl::StatusOr<std::vector<FetchOutcome>> FromCompleteRequest(const v1::CompleteRequest& request);
v1::CompleteResponse ToProto(const CompleteResult& result);
CompleteResult FromProto(const v1::CompleteResponse& response);

// Frontier.ReportHostTimes (the reply is the count of hosts updated).
v1::ReportHostTimesRequest ToReportHostTimesRequest(std::string_view collection,
                                                    const std::vector<HostTime>& times);
absl::StatusOr<std::vector<HostTime>> FromReportHostTimesRequest(
    const v1::ReportHostTimesRequest& request);

// Frontier.GetStats (FrontierClient::Stats and IsExhausted).
v1::FrontierStats ToProto(const FrontierStats& stats);
absl::StatusOr<FrontierStats> FromProto(const v1::FrontierStats& stats, std::string_view field);

// Frontier.LookupUrls: a record per URL, nullopt for a URL never accepted. A request carries at
// most kMaxLookupUrls URLs: every one costs the server a storage read and a record in the reply.
inline constexpr size_t kMaxLookupUrls = 1000;
v1::LookupUrlsRequest ToLookupUrlsRequest(std::string_view collection,
                                          const std::vector<std::string>& canonical_urls);
absl::StatusOr<std::vector<std::string>> FromLookupUrlsRequest(
    const v1::LookupUrlsRequest& request);
v1::UrlRecord ToProto(const UrlRecord& record);
absl::StatusOr<UrlRecord> FromProto(const v1::UrlRecord& record, std::string_view field);
v1::LookupUrlsResponse ToLookupUrlsResponse(const std::vector<std::optional<UrlRecord>>& records);
absl::StatusOr<std::vector<std::optional<UrlRecord>>> FromLookupUrlsResponse(
    const v1::LookupUrlsResponse& response);

// Frontier.GetRevisitStatus.
v1::GetRevisitStatusResponse ToProto(const RevisitStatus& status);
absl::StatusOr<RevisitStatus> FromProto(const v1::GetRevisitStatusResponse& status);

// recrawl::FleetSummary points at its histogram, prior and evidence; decoded, they need an owner.
struct FleetSummaryValue {
  double budget_visits_per_day = 0;
  int64_t page_count = 0;
  std::optional<recrawl::RateHistogram> rates;  // nullopt: FleetSummary::rates == nullptr
  double mean_rate_per_day = 0;
  std::optional<recrawl::RatePrior> prior;  // nullopt: FleetSummary::prior == nullptr
  std::optional<recrawl::FleetEvidence> evidence;  // nullopt: FleetSummary::evidence == nullptr

  // A FleetSummary that points into this value: valid while it lives and is not moved.
  recrawl::FleetSummary View() const;
};
// Frontier.RetuneRevisits.
v1::RetuneRevisitsRequest ToRetuneRevisitsRequest(std::string_view collection,
                                                  const recrawl::FleetSummary& fleet);
absl::StatusOr<FleetSummaryValue> FromRetuneRevisitsRequest(
    const v1::RetuneRevisitsRequest& request);

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_GRPC_FRONTIER_CONVERT_H_
