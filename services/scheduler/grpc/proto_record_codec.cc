#include "services/scheduler/grpc/proto_record_codec.h"

#include "crawler/v1/scheduler.pb.h"
#include "services/scheduler/grpc/scheduler_convert.h"

namespace crawler::scheduler {

std::string ProtoRecordCodec::EncodeCollection(const StoredCollection& record) const {
  return ToProto(record).SerializeAsString();
}

absl::StatusOr<StoredCollection> ProtoRecordCodec::DecodeCollection(std::string_view bytes) const {
  v1::StoredCollection p;
  if (!p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("not a collection record");
  }
  return FromProto(p);
}

std::string ProtoRecordCodec::EncodeReport(const FetcherReport& report) const {
  return ToProto(report).SerializeAsString();
}

absl::StatusOr<FetcherReport> ProtoRecordCodec::DecodeReport(std::string_view bytes) const {
  v1::ReportFetcherStatsRequest p;
  if (!p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("not a fetcher report");
  }
  return FromProto(p);
}

}  // namespace crawler::scheduler
