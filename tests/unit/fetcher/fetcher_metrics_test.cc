#include "services/fetcher/fetcher_metrics.h"

#include <cmath>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "services/common/metrics/snapshot_collector.h"
#include "tests/unit/common/documented_keys.h"

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

// docs/metrics.md's table of the `outcome` label has a row for each value, and no other.
TEST(OutcomeLabelTest, EveryValueIsDocumented) {
  const std::vector<std::string> rows =
      crawler::testing::DocTableRows("metrics.md", "The `outcome` label is one of a fixed set, "
                                                   "from the page's final outcome and HTTP status:");
  for (size_t v = 0; v < kOutcomeLabels; ++v) {
    const std::string name(OutcomeLabelName(static_cast<OutcomeLabel>(v)));
    EXPECT_NE(crawler::testing::DocRow(rows, "`" + name + "`"), "") << name;
  }
  EXPECT_EQ(rows.size(), 1 + kOutcomeLabels) << "the header and one row per value";
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

// The histogram sample of `name` (unlabelled), or null.
const prometheus::ClientMetric* Sample(const std::vector<prometheus::MetricFamily>& families,
                                       const std::string& name) {
  for (const prometheus::MetricFamily& f : families) {
    if (f.name == name && !f.metric.empty()) return &f.metric.front();
  }
  return nullptr;
}

TEST(FetcherMetricsTest, SnapshotHasPolitenessHistogramsWarcAndWaitingHosts) {
  FetcherStats one;
  one.hosts = 3;
  one.hosts_waiting = 2;
  one.politeness_wait.Observe(absl::Milliseconds(5));   // <= 0.01
  one.politeness_wait.Observe(absl::Seconds(2));        // <= 2.5
  one.politeness_wait.Observe(absl::Seconds(1000));     // above 300: +Inf only
  one.claim_duration.Observe(absl::Microseconds(300));  // <= 0.0005
  FetcherStats other;
  other.politeness_wait.Observe(absl::Seconds(2));
  other.claim_duration.Observe(absl::Milliseconds(3));  // <= 0.005
  FetcherSnapshot s;
  AddFetcherStats(one, s.fetcher);
  AddFetcherStats(other, s.fetcher);
  s.warc.push_back({.collection = "a", .records = 5, .bytes = 1234});
  metrics::SnapshotFamilies out;
  AppendFetcherSnapshot(s, out);
  const std::vector<prometheus::MetricFamily> f = out.Take();

  EXPECT_EQ(Value(f, "crawler_fetcher_hosts", {}), 3);
  EXPECT_EQ(Value(f, "crawler_fetcher_hosts_waiting", {}), 2);
  EXPECT_EQ(Value(f, "crawler_fetcher_warc_records_total", {{"collection", "a"}}), 5);
  EXPECT_EQ(Value(f, "crawler_fetcher_warc_bytes_total", {{"collection", "a"}}), 1234);

  const prometheus::ClientMetric* wait = Sample(f, "crawler_fetcher_politeness_wait_seconds");
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->histogram.sample_count, 4u);
  EXPECT_NEAR(wait->histogram.sample_sum, 1004.005, 1e-9);
  const auto& b = wait->histogram.bucket;
  ASSERT_EQ(b.size(), std::size(kPolitenessWaitBounds) + 1);
  EXPECT_EQ(b.front().upper_bound, 0.01);
  EXPECT_EQ(b.front().cumulative_count, 1u);
  EXPECT_EQ(b[std::size(kPolitenessWaitBounds) - 1].upper_bound, 300);
  EXPECT_EQ(b[std::size(kPolitenessWaitBounds) - 1].cumulative_count, 3u);
  EXPECT_TRUE(std::isinf(b.back().upper_bound));
  EXPECT_EQ(b.back().cumulative_count, 4u);
  for (size_t i = 0; i < b.size(); ++i) {
    if (b[i].upper_bound == 2.5) {
      EXPECT_EQ(b[i].cumulative_count, 3u);
    }
    if (b[i].upper_bound == 1) {
      EXPECT_EQ(b[i].cumulative_count, 1u);
    }
  }

  const prometheus::ClientMetric* claim =
      Sample(f, "crawler_fetcher_politeness_claim_duration_seconds");
  ASSERT_NE(claim, nullptr);
  EXPECT_EQ(claim->histogram.sample_count, 2u);
  EXPECT_EQ(claim->histogram.bucket.front().upper_bound, 0.0005);
  EXPECT_EQ(claim->histogram.bucket.front().cumulative_count, 1u);
  EXPECT_EQ(claim->histogram.bucket[std::size(kClaimDurationBounds) - 1].upper_bound, 1);
  EXPECT_EQ(claim->histogram.bucket[std::size(kClaimDurationBounds) - 1].cumulative_count, 2u);
}

TEST(FetcherMetricsTest, NoWarcWriterNoWarcSeries) {
  metrics::SnapshotFamilies out;
  AppendFetcherSnapshot(FetcherSnapshot{}, out);
  const std::vector<prometheus::MetricFamily> f = out.Take();
  EXPECT_EQ(Value(f, "crawler_fetcher_warc_records_total", {}), -1);
  // The histograms are there from the start, empty.
  const prometheus::ClientMetric* wait = Sample(f, "crawler_fetcher_politeness_wait_seconds");
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->histogram.sample_count, 0u);
}

// The browser's series exist only while a collection renders; two collections' browsers add
// up, except the peak, which is the larger.
TEST(FetcherMetricsTest, BrowserSeriesOnlyWhenACollectionRenders) {
  metrics::SnapshotFamilies none;
  AppendFetcherSnapshot(FetcherSnapshot{}, none);
  const std::vector<prometheus::MetricFamily> without = none.Take();
  EXPECT_EQ(Value(without, "crawler_fetcher_browser_events_total", {{"event", "launch"}}), -1);
  EXPECT_EQ(Value(without, "crawler_fetcher_browser_memory_bytes", {}), -1);

  FetcherSnapshot s;
  AddBrowserStats({.renders = 10, .launches = 2, .crashes = 1, .memory_kills = 1,
                   .memory_bytes = 300, .peak_memory_bytes = 700},
                  s.browser.emplace());
  AddBrowserStats({.renders = 4, .launches = 1, .hangs = 2, .memory_recycles = 1,
                   .memory_bytes = 100, .peak_memory_bytes = 500},
                  *s.browser);
  metrics::SnapshotFamilies out;
  AppendFetcherSnapshot(s, out);
  const std::vector<prometheus::MetricFamily> f = out.Take();
  EXPECT_EQ(Value(f, "crawler_fetcher_browser_events_total", {{"event", "launch"}}), 3);
  EXPECT_EQ(Value(f, "crawler_fetcher_browser_events_total", {{"event", "crash"}}), 1);
  EXPECT_EQ(Value(f, "crawler_fetcher_browser_events_total", {{"event", "hang"}}), 2);
  EXPECT_EQ(Value(f, "crawler_fetcher_browser_events_total", {{"event", "memory_kill"}}), 1);
  EXPECT_EQ(Value(f, "crawler_fetcher_browser_events_total", {{"event", "memory_recycle"}}), 1);
  EXPECT_EQ(Value(f, "crawler_fetcher_browser_memory_bytes", {}), 400);
  EXPECT_EQ(Value(f, "crawler_fetcher_browser_peak_memory_bytes", {}), 700);
}

}  // namespace
}  // namespace crawler::fetcher
