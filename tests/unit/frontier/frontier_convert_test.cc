// Round trips of the frontier's API types through crawler.v1 (frontier_convert.h): domain ->
// proto -> domain gives back the original for representative and edge values, and malformed
// proto input is kInvalidArgument naming the field.
#include "services/frontier/grpc/frontier_convert.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/recrawl/policy_factory.h"

namespace crawler::frontier {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

const absl::Time kNow = absl::FromUnixNanos(1'764'160'000'123'456'789);
// Before 1970 with a fraction: nanos must stay in [0, 1e9) on the wire.
const absl::Time kOld = absl::FromUnixNanos(-1'500'000'001);

std::vector<OutcomeClass> AllOutcomes() {
  std::vector<OutcomeClass> all;
  for (int i = 1; i <= kMaxOutcomeClass; ++i) all.push_back(static_cast<OutcomeClass>(i));
  return all;
}

void ExpectInvalid(const absl::Status& status, const std::string& field) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(field)) << status;
}

TEST(FrontierConvertTest, EveryOutcomeClassAndUrlStatusRoundTrips) {
  for (OutcomeClass outcome : AllOutcomes()) {
    absl::StatusOr<OutcomeClass> back = FromProto(ToProto(outcome), "outcome");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, outcome);
  }
  for (UrlStatus status : {UrlStatus::kQueued, UrlStatus::kWaiting, UrlStatus::kDone}) {
    absl::StatusOr<UrlStatus> back = FromProto(ToProto(status), "status");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, status);
  }
}

TEST(FrontierConvertTest, EnumsRejectUnspecifiedAndUnknownValues) {
  ExpectInvalid(FromProto(v1::OUTCOME_CLASS_UNSPECIFIED, "x.outcome").status(), "x.outcome");
  ExpectInvalid(FromProto(static_cast<v1::OutcomeClass>(99), "x.outcome").status(), "x.outcome");
  ExpectInvalid(FromProto(v1::URL_STATUS_UNSPECIFIED, "x.status").status(), "x.status");
  ExpectInvalid(FromProto(static_cast<v1::UrlStatus>(5), "x.status").status(), "x.status");
}

TEST(FrontierConvertTest, AddUrlsRoundTrips) {
  const std::vector<UrlToAdd> urls = {
      {.canonical_url = "https://example.org/a", .host_key = "example.org"},
      {.canonical_url = "https://example.org/b?q=1",
       .host_key = "example.org",
       .depth = std::numeric_limits<uint32_t>::max(),
       .discovered_from = "https://example.org/",
       .priority = 255},
      {.canonical_url = "https://example.org/sitemap.xml",
       .host_key = "example.org",
       .depth = 1,
       .sitemap_level = kMaxSitemapLevel},
      {.canonical_url = "https://example.org/listed",
       .host_key = "example.org",
       .sitemap = {.lastmod = kOld, .changefreq = 7, .priority_permille = 0}},
      {.canonical_url = "https://example.org/half",
       .host_key = "example.org",
       .sitemap = {.changefreq = 1, .priority_permille = 1000}},
      {},  // empty: the frontier counts it as invalid, the wire carries it
  };
  const v1::AddUrlsRequest request = ToAddUrlsRequest("gov-si", urls);
  EXPECT_EQ(request.collection(), "gov-si");
  absl::StatusOr<std::vector<UrlToAdd>> back = FromAddUrlsRequest(request);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, urls);

  const AddResult result{.added = 1,
                         .already_seen = 2,
                         .rejected_by_limit = kMax64,
                         .invalid = 0,
                         .held = 4,
                         .lastmod_updates = 3,
                         .lastmod_pulls = 1};
  EXPECT_EQ(FromProto(ToProto(result)), result);
}

TEST(FrontierConvertTest, AddUrlsRejectsBadSitemapFields) {
  v1::AddUrlsRequest request = ToAddUrlsRequest("c", {{.canonical_url = "https://a.example/"}});
  request.mutable_urls(0)->set_sitemap_level(kMaxSitemapLevel + 1);
  ExpectInvalid(FromAddUrlsRequest(request).status(), "urls[0].sitemap_level");
  request.mutable_urls(0)->set_sitemap_level(0);
  request.mutable_urls(0)->mutable_sitemap()->set_changefreq(8);
  ExpectInvalid(FromAddUrlsRequest(request).status(), "urls[0].sitemap.changefreq");
  request.mutable_urls(0)->mutable_sitemap()->set_changefreq(0);
  request.mutable_urls(0)->mutable_sitemap()->set_priority_permille(1001);
  ExpectInvalid(FromAddUrlsRequest(request).status(), "urls[0].sitemap.priority_permille");
}

TEST(FrontierConvertTest, AddUrlsRejectsMissingCollectionAndWidePriority) {
  v1::AddUrlsRequest request = ToAddUrlsRequest("", {{.canonical_url = "https://a.example/"}});
  ExpectInvalid(FromAddUrlsRequest(request).status(), "collection");
  request.set_collection("c");
  request.mutable_urls(0)->set_priority(256);
  ExpectInvalid(FromAddUrlsRequest(request).status(), "urls[0].priority");
}

TEST(FrontierConvertTest, LeaseRoundTripsAndSaturates) {
  const LeaseArgs args{.max_urls = 512, .max_per_host = 1};
  absl::StatusOr<LeaseArgs> back = FromLeaseRequest(ToLeaseRequest("c", args));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, args);

  const v1::LeaseRequest wide = ToLeaseRequest("c", {.max_urls = kMax64, .max_per_host = 3});
  EXPECT_EQ(wide.max_urls(), std::numeric_limits<uint32_t>::max());

  ExpectInvalid(FromLeaseRequest(ToLeaseRequest("", args)).status(), "collection");
  ExpectInvalid(FromLeaseRequest(ToLeaseRequest("c", {.max_urls = 0, .max_per_host = 1})).status(),
                "max_urls");
  ExpectInvalid(FromLeaseRequest(ToLeaseRequest("c", {.max_urls = 1, .max_per_host = 0})).status(),
                "max_per_host");
}

TEST(FrontierConvertTest, LeasedTasksRoundTrip) {
  std::vector<LeasedTask> tasks;
  tasks.push_back({.lease_id = 1,
                   .canonical_url = "https://example.org/",
                   .host_key = "example.org",
                   .deadline = kNow});
  tasks.push_back({.lease_id = 3,
                   .canonical_url = "https://example.org/sitemap.xml",
                   .host_key = "example.org",
                   .sitemap_level = 2,
                   .deadline = kNow});
  for (OutcomeClass outcome : AllOutcomes()) {
    tasks.push_back({.lease_id = kMax64,
                     .canonical_url = "https://example.org/x",
                     .host_key = "example.org",
                     .depth = 7,
                     .priority = 200,
                     .deadline = absl::InfiniteFuture(),
                     .attempt = 3,
                     .previous = PreviousFetch{.outcome = outcome,
                                               .http_status = 304,
                                               .fetch_time = kOld,
                                               .etag = "\"abc\"",
                                               .last_modified = "Tue, 01 Jan 2030 00:00:00 GMT",
                                               .content_fingerprint = kMax64}});
  }
  // A previous fetch with every field at its default (fetch time InfinitePast: unset).
  tasks.push_back({.lease_id = 2, .deadline = absl::InfinitePast(), .previous = PreviousFetch{}});
  absl::StatusOr<std::vector<LeasedTask>> back = FromLeaseResponse(ToLeaseResponse(tasks));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, tasks);
}

TEST(FrontierConvertTest, LeasedTasksRejectMissingDeadlineLeaseIdAndOutcome) {
  const std::vector<LeasedTask> tasks = {
      {.lease_id = 1, .deadline = kNow},
      {.lease_id = 2, .deadline = kNow, .previous = PreviousFetch{}}};
  v1::LeaseResponse response = ToLeaseResponse(tasks);
  response.mutable_tasks(1)->clear_deadline();
  ExpectInvalid(FromLeaseResponse(response).status(), "tasks[1].deadline");

  response = ToLeaseResponse(tasks);
  response.mutable_tasks(0)->set_lease_id(0);
  ExpectInvalid(FromLeaseResponse(response).status(), "tasks[0].lease_id");

  response = ToLeaseResponse(tasks);
  response.mutable_tasks(1)->mutable_previous()->set_outcome(v1::OUTCOME_CLASS_UNSPECIFIED);
  ExpectInvalid(FromLeaseResponse(response).status(), "tasks[1].previous.outcome");

  response = ToLeaseResponse(tasks);
  response.mutable_tasks(1)->mutable_deadline()->set_nanos(-1);
  ExpectInvalid(FromLeaseResponse(response).status(), "tasks[1].deadline");
}

TEST(FrontierConvertTest, CompleteRoundTrips) {
  std::vector<FetchOutcome> outcomes;
  for (OutcomeClass outcome : AllOutcomes()) {
    outcomes.push_back({.lease_id = 9,
                        .outcome = outcome,
                        .http_status = 503,
                        .fetch_time = kNow,
                        .etag = "e",
                        .last_modified = "m",
                        .content_fingerprint = kMax64,
                        .content_length = kMax64,
                        .host_next_allowed = absl::InfiniteFuture(),
                        .retry = true,
                        .change_digest = kMax64});
  }
  outcomes.push_back({.lease_id = kMax64});  // both times InfinitePast: unset on the wire
  const v1::CompleteRequest request = ToCompleteRequest("c", outcomes);
  EXPECT_FALSE(request.outcomes(8).has_fetch_time());
  absl::StatusOr<std::vector<FetchOutcome>> back = FromCompleteRequest(request);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, outcomes);

  const CompleteResult result{.accepted = 3, .retries_scheduled = 1, .unknown_leases = {1, kMax64}};
  EXPECT_EQ(FromProto(ToProto(result)), result);
  EXPECT_EQ(FromProto(ToProto(CompleteResult{})), CompleteResult{});
}

TEST(FrontierConvertTest, CompleteRejectsBadOutcomes) {
  const std::vector<FetchOutcome> outcomes = {{.lease_id = 1}, {.lease_id = 2}};
  v1::CompleteRequest request = ToCompleteRequest("c", outcomes);
  request.mutable_outcomes(1)->set_outcome(static_cast<v1::OutcomeClass>(42));
  ExpectInvalid(FromCompleteRequest(request).status(), "outcomes[1].outcome");

  request = ToCompleteRequest("c", outcomes);
  request.mutable_outcomes(0)->set_lease_id(0);
  ExpectInvalid(FromCompleteRequest(request).status(), "outcomes[0].lease_id");

  request = ToCompleteRequest("c", outcomes);
  request.mutable_outcomes(1)->mutable_host_next_allowed()->set_seconds(
      std::numeric_limits<int64_t>::max());
  ExpectInvalid(FromCompleteRequest(request).status(), "outcomes[1].host_next_allowed");

  ExpectInvalid(FromCompleteRequest(ToCompleteRequest("", outcomes)).status(), "collection");
}

TEST(FrontierConvertTest, HostTimesRoundTripAndRequireBothFields) {
  const std::vector<HostTime> times = {{.host_key = "a.example", .next_allowed = kNow},
                                       {.host_key = "b.example", .next_allowed = kOld},
                                       {.host_key = "c", .next_allowed = absl::InfinitePast()},
                                       {.host_key = "d", .next_allowed = absl::InfiniteFuture()}};
  absl::StatusOr<std::vector<HostTime>> back =
      FromReportHostTimesRequest(ToReportHostTimesRequest("c", times));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, times);

  v1::ReportHostTimesRequest request = ToReportHostTimesRequest("c", times);
  request.mutable_times(2)->clear_next_allowed();
  ExpectInvalid(FromReportHostTimesRequest(request).status(), "times[2].next_allowed");
  request = ToReportHostTimesRequest("c", times);
  request.mutable_times(3)->clear_host_key();
  ExpectInvalid(FromReportHostTimesRequest(request).status(), "times[3].host_key");
}

TEST(FrontierConvertTest, StatsRoundTrip) {
  FrontierStats stats{.hosts = 1,
                      .hosts_with_queued_urls = 2,
                      .ready_hosts = 3,
                      .queued_urls = 4,
                      .waiting_urls = 5,
                      .in_flight_urls = 6,
                      .seen_urls = 7,
                      .pages_completed = 8,
                      .next_ready_time = kNow,
                      .held_urls = 25,
                      .hosts_moving = 26,
                      .urls_added = 9,
                      .urls_already_seen = 10,
                      .seen_cache_hits = 11,
                      .urls_rejected_by_limit = 12,
                      .urls_invalid = 13,
                      .sitemap_lastmod_updates = 27,
                      .lastmod_pulls = 28,
                      .leases_granted = 14,
                      .leases_expired = 15,
                      .leases_recovered = 16,
                      .leases_restored = 24,
                      .leases_released = 23,
                      .completions_accepted = 17,
                      .completions_unknown = 18,
                      .retries_scheduled = 19,
                      .revisits_scheduled = 20,
                      .changes_detected = 21,
                      .due_promoted = 22,
                      .repairs = kMax64,
                      .exhausted = true};
  absl::StatusOr<FrontierStats> back = FromProto(ToProto(stats), "stats");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, stats);

  // Defaults: next_ready_time InfiniteFuture is "unset" on the wire.
  EXPECT_FALSE(ToProto(FrontierStats{}).has_next_ready_time());
  back = FromProto(ToProto(FrontierStats{}), "stats");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, FrontierStats{});
  stats.next_ready_time = absl::InfinitePast();
  back = FromProto(ToProto(stats), "stats");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, stats);
}

TEST(FrontierConvertTest, LookupRoundTripsRecordsAndAbsentUrls) {
  std::vector<std::optional<UrlRecord>> records;
  records.push_back(std::nullopt);
  records.push_back(UrlRecord{});
  for (OutcomeClass outcome : AllOutcomes()) {
    records.push_back(UrlRecord{.status = UrlStatus::kWaiting,
                                .host_id = kMax64,
                                .priority = 255,
                                .depth = 3,
                                .seq = 44,
                                .attempts = 2,
                                .fetch_count = 1,
                                .first_seen = kOld,
                                .discovered_from = "https://example.org/",
                                .last_outcome = outcome,
                                .http_status = 200,
                                .fetch_time = kNow,
                                .etag = "e",
                                .last_modified = "m",
                                .content_fingerprint = kMax64,
                                .content_length = 12,
                                .next_visit = absl::InfiniteFuture(),
                                .visit_history = std::string("\0\1\2", 3),
                                .change_digest = kMax64});
  }
  records.push_back(UrlRecord{.status = UrlStatus::kDone, .next_visit = absl::InfinitePast()});
  records.push_back(UrlRecord{.status = UrlStatus::kWaiting,
                              .sitemap_level = 1,
                              .sitemap = {.lastmod = kNow, .changefreq = 3, .priority_permille = 5},
                              .lastmod_pulls = 4,
                              .lastmod_pulls_changed = 2,
                              .lastmod_pulled = true});
  absl::StatusOr<std::vector<std::optional<UrlRecord>>> back =
      FromLookupUrlsResponse(ToLookupUrlsResponse(records));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, records);

  const std::vector<std::string> urls = {"https://a.example/", ""};
  absl::StatusOr<std::vector<std::string>> urls_back =
      FromLookupUrlsRequest(ToLookupUrlsRequest("c", urls));
  ASSERT_TRUE(urls_back.ok()) << urls_back.status();
  EXPECT_EQ(*urls_back, urls);

  const std::vector<std::string> too_many(kMaxLookupUrls + 1, "https://a.example/");
  ExpectInvalid(FromLookupUrlsRequest(ToLookupUrlsRequest("c", too_many)).status(),
                "canonical_urls");
  const std::vector<std::string> most(kMaxLookupUrls, "https://a.example/");
  EXPECT_TRUE(FromLookupUrlsRequest(ToLookupUrlsRequest("c", most)).ok());
}

TEST(FrontierConvertTest, LookupRejectsFoundWithoutRecordAndBadStatus) {
  v1::LookupUrlsResponse response = ToLookupUrlsResponse({UrlRecord{}, UrlRecord{}});
  response.mutable_results(1)->clear_record();
  ExpectInvalid(FromLookupUrlsResponse(response).status(), "results[1].record");

  response = ToLookupUrlsResponse({UrlRecord{}});
  response.mutable_results(0)->mutable_record()->set_status(v1::URL_STATUS_UNSPECIFIED);
  ExpectInvalid(FromLookupUrlsResponse(response).status(), "results[0].record.status");

  response = ToLookupUrlsResponse({UrlRecord{}});
  response.mutable_results(0)->mutable_record()->set_last_outcome(static_cast<v1::OutcomeClass>(9));
  ExpectInvalid(FromLookupUrlsResponse(response).status(), "results[0].record.last_outcome");
}

recrawl::RateHistogram SomeRates() {
  recrawl::RateHistogram rates;
  rates.Add(0);
  rates.Add(1e-9);
  rates.Add(0.25, 2.0);
  rates.Add(3.0);
  rates.Add(1e9);
  return rates;
}

TEST(FrontierConvertTest, RevisitStatusRoundTrips) {
  const RevisitStatus status{.enabled = true,
                             .policy = "optimal",
                             .rates = SomeRates(),
                             .changes_seen = 12.5,
                             .days_observed = 100.25,
                             .pending_urls = kMax64};
  absl::StatusOr<RevisitStatus> back = FromProto(ToProto(status));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, status);
  back = FromProto(ToProto(RevisitStatus{}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, RevisitStatus{});

  v1::GetRevisitStatusResponse bad = ToProto(status);
  bad.set_rate_histogram("\x01garbage");
  ExpectInvalid(FromProto(bad).status(), "rate_histogram");
  bad.clear_rate_histogram();
  ExpectInvalid(FromProto(bad).status(), "rate_histogram");
}

recrawl::FleetEvidence SomeEvidence() {
  recrawl::FleetEvidence evidence;
  for (int visits = 1; visits <= 5; ++visits) {
    recrawl::VisitHistory history(32);
    for (int v = 0; v < visits; ++v) {
      history.Append(recrawl::Visit{.interval_seconds = 3600u * (v + 1), .changed = v % 2 == 0});
    }
    evidence.Add(history);
  }
  return evidence;
}

// The fitted prior's evidence travels with the status; a frontier that keeps none (an older
// one, or the fleet-mean prior) sends none, and the status says so.
TEST(FrontierConvertTest, RevisitStatusCarriesTheFleetEvidence) {
  RevisitStatus status{.enabled = true, .policy = "optimal", .rates = SomeRates()};
  status.evidence = SomeEvidence();
  absl::StatusOr<RevisitStatus> back = FromProto(ToProto(status));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, status);
  // Empty evidence is not "none".
  status.evidence.emplace();
  back = FromProto(ToProto(status));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->evidence.has_value());
  status.evidence.reset();
  EXPECT_TRUE(ToProto(status).fleet_evidence().empty());
  back = FromProto(ToProto(status));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->evidence.has_value());

  v1::GetRevisitStatusResponse bad = ToProto(status);
  bad.set_fleet_evidence("\x01garbage");
  ExpectInvalid(FromProto(bad).status(), "fleet_evidence");
}

TEST(FrontierConvertTest, FleetSummaryCarriesTheFittedPrior) {
  const recrawl::RateHistogram rates = SomeRates();
  const recrawl::RatePrior prior = SomeEvidence().Fit(
      recrawl::RatePrior::FromGamma(recrawl::GammaPrior{2, 10}), {});
  const recrawl::FleetSummary fleet{
      .budget_visits_per_day = 10, .page_count = 5, .rates = &rates, .prior = &prior};
  const v1::RetuneRevisitsRequest request = ToRetuneRevisitsRequest("c", fleet);
  EXPECT_EQ(request.fleet().prior_weights_size(), recrawl::RatePrior::kPoints);
  absl::StatusOr<FleetSummaryValue> back = FromRetuneRevisitsRequest(request);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_NE(back->View().prior, nullptr);
  for (int k = 0; k < recrawl::RatePrior::kPoints; ++k) {
    EXPECT_NEAR(back->View().prior->weight(k), prior.weight(k), 1e-15) << k;
  }
  // No weights (an older scheduler, or the fleet-mean prior): no prior, the Gamma one is used.
  back = FromRetuneRevisitsRequest(ToRetuneRevisitsRequest("c", {.budget_visits_per_day = 1}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->View().prior, nullptr);

  v1::RetuneRevisitsRequest bad = request;
  bad.mutable_fleet()->mutable_prior_weights()->RemoveLast();
  ExpectInvalid(FromRetuneRevisitsRequest(bad).status(), "fleet.prior_weights");
  bad = request;
  bad.mutable_fleet()->set_prior_weights(3, -1);
  ExpectInvalid(FromRetuneRevisitsRequest(bad).status(), "fleet.prior_weights");
}

// The merged evidence travels with the prior: the partitions solve their multiplier over it.
TEST(FrontierConvertTest, FleetSummaryCarriesTheMergedEvidence) {
  const recrawl::FleetEvidence evidence = SomeEvidence();
  const recrawl::RatePrior prior = evidence.Fit(
      recrawl::RatePrior::FromGamma(recrawl::GammaPrior{2, 10}), {});
  const recrawl::FleetSummary fleet{
      .budget_visits_per_day = 10, .page_count = 5, .prior = &prior, .evidence = &evidence};
  const v1::RetuneRevisitsRequest request = ToRetuneRevisitsRequest("c", fleet);
  EXPECT_FALSE(request.fleet().fleet_evidence().empty());
  absl::StatusOr<FleetSummaryValue> back = FromRetuneRevisitsRequest(request);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_NE(back->View().evidence, nullptr);
  EXPECT_EQ(*back->View().evidence, evidence);
  // None sent (an older scheduler, or no prior fitted): none, the histogram is solved over.
  back = FromRetuneRevisitsRequest(ToRetuneRevisitsRequest("c", {.budget_visits_per_day = 1}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->View().evidence, nullptr);

  v1::RetuneRevisitsRequest bad = request;
  bad.mutable_fleet()->set_fleet_evidence("\x01garbage");
  ExpectInvalid(FromRetuneRevisitsRequest(bad).status(), "fleet.fleet_evidence");
}

TEST(FrontierConvertTest, FleetSummaryRoundTripsWithAndWithoutRates) {
  const recrawl::RateHistogram rates = SomeRates();
  const recrawl::FleetSummary fleet{.budget_visits_per_day = 432'000,
                                    .page_count = std::numeric_limits<int64_t>::max(),
                                    .rates = &rates,
                                    .mean_rate_per_day = 0.5};
  absl::StatusOr<FleetSummaryValue> back =
      FromRetuneRevisitsRequest(ToRetuneRevisitsRequest("c", fleet));
  ASSERT_TRUE(back.ok()) << back.status();
  const recrawl::FleetSummary view = back->View();
  EXPECT_EQ(view.budget_visits_per_day, fleet.budget_visits_per_day);
  EXPECT_EQ(view.page_count, fleet.page_count);
  ASSERT_NE(view.rates, nullptr);
  EXPECT_EQ(*view.rates, rates);
  EXPECT_EQ(view.mean_rate_per_day, fleet.mean_rate_per_day);

  back = FromRetuneRevisitsRequest(ToRetuneRevisitsRequest("c", {.budget_visits_per_day = 1}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->View().rates, nullptr);
  EXPECT_EQ(back->View().budget_visits_per_day, 1);

  v1::RetuneRevisitsRequest request = ToRetuneRevisitsRequest("c", fleet);
  request.clear_fleet();
  ExpectInvalid(FromRetuneRevisitsRequest(request).status(), "fleet");
  request = ToRetuneRevisitsRequest("c", fleet);
  request.mutable_fleet()->set_rate_histogram("\x07");
  ExpectInvalid(FromRetuneRevisitsRequest(request).status(), "fleet.rate_histogram");
  ExpectInvalid(FromRetuneRevisitsRequest(ToRetuneRevisitsRequest("", fleet)).status(),
                "collection");
}

TEST(FrontierConvertTest, RevisitOptionsRoundTripForEveryPolicy) {
  for (std::string_view name : recrawl::RevisitPolicyNames()) {
    RevisitOptions revisit{.enabled = true,
                           .policy = std::string(name),
                           .min_interval = absl::Seconds(90),
                           .max_interval = absl::InfiniteDuration(),
                           .history_capacity = 64,
                           .change_threshold_bits = 0,
                           .prior = "fleet-mean"};
    recrawl::PolicyOptions& o = revisit.policy_options;
    o.fixed.interval_days = 0.5;
    o.proportional.prior_shape = 3;
    o.optimal = {.min_visits_per_day = 0.01, .prior_shape = 1.5};
    o.nutch.min_interval_days = 1.0 / 24;
    o.nutch.sync_delta = false;
    o.stormcrawler.max_interval_minutes = 7;
    o.stormcrawler.inc_rate = 0.75f;
    o.step.tolerance_days = 0.25;
    o.bayes.category_days = {0.5, 2, 14};
    o.bayes.prior = {0.5, 0.25, 0.25};
    o.bayes.update = name == "bayes-published"
                         ? recrawl::BayesClassifierOptions::Update::kPublished
                         : recrawl::BayesClassifierOptions::Update::kCorrected;
    absl::StatusOr<RevisitOptions> back = FromProto(ToProto(revisit), "revisit");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, revisit) << name;
  }
  // Every default survives too, and an empty message decodes to the defaults.
  absl::StatusOr<RevisitOptions> back = FromProto(ToProto(RevisitOptions{}), "revisit");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, RevisitOptions{});
  back = FromProto(v1::RevisitOptions{}, "revisit");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, RevisitOptions{});
}

TEST(FrontierConvertTest, CollectionsRoundTripWithAndWithoutLimits) {
  CollectionSettings full{.name = "news",
                          .max_pages = 0,
                          .max_pages_per_host = 50,
                          .max_in_flight_per_host = 3,
                          .max_depth = 0,
                          .revisit = {.enabled = true, .policy = "uniform"}};
  for (const CollectionSettings& c : {full, CollectionSettings{.name = "b"}}) {
    absl::StatusOr<OpenCollectionArgs> back =
        FromOpenCollectionRequest(ToOpenCollectionRequest({c, 4}));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->collection, c);
    EXPECT_EQ(back->partition_count, 4u);
  }
  // Unset optional limits stay unset (unlimited), set zeros stay zeros.
  const v1::FrontierCollection p = ToProto(CollectionSettings{.name = "b"});
  EXPECT_FALSE(p.has_max_pages());
  EXPECT_FALSE(p.has_max_depth());
  EXPECT_TRUE(ToProto(full).has_max_pages());
}

TEST(FrontierConvertTest, OpenCollectionRequiresCollectionNameAndPartitionCount) {
  v1::OpenCollectionRequest request;
  request.set_partition_count(1);
  EXPECT_THAT(FromOpenCollectionRequest(request).status().message(), HasSubstr("collection"));
  request.mutable_collection()->set_max_in_flight_per_host(1);
  EXPECT_THAT(FromOpenCollectionRequest(request).status().message(),
              HasSubstr("collection.name"));
  request.mutable_collection()->set_name("a");
  EXPECT_TRUE(FromOpenCollectionRequest(request).ok());
  request.set_partition_count(0);
  EXPECT_THAT(FromOpenCollectionRequest(request).status().message(),
              HasSubstr("partition_count"));
}

TEST(FrontierConvertTest, ReleaseLeasesRoundTripsAndRequiresCollection) {
  absl::StatusOr<std::vector<LeaseId>> back =
      FromReleaseLeasesRequest(ToReleaseLeasesRequest("c", {3, 1, 2}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(*back, ElementsAre(3, 1, 2));
  EXPECT_TRUE(absl::IsInvalidArgument(
      FromReleaseLeasesRequest(ToReleaseLeasesRequest("", {1})).status()));
}

TEST(FrontierConvertTest, RevisitOptionsRejectNegativeAndMalformedDurations) {
  v1::RevisitOptions p = ToProto(RevisitOptions{});
  p.mutable_min_interval()->set_seconds(-1);
  ExpectInvalid(FromProto(p, "revisit").status(), "revisit.min_interval");

  p = ToProto(RevisitOptions{});
  p.mutable_max_interval()->set_seconds(1);
  p.mutable_max_interval()->set_nanos(-5);
  ExpectInvalid(FromProto(p, "revisit").status(), "revisit.max_interval");

  p = ToProto(RevisitOptions{});
  p.mutable_policy_options()->mutable_nutch()->mutable_min_interval()->set_nanos(-1);
  ExpectInvalid(FromProto(p, "revisit").status(), "revisit.policy_options.nutch.min_interval");

  p = ToProto(RevisitOptions{});
  p.mutable_policy_options()->mutable_stormcrawler()->mutable_min_interval()->set_seconds(61);
  ExpectInvalid(FromProto(p, "revisit").status(),
                "revisit.policy_options.stormcrawler.min_interval");

  p = ToProto(RevisitOptions{});
  p.mutable_policy_options()->mutable_bayes()->add_prior(0.1);
  ExpectInvalid(FromProto(p, "revisit").status(), "revisit.policy_options.bayes.prior");

  p = ToProto(RevisitOptions{});
  p.mutable_policy_options()->mutable_bayes()->mutable_category_intervals(2)->set_seconds(-86400);
  ExpectInvalid(FromProto(p, "revisit").status(),
                "revisit.policy_options.bayes.category_intervals[2]");
}

}  // namespace
}  // namespace crawler::frontier
