// RecordCodec: the bytes of the scheduler's records on disk: a collection's record in the
// scheduler's store, and a fetcher's report (in the scheduler's store, and kept by a fetcher on
// its own disk until the scheduler has taken it). This is an on-disk format, and the cores do not
// know it: the gRPC layer writes each record as its crawler.v1 message (ProtoRecordCodec,
// services/scheduler/grpc/proto_record_codec.h: StoredCollection, ReportFetcherStatsRequest), the
// format every existing store and kept report holds.
//
// Thread-safety: implementations are stateless and thread-safe.
#ifndef CRAWLER_SERVICES_SCHEDULER_RECORD_CODEC_H_
#define CRAWLER_SERVICES_SCHEDULER_RECORD_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "services/scheduler/scheduler_api.h"

namespace crawler::scheduler {

class RecordCodec {
 public:
  virtual ~RecordCodec() = default;

  virtual std::string EncodeCollection(const StoredCollection& record) const = 0;
  // kDataLoss for bytes that are not a collection record; kInvalidArgument (naming the field)
  // for a record whose collection this build no longer accepts.
  virtual absl::StatusOr<StoredCollection> DecodeCollection(std::string_view bytes) const = 0;

  virtual std::string EncodeReport(const FetcherReport& report) const = 0;
  // kDataLoss for bytes that are not a fetcher report.
  virtual absl::StatusOr<FetcherReport> DecodeReport(std::string_view bytes) const = 0;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_RECORD_CODEC_H_
