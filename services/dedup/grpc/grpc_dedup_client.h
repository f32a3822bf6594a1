// GrpcDedupClient: the DedupClient of a fetcher in another process than the content index: each
// call is one crawler.v1.Dedup RPC (a batch larger than kMaxQueriesPerCall is split into several,
// in order) with a deadline of its own, so an index that is down or stalled costs the caller at
// most `call_timeout` per RPC: kUnavailable (nothing listening, connection refused or lost) or
// kDeadlineExceeded (no answer in time). Server errors keep their code (status.h); an answer
// that does not decode, or holds a verdict count other than the query count, is kInternal.
// The caller (PageProcessor) archives in full what it could not check.
//
// Calls do not wait for the channel to connect (gRPC's fail-fast default): while the index is
// unreachable they fail at once rather than queue, and the channel reconnects by itself.
//
// Thread-safety: thread-safe (grpc stubs and channels are). The channel is shared.
#ifndef CRAWLER_SERVICES_DEDUP_GRPC_GRPC_DEDUP_CLIENT_H_
#define CRAWLER_SERVICES_DEDUP_GRPC_GRPC_DEDUP_CLIENT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/v1/dedup.grpc.pb.h"
#include "grpcpp/channel.h"
#include "services/dedup/dedup_client.h"

namespace crawler::dedup {

struct GrpcDedupClientOptions {
  // Deadline of each RPC. A Check of a worker batch (16 pages) takes the index a few
  // milliseconds; the bound is what a fetcher worker may lose per batch while the index is
  // stalled, so it is short.
  absl::Duration call_timeout = absl::Seconds(2);
};

class GrpcDedupClient final : public DedupClient {
 public:
  // REQUIRES: `channel` non-null (services/common/grpc/channel.h MakeChannel).
  explicit GrpcDedupClient(std::shared_ptr<grpc::Channel> channel,
                           GrpcDedupClientOptions options = {});

  absl::StatusOr<std::vector<ContentVerdict>> Check(
      const std::vector<ContentQuery>& queries) override;
  absl::StatusOr<size_t> Record(const std::vector<ContentQuery>& queries) override;
  absl::StatusOr<std::vector<bool>> MarkLinksSeen(std::string_view collection,
                                                  const std::vector<std::string>& keys) override;

 private:
  const GrpcDedupClientOptions options_;
  std::unique_ptr<v1::Dedup::Stub> stub_;
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_GRPC_GRPC_DEDUP_CLIENT_H_
