// FrontierClient: the frontier as its callers (fetchers, the scheduler) see it. Standalone, the
// core in this process (LocalFrontierClient below); distributed, a gRPC stub. Every call carries
// a batch (DESIGN.md §2.4).
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_CLIENT_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_CLIENT_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/frontier/frontier.h"

namespace crawler::frontier {

class FrontierClient {
 public:
  virtual ~FrontierClient() = default;
  virtual absl::StatusOr<std::vector<LeasedTask>> Lease(size_t max_urls, size_t max_per_host) = 0;
  virtual absl::Status Complete(const std::vector<FetchOutcome>& outcomes) = 0;
  virtual absl::StatusOr<AddResult> AddUrls(const std::vector<UrlToAdd>& urls) = 0;
  // True when nothing is queued or leased anywhere: the crawl is over.
  virtual bool IsExhausted() = 0;
  // The re-visit side (Frontier::GetRevisitStatus / RetuneRevisits), for the scheduler.
  virtual absl::StatusOr<RevisitStatus> GetRevisitStatus() = 0;
  virtual absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) = 0;
};

class LocalFrontierClient final : public FrontierClient {
 public:
  // `frontier` must outlive this object.
  explicit LocalFrontierClient(Frontier& frontier) : frontier_(frontier) {}
  absl::StatusOr<std::vector<LeasedTask>> Lease(size_t max_urls, size_t max_per_host) override {
    return frontier_.Lease(max_urls, max_per_host);
  }
  absl::Status Complete(const std::vector<FetchOutcome>& outcomes) override {
    return frontier_.Complete(outcomes).status();
  }
  absl::StatusOr<AddResult> AddUrls(const std::vector<UrlToAdd>& urls) override {
    return frontier_.AddUrls(urls);
  }
  bool IsExhausted() override { return frontier_.IsExhausted(); }
  absl::StatusOr<RevisitStatus> GetRevisitStatus() override {
    return frontier_.GetRevisitStatus();
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override {
    return frontier_.RetuneRevisits(fleet);
  }

 private:
  Frontier& frontier_;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_CLIENT_H_
