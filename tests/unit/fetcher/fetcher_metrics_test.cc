#include "services/fetcher/fetcher_metrics.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "services/common/metrics/snapshot_collector.h"

namespace crawler::fetcher {
namespace {

using frontier::OutcomeClass;

// The value of the sample of `name` whose labels include `labels` (counter or gauge), or -1.
double Value(const std::vector<prometheus::MetricFamily>& families, const std::string& name,
             const std::map<std::string, std::string>& labels) {
  for (const prometheus::MetricFamily& f : families) {
    if (f.name != name) continue;
    for (const prometheus::ClientMetric& m : f.metric) {
      size_t matched = 0;
      for (const prometheus::ClientMetric::Label& l : m.label) {
        auto it = labels.find(l.name);
        if (it != labels.end() && it->second == l.value) ++matched;
      }
      if (matched != labels.size()) continue;
      if (f.type == prometheus::MetricType::Counter) return m.counter.value;
      if (f.type == prometheus::MetricType::Gauge) return m.gauge.value;
      if (f.type == prometheus::MetricType::Histogram) {
        return static_cast<double>(m.histogram.sample_count);
      }
    }
  }
  return -1;
}

FetchEvent Event(int status, OutcomeClass outcome, uint64_t bytes = 0) {
  return FetchEvent{.http_status = status,
                    .bytes = bytes,
                    .duration = absl::Milliseconds(20),
                    .outcome = outcome};
}

TEST(OutcomeLabelTest, ClassesByStatusAndOutcome) {
  EXPECT_EQ(OutcomeLabelOf(Event(200, OutcomeClass::kFetched)), OutcomeLabel::kSuccess);
  EXPECT_EQ(OutcomeLabelOf(Event(200, OutcomeClass::kDuplicate)), OutcomeLabel::kSuccess);
  EXPECT_EQ(OutcomeLabelOf(Event(304, OutcomeClass::kNotModified)), OutcomeLabel::kNotModified);
  EXPECT_EQ(OutcomeLabelOf(Event(301, OutcomeClass::kRedirect)), OutcomeLabel::kRedirect);
  EXPECT_EQ(OutcomeLabelOf(Event(404, OutcomeClass::kHttpError)), OutcomeLabel::kClientError);
  EXPECT_EQ(OutcomeLabelOf(Event(503, OutcomeClass::kHttpError)), OutcomeLabel::kServerError);
  EXPECT_EQ(OutcomeLabelOf(Event(0, OutcomeClass::kNetworkError)), OutcomeLabel::kNetworkError);
  EXPECT_EQ(OutcomeLabelOf(Event(0, OutcomeClass::kRobotsDenied)), OutcomeLabel::kRobotsDenied);
  EXPECT_EQ(OutcomeLabelOf(Event(0, OutcomeClass::kOutOfScope)), OutcomeLabel::kBlocked);
}

TEST(FetcherMetricsTest, CountsPagesBytesAndDuplicatesPerCollection) {
  prometheus::Registry registry;
  FetcherMetrics metrics(registry);
  FetchObserver& a = metrics.ForCollection("a");
  EXPECT_EQ(&a, &metrics.ForCollection("a"));
  a.OnFetch(Event(200, OutcomeClass::kFetched, 100));
  FetchEvent dup = Event(200, OutcomeClass::kDuplicate, 50);
  dup.detail = "near duplicate of http://x/";
  a.OnFetch(dup);
  a.OnFetch(Event(0, OutcomeClass::kRobotsDenied));
  FetchEvent robots = Event(200, OutcomeClass::kFetched, 7);
  robots.robots_txt = true;
  a.OnFetch(robots);
  metrics.ForCollection("b").OnFetch(Event(404, OutcomeClass::kHttpError, 3));

  const std::vector<prometheus::MetricFamily> f = registry.Collect();
  EXPECT_EQ(Value(f, "crawler_fetcher_pages_total", {{"collection", "a"}, {"outcome", "success"}}),
            2);
  EXPECT_EQ(
      Value(f, "crawler_fetcher_pages_total", {{"collection", "a"}, {"outcome", "robots_denied"}}),
      1);
  EXPECT_EQ(
      Value(f, "crawler_fetcher_pages_total", {{"collection", "b"}, {"outcome", "client_error"}}),
      1);
  // robots.txt: bytes, not a page.
  EXPECT_EQ(Value(f, "crawler_fetcher_bytes_total", {{"collection", "a"}, {"outcome", "success"}}),
            157);
  EXPECT_EQ(Value(f, "crawler_fetcher_robots_denied_total", {{"collection", "a"}}), 1);
  EXPECT_EQ(Value(f, "crawler_fetcher_duplicates_total", {{"collection", "a"}, {"kind", "near"}}),
            1);
  EXPECT_EQ(Value(f, "crawler_fetcher_duplicates_total", {{"collection", "a"}, {"kind", "exact"}}),
            0);
  EXPECT_EQ(Value(f, "crawler_fetcher_fetch_duration_seconds", {{"outcome", "success"}}), 3);
}

TEST(FetcherMetricsTest, SnapshotSplitsClaimsAndExchange) {
  FetcherSnapshot s;
  s.fetcher.in_flight = 4;
  s.politeness =
      politeness::PolitenessStats{.claims = 10, .granted = 6, .unavailable = 1, .store_up = false};
  s.routing = frontier::RoutingStats{.routed = 9, .suppressed = 2, .sent = {3, 4}, .home = 1};
  metrics::SnapshotFamilies out;
  AppendFetcherSnapshot(s, out);
  const std::vector<prometheus::MetricFamily> f = out.Take();
  EXPECT_EQ(Value(f, "crawler_fetcher_transfers_in_flight", {}), 4);
  EXPECT_EQ(Value(f, "crawler_fetcher_politeness_claims_total", {{"result", "granted"}}), 6);
  EXPECT_EQ(Value(f, "crawler_fetcher_politeness_claims_total", {{"result", "refused"}}), 3);
  EXPECT_EQ(Value(f, "crawler_fetcher_politeness_claims_total", {{"result", "unavailable"}}), 1);
  EXPECT_EQ(Value(f, "crawler_fetcher_politeness_store_up", {}), 0);
  EXPECT_EQ(Value(f, "crawler_fetcher_exchange_urls_total", {{"direction", "local"}}), 4);
  EXPECT_EQ(Value(f, "crawler_fetcher_exchange_urls_total", {{"direction", "sent"}}), 3);
  EXPECT_EQ(Value(f, "crawler_fetcher_exchange_urls_total", {{"direction", "suppressed"}}), 2);
}

}  // namespace
}  // namespace crawler::fetcher
