// Test-only decorators that make a FrontierClient or DedupClient fail the way a remote one does:
// every Nth call (counting all methods) returns kUnavailable without reaching the wrapped
// client, so nothing of that call happens. Thread-safe.
#ifndef CRAWLER_TESTS_UNIT_FRONTIER_FLAKY_CLIENTS_H_
#define CRAWLER_TESTS_UNIT_FRONTIER_FLAKY_CLIENTS_H_

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "services/dedup/dedup_client.h"
#include "services/frontier/frontier_client.h"

namespace crawler::testing {

// Counts calls; Fail() is true for every `every`-th (never with every == 0).
class EveryNth {
 public:
  explicit EveryNth(int every) : every_(every) {}
  bool Fail() {
    const int n = ++calls_;
    if (every_ <= 0 || n % every_ != 0) return false;
    ++failures_;
    return true;
  }
  absl::Status Error(const char* method) const {
    return absl::UnavailableError(absl::StrCat("injected outage: ", method, " call ", calls_.load()));
  }
  int calls() const { return calls_; }
  int failures() const { return failures_; }

 private:
  const int every_;
  std::atomic<int> calls_{0};
  std::atomic<int> failures_{0};
};

class FlakyFrontierClient final : public frontier::FrontierClient {
 public:
  FlakyFrontierClient(frontier::FrontierClient& inner, int every) : inner_(inner), nth_(every) {}

  absl::StatusOr<frontier::AddResult> AddUrls(const std::vector<frontier::UrlToAdd>& urls) override {
    if (nth_.Fail()) return nth_.Error("AddUrls");
    return inner_.AddUrls(urls);
  }
  absl::StatusOr<std::vector<frontier::LeasedTask>> Lease(size_t max_urls,
                                                         size_t max_per_host) override {
    if (nth_.Fail()) return nth_.Error("Lease");
    return inner_.Lease(max_urls, max_per_host);
  }
  absl::StatusOr<frontier::CompleteResult> Complete(
      const std::vector<frontier::FetchOutcome>& outcomes) override {
    if (nth_.Fail()) return nth_.Error("Complete");
    return inner_.Complete(outcomes);
  }
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<frontier::LeaseId>& ids) override {
    if (nth_.Fail()) return nth_.Error("ReleaseLeases");
    return inner_.ReleaseLeases(ids);
  }
  // Not flaky: a failed poll of the control table is no frontier error (FrontierLink keeps the
  // table it has), so it would not show in the counters the tests compare with failures().
  absl::StatusOr<frontier::FetcherControlTable> HostControls(uint64_t known) override {
    return inner_.HostControls(known);
  }
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<frontier::HostTime>& times) override {
    if (nth_.Fail()) return nth_.Error("ReportHostTimes");
    return inner_.ReportHostTimes(times);
  }
  absl::StatusOr<bool> IsExhausted() override {
    if (nth_.Fail()) return nth_.Error("IsExhausted");
    return inner_.IsExhausted();
  }
  absl::StatusOr<frontier::FrontierStats> Stats() override {
    if (nth_.Fail()) return nth_.Error("Stats");
    return inner_.Stats();
  }
  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> LookupUrls(
      const std::vector<std::string>& urls) override {
    if (nth_.Fail()) return nth_.Error("LookupUrls");
    return inner_.LookupUrls(urls);
  }
  absl::StatusOr<frontier::RevisitStatus> GetRevisitStatus() override {
    if (nth_.Fail()) return nth_.Error("GetRevisitStatus");
    return inner_.GetRevisitStatus();
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override {
    if (nth_.Fail()) return nth_.Error("RetuneRevisits");
    return inner_.RetuneRevisits(fleet);
  }

  int calls() const { return nth_.calls(); }
  int failures() const { return nth_.failures(); }

 private:
  frontier::FrontierClient& inner_;
  EveryNth nth_;
};

class FlakyDedupClient final : public dedup::DedupClient {
 public:
  FlakyDedupClient(dedup::DedupClient& inner, int every) : inner_(inner), nth_(every) {}
  absl::StatusOr<std::vector<dedup::ContentVerdict>> Check(
      const std::vector<dedup::ContentQuery>& queries) override {
    if (nth_.Fail()) return nth_.Error("Check");
    return inner_.Check(queries);
  }
  absl::StatusOr<size_t> Record(const std::vector<dedup::ContentQuery>& queries) override {
    if (nth_.Fail()) return nth_.Error("Record");
    return inner_.Record(queries);
  }
  absl::StatusOr<std::vector<bool>> MarkLinksSeen(std::string_view collection,
                                                  const std::vector<std::string>& keys) override {
    if (nth_.Fail()) return nth_.Error("MarkLinksSeen");
    return inner_.MarkLinksSeen(collection, keys);
  }
  int failures() const { return nth_.failures(); }

 private:
  dedup::DedupClient& inner_;
  EveryNth nth_;
};

}  // namespace crawler::testing

#endif  // CRAWLER_TESTS_UNIT_FRONTIER_FLAKY_CLIENTS_H_
