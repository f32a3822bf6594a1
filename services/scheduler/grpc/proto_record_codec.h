// ProtoRecordCodec: the scheduler's records on disk as their crawler.v1 messages: a collection's
// record as a serialized StoredCollection, a fetcher's report as a serialized
// ReportFetcherStatsRequest (proto/crawler/v1/scheduler.proto). The format of every scheduler
// store and every report a fetcher kept; protobuf's rules for adding fields keep it readable
// across versions.
//
// Thread-safety: stateless.
#ifndef CRAWLER_SERVICES_SCHEDULER_GRPC_PROTO_RECORD_CODEC_H_
#define CRAWLER_SERVICES_SCHEDULER_GRPC_PROTO_RECORD_CODEC_H_

#include <string>
#include <string_view>

#include "services/scheduler/record_codec.h"

namespace crawler::scheduler {

class ProtoRecordCodec final : public RecordCodec {
 public:
  std::string EncodeCollection(const StoredCollection& record) const override;
  absl::StatusOr<StoredCollection> DecodeCollection(std::string_view bytes) const override;
  std::string EncodeReport(const FetcherReport& report) const override;
  absl::StatusOr<FetcherReport> DecodeReport(std::string_view bytes) const override;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_GRPC_PROTO_RECORD_CODEC_H_
