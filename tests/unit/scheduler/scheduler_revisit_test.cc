// The scheduler's half of re-visiting (docs/architecture.md §7): TuneRevisits merges the
// partitions' rate histograms, solves mu for the collection's budget and retunes every partition,
// whose policy then spaces its pages' re-visits so that they add up to the budget.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/recrawl/optimal_policy.h"
#include "lib/recrawl/page_state.h"
#include "lib/recrawl/rate_prior.h"
#include "services/collections/collection.h"
#include "services/collections/revisit_options.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/local_frontier_client.h"
#include "services/scheduler/scheduler.h"

namespace crawler::scheduler {
namespace {

Collection Revisiting(double budget_per_day) {
  Collection c;
  c.name = "fresh";
  c.seeds = {"http://a.test/"};
  c.revisit.options.enabled = true;
  c.revisit.options.policy = "optimal";
  c.revisit.options.min_interval = absl::Seconds(1);
  c.revisit.options.max_interval = absl::Hours(24 * 30);
  c.revisit.budget_visits_per_day = budget_per_day;
  return c;
}

// One frontier partition on an in-memory store.
struct Partition {
  explicit Partition(const Collection& c, const Clock& clock) : store(frontier::Frontier::ColumnFamilies()) {
    frontier::FrontierOptions options;
    options.max_in_flight_per_host = 1000;
    options.revisit = c.revisit.options;
    frontier = frontier::Frontier::Open(options, store, clock).value();
    client = std::make_unique<frontier::LocalFrontierClient>(*frontier);
  }
  kv::InMemoryKvStore store;
  std::unique_ptr<frontier::Frontier> frontier;
  std::unique_ptr<frontier::LocalFrontierClient> client;
};

// Adds the root pages of hosts h0<suffix> .. h<n-1><suffix> to the partition.
void AddRoots(Partition& p, int n, const std::string& suffix) {
  std::vector<frontier::UrlToAdd> urls;
  for (int k = 0; k < n; ++k) {
    const std::string host = absl::StrCat("h", k, suffix);
    urls.push_back({.canonical_url = absl::StrCat("http://", host, "/"), .host_key = host});
  }
  ASSERT_TRUE(p.frontier->AddUrls(urls).ok());
}

// Leases every due URL of `p` and completes it: page k of a host "h<k>..." changes between
// visits with probability (k + 1) / 21 (a deterministic pattern over the running `visit` count).
void VisitDue(Partition& p, uint64_t& visit) {
  std::vector<frontier::LeasedTask> tasks = p.frontier->Lease(1000, 1000).value();
  std::vector<frontier::FetchOutcome> outcomes;
  for (const frontier::LeasedTask& task : tasks) {
    const int k = std::stoi(task.host_key.substr(1));
    ++visit;
    const bool changes = (visit * 7919 % 21) < static_cast<uint64_t>(k + 1);
    outcomes.push_back({.lease_id = task.lease_id,
                        .outcome = frontier::OutcomeClass::kFetched,
                        .http_status = 200,
                        .content_fingerprint = changes ? visit * 0x9E3779B97F4A7C15ull : 0,
                        .content_length = 100});
    // An unchanged page keeps its fingerprint: report the previous one.
    if (!changes && task.previous.has_value()) {
      outcomes.back().content_fingerprint = task.previous->content_fingerprint;
    }
  }
  ASSERT_TRUE(p.frontier->Complete(outcomes).ok());
}

TEST(SchedulerRevisitTest, ValidationNeedsABudgetAndNoPageCap) {
  Collection c = Revisiting(0);
  EXPECT_EQ(c.Validate().code(), absl::StatusCode::kInvalidArgument);
  c = Revisiting(10);
  EXPECT_TRUE(c.Validate().ok());
  c.limits.max_pages = 100;
  EXPECT_EQ(c.Validate().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SchedulerRevisitTest, TuneNeedsRevisiting) {
  Collection c = Revisiting(10);
  c.revisit.options.enabled = false;
  std::unique_ptr<Scheduler> s = Scheduler::Create(c, {}).value();
  FakeClock clock;
  Partition p(c, clock);
  EXPECT_EQ(s->TuneRevisits({p.client.get()}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// Two partitions, 20 pages each: pages k = 0..19 of each change between every visit with
// probability (k + 1) / 21 (deterministic pattern). After a few rounds of visits and tunings the
// allocation must spend the budget: the re-visit frequencies the frontiers chose add up to it.
// With the Gamma prior centred on the fleet: under the fitted prior, pages seen changed at their
// first one or two re-visits (this pattern changes per visit, whatever the interval) are
// estimated past the optimiser's "too fast" line within the first hours and left at the
// maximum interval, and the slow pages' intervals, chosen under an earlier mu, have not come
// round by the end of these two days, so the latest choices do not add up to the budget yet
// (docs/recrawl.md §10).
TEST(SchedulerRevisitTest, PartitionsSpendTheBudgetTogether) {
  const double budget = 240;  // visits per day for 40 pages: one every 4 hours each
  Collection c = Revisiting(budget);
  c.revisit.options.prior = "fleet-mean";
  std::unique_ptr<Scheduler> s = Scheduler::Create(c, {}).value();
  FakeClock clock;
  clock.Advance(absl::FromUnixSeconds(1'800'000'000) - clock.Now());
  Partition p0(c, clock);
  Partition p1(c, clock);
  std::vector<frontier::FrontierClient*> partitions = {p0.client.get(), p1.client.get()};
  for (Partition* p : {&p0, &p1}) {
    std::vector<frontier::UrlToAdd> urls;
    for (int k = 0; k < 20; ++k) {
      const std::string host = absl::StrCat("h", k, p == &p0 ? ".a.test" : ".b.test");
      urls.push_back({.canonical_url = absl::StrCat("http://", host, "/"), .host_key = host});
    }
    ASSERT_TRUE(p->frontier->AddUrls(urls).ok());
  }
  absl::StatusOr<RevisitTuning> first = s->TuneRevisits(partitions);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->pages, 0);  // nothing visited yet: the fleet is the 40 known URLs
  EXPECT_FALSE(first->mu.has_value());
  EXPECT_FALSE(first->expected_freshness.has_value());
  EXPECT_FALSE(first->planned_spend_ratio.has_value());

  uint64_t visit = 0;
  // Bounded: 2 simulated days in 30-minute steps (each tuning solves mu three times, ~10 ms).
  for (int step = 0; step < 2 * 48; ++step) {
    for (Partition* p : {&p0, &p1}) VisitDue(*p, visit);
    ASSERT_TRUE(s->TuneRevisits(partitions).ok());
    clock.Advance(absl::Minutes(30));
  }
  absl::StatusOr<RevisitTuning> tuning = s->TuneRevisits(partitions);
  ASSERT_TRUE(tuning.ok());
  EXPECT_EQ(tuning->pages, 40);
  ASSERT_TRUE(tuning->mu.has_value());
  EXPECT_GT(*tuning->mu, 0);
  ASSERT_TRUE(tuning->expected_freshness.has_value());
  EXPECT_GT(*tuning->expected_freshness, 0);
  EXPECT_LE(*tuning->expected_freshness, 1);
  // The solved frequencies add up to the budget.
  ASSERT_TRUE(tuning->planned_spend_ratio.has_value());
  EXPECT_NEAR(*tuning->planned_spend_ratio, 1, 0.01);

  // The frequencies the frontiers chose at each page's latest visit add up to the budget
  // (within the histogram's resolution, the drift of the estimates since and the bounds).
  double visits_per_day = 0;
  for (Partition* p : {&p0, &p1}) {
    for (int k = 0; k < 20; ++k) {
      const std::string host = "h" + std::to_string(k) + (p == &p0 ? ".a.test" : ".b.test");
      const frontier::UrlRecord record = p->frontier->LookupUrl("http://" + host + "/").value();
      const double days = absl::ToDoubleHours(record.next_visit - record.fetch_time) / 24;
      if (days < 30) visits_per_day += 1 / days;
    }
  }
  EXPECT_NEAR(visits_per_day, budget, 0.15 * budget);
}

// Every page visited once and its re-visit queued (promoted from the due index): the fleet is
// the pages in the histogram, not those plus the same pages again as pending URLs. Uniform
// spaces re-visits by page_count / budget, so a double count doubles the interval.
TEST(SchedulerRevisitTest, PagesQueuedForARevisitAreCountedOnce) {
  Collection c = Revisiting(10);  // 10 pages: one re-visit a day each
  c.revisit.options.policy = "uniform";
  std::unique_ptr<Scheduler> s = Scheduler::Create(c, {}).value();
  FakeClock clock;
  clock.Advance(absl::FromUnixSeconds(1'800'000'000) - clock.Now());
  Partition p(c, clock);
  AddRoots(p, 10, ".test");
  auto complete = [&](const std::vector<frontier::LeasedTask>& tasks) {
    std::vector<frontier::FetchOutcome> outcomes;
    for (const frontier::LeasedTask& task : tasks) {
      outcomes.push_back({.lease_id = task.lease_id,
                          .outcome = frontier::OutcomeClass::kFetched,
                          .http_status = 200,
                          .content_fingerprint = 0x1234,
                          .content_length = 100});
    }
    EXPECT_TRUE(p.frontier->Complete(outcomes).ok());
  };
  const std::vector<frontier::LeasedTask> first = p.frontier->Lease(1000, 1000).value();
  ASSERT_EQ(first.size(), 10u);
  complete(first);
  clock.Advance(absl::Hours(24 * 30));  // every first re-visit is due
  std::vector<frontier::LeasedTask> leased = p.frontier->Lease(1000, 1000).value();
  ASSERT_EQ(leased.size(), 10u);
  EXPECT_EQ(p.frontier->GetRevisitStatus().pending_urls, 0u);
  ASSERT_TRUE(s->TuneRevisits({p.client.get()}).ok());
  complete(leased);
  const frontier::UrlRecord record = p.frontier->LookupUrl("http://h0.test/").value();
  EXPECT_NEAR(absl::ToDoubleHours(record.next_visit - record.fetch_time), 24, 0.01);
}

// The re-visit budget is split between the partitions by their page counts: 30 pages and 10
// pages share 100 visits a day as 75 and 25, and the shares add up to the budget.
TEST(SchedulerRevisitTest, PartitionsCapsAreSharesOfTheBudgetByPageCount) {
  Collection c = Revisiting(100);
  std::unique_ptr<Scheduler> s = Scheduler::Create(c, {}).value();
  FakeClock clock;
  Partition p0(c, clock);
  Partition p1(c, clock);
  EXPECT_EQ(p0.frontier->Stats().revisit_budget_visits_per_day, 0);  // no cap before tuning
  AddRoots(p0, 30, ".a.test");
  AddRoots(p1, 10, ".b.test");
  ASSERT_TRUE(s->TuneRevisits({p0.client.get(), p1.client.get()}).ok());
  EXPECT_DOUBLE_EQ(p0.frontier->Stats().revisit_budget_visits_per_day, 75);
  EXPECT_DOUBLE_EQ(p1.frontier->Stats().revisit_budget_visits_per_day, 25);
}

// "uniform" estimates no rates: its expected freshness takes every page to change at the rate
// the re-visits observed, visited budget / pages a day; it plans to spend the whole budget.
TEST(SchedulerRevisitTest, UniformExpectsFreshnessAtTheObservedRate) {
  const double budget = 48;  // 8 pages: 6 visits a day each
  Collection c = Revisiting(budget);
  c.revisit.options.policy = "uniform";
  std::unique_ptr<Scheduler> s = Scheduler::Create(c, {}).value();
  FakeClock clock;
  clock.Advance(absl::FromUnixSeconds(1'800'000'000) - clock.Now());
  Partition p(c, clock);
  AddRoots(p, 8, ".a.test");
  ASSERT_TRUE(s->TuneRevisits({p.client.get()}).ok());
  uint64_t visit = 0;
  for (int step = 0; step < 24; ++step) {  // a simulated day in hour steps
    const std::vector<frontier::LeasedTask> tasks = p.frontier->Lease(1000, 1000).value();
    std::vector<frontier::FetchOutcome> outcomes;
    for (const frontier::LeasedTask& task : tasks) {
      ++visit;  // every visit finds a change
      outcomes.push_back({.lease_id = task.lease_id,
                          .outcome = frontier::OutcomeClass::kFetched,
                          .http_status = 200,
                          .content_fingerprint = visit * 0x9E3779B97F4A7C15ull,
                          .content_length = 100});
    }
    ASSERT_TRUE(p.frontier->Complete(outcomes).ok());
    ASSERT_TRUE(s->TuneRevisits({p.client.get()}).ok());
    clock.Advance(absl::Hours(1));
  }
  absl::StatusOr<RevisitTuning> tuning = s->TuneRevisits({p.client.get()});
  ASSERT_TRUE(tuning.ok());
  EXPECT_FALSE(tuning->mu.has_value());
  ASSERT_GT(tuning->observed_rate_per_day, 0);
  ASSERT_TRUE(tuning->expected_freshness.has_value());
  EXPECT_GT(*tuning->expected_freshness, 0);
  EXPECT_LT(*tuning->expected_freshness, 1);
  ASSERT_TRUE(tuning->planned_spend_ratio.has_value());
  EXPECT_EQ(*tuning->planned_spend_ratio, 1);
}

// A frontier from before the fitted prior: its status carries no evidence. Records whether the
// fleet summaries it was sent had a prior.
class NoEvidenceClient final : public frontier::FrontierClient {
 public:
  explicit NoEvidenceClient(frontier::FrontierClient& inner) : inner_(inner) {}
  absl::StatusOr<frontier::AddResult> AddUrls(const std::vector<frontier::UrlToAdd>& u) override {
    return inner_.AddUrls(u);
  }
  absl::StatusOr<std::vector<frontier::LeasedTask>> Lease(size_t n, size_t per_host) override {
    return inner_.Lease(n, per_host);
  }
  absl::StatusOr<frontier::CompleteResult> Complete(
      const std::vector<frontier::FetchOutcome>& o) override {
    return inner_.Complete(o);
  }
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<frontier::LeaseId>& ids) override {
    return inner_.ReleaseLeases(ids);
  }
  absl::StatusOr<frontier::FetcherControlTable> HostControls(uint64_t known) override {
    return inner_.HostControls(known);
  }
  absl::StatusOr<size_t> ReportHostTimes(const std::vector<frontier::HostTime>& t) override {
    return inner_.ReportHostTimes(t);
  }
  absl::StatusOr<bool> IsExhausted() override { return inner_.IsExhausted(); }
  absl::StatusOr<frontier::FrontierStats> Stats() override { return inner_.Stats(); }
  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> LookupUrls(
      const std::vector<std::string>& urls) override {
    return inner_.LookupUrls(urls);
  }
  absl::StatusOr<frontier::RevisitStatus> GetRevisitStatus() override {
    absl::StatusOr<frontier::RevisitStatus> status = inner_.GetRevisitStatus();
    if (status.ok()) status->evidence.reset();
    return status;
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override {
    sent_prior = fleet.prior != nullptr;
    return inner_.RetuneRevisits(fleet);
  }
  bool sent_prior = false;

 private:
  frontier::FrontierClient& inner_;
};

// The fitted prior (docs/recrawl.md §3): TuneRevisits merges the partitions' evidence, fits the
// prior (warm-started from the previous one) and sends it; the partitions' estimates are then
// each page's posterior rate under it. Without evidence from every partition, or with the
// fleet-mean prior, none is sent and the Gamma prior stays.
TEST(SchedulerRevisitTest, FitsThePriorToThePartitionsEvidenceAndSendsIt) {
  Collection c = Revisiting(240);
  std::unique_ptr<Scheduler> s = Scheduler::Create(c, {}).value();
  FakeClock clock;
  clock.Advance(absl::FromUnixSeconds(1'800'000'000) - clock.Now());
  Partition p0(c, clock);
  Partition p1(c, clock);
  AddRoots(p0, 20, ".a.test");
  AddRoots(p1, 20, ".b.test");
  std::vector<frontier::FrontierClient*> partitions = {p0.client.get(), p1.client.get()};
  uint64_t visit = 0;
  std::optional<recrawl::RatePrior> previous;
  // An OptimalPolicy with the partitions' options, tuned to every fleet summary they are sent:
  // each solve starts from the previous one's multiplier and corrects for the lag of the pages'
  // commitments (posterior_allocation.h), so the same history of summaries gives the same mu.
  recrawl::OptimalPolicy same(collections::EffectivePolicyOptions(c.revisit.options).optimal);
  const recrawl::RateHistogram no_rates;
  auto tune_same = [&](const RevisitTuning& tuning) {
    recrawl::FleetEvidence merged;
    for (frontier::FrontierClient* p : partitions) merged.Merge(*p->GetRevisitStatus()->evidence);
    same.Retune(recrawl::FleetSummary{
        .budget_visits_per_day = c.revisit.budget_visits_per_day,
        .page_count = static_cast<int64_t>(tuning.pages),
        .rates = &no_rates,
        .prior = tuning.prior.has_value() ? &*tuning.prior : nullptr,
        .evidence = tuning.prior.has_value() ? &merged : nullptr});
  };
  for (int step = 0; step < 24; ++step) {
    for (Partition* p : {&p0, &p1}) VisitDue(*p, visit);
    absl::StatusOr<RevisitTuning> tuning =
        s->TuneRevisits(partitions, previous.has_value() ? &*previous : nullptr);
    ASSERT_TRUE(tuning.ok()) << tuning.status();
    tune_same(*tuning);
    if (tuning->prior.has_value()) previous = tuning->prior;
    clock.Advance(absl::Minutes(30));
  }
  ASSERT_TRUE(previous.has_value());

  // The fit is the merged evidence's, from the previous prior, 20 EM iterations.
  recrawl::FleetEvidence merged;
  for (frontier::FrontierClient* p : partitions) merged.Merge(*p->GetRevisitStatus()->evidence);
  const recrawl::RatePrior expected =
      merged.Fit(*previous, recrawl::FleetEvidence::FitOptions{.iterations = 20});
  absl::StatusOr<RevisitTuning> tuning = s->TuneRevisits(partitions, &*previous);
  ASSERT_TRUE(tuning.ok());
  ASSERT_TRUE(tuning->prior.has_value());
  tune_same(*tuning);
  for (int k = 0; k < recrawl::RatePrior::kPoints; ++k) {
    EXPECT_NEAR(tuning->prior->weight(k), expected.weight(k), 1e-9 + 1e-9 * expected.weight(k));
  }
  EXPECT_DOUBLE_EQ(*tuning->prior_mean_rate_per_day, tuning->prior->Mean());
  EXPECT_FALSE(tuning->fleet_beyond_prior_grid);
  EXPECT_NEAR(tuning->evidence_pages, merged.page_count(), 1e-9);
  EXPECT_GT(tuning->evidence_pages, 0);
  EXPECT_EQ(tuning->evidence_cells, merged.cell_count());

  // The partitions decide with it (lib/recrawl/optimal_policy.h): a page visited now gets the
  // decision of its posterior, mu solved over the merged evidence, exactly as an OptimalPolicy
  // tuned to the same fleet summaries decides it, and its posterior log-mean as its estimate.
  clock.Advance(absl::Hours(24));
  VisitDue(p0, visit);
  const frontier::UrlRecord record = p0.frontier->LookupUrl("http://h19.a.test/").value();
  const recrawl::PageRevisitState page =
      recrawl::PageRevisitState::Decode(record.visit_history).value();
  EXPECT_DOUBLE_EQ(page.policy.rate_per_day,
                   recrawl::Belief::Of(tuning->prior->Posterior(
                                           recrawl::PooledEvidence::Of(page.history)))
                       .LogMeanRate());
  const recrawl::Decision decided =
      same.Decide(recrawl::PageView{.history = page.history}, recrawl::PolicyState{});
  EXPECT_GT(page.policy.interval_days, 0);  // decided by the posterior rule
  EXPECT_NEAR(page.policy.interval_days, decided.state.interval_days,
              1e-9 * decided.state.interval_days);
  EXPECT_TRUE(tuning->mu.has_value());
  ASSERT_TRUE(tuning->planned_spend_ratio.has_value());
  EXPECT_NEAR(*tuning->planned_spend_ratio, 1.0, 1e-6);

  // A partition without evidence (an older frontier): no prior, for any partition.
  NoEvidenceClient old(*p1.client);
  tuning = s->TuneRevisits({p0.client.get(), &old}, &*previous);
  ASSERT_TRUE(tuning.ok());
  EXPECT_FALSE(tuning->prior.has_value());
  EXPECT_FALSE(tuning->prior_mean_rate_per_day.has_value());
  EXPECT_FALSE(old.sent_prior);
  // Back on the Gamma prior: a page visited now no longer gets the posterior rate.
  clock.Advance(absl::Hours(24));
  VisitDue(p0, visit);
  const recrawl::PageRevisitState gamma_page =
      recrawl::PageRevisitState::Decode(
          p0.frontier->LookupUrl("http://h19.a.test/").value().visit_history)
          .value();
  EXPECT_NE(gamma_page.policy.rate_per_day, previous->PosteriorRate(gamma_page.history));

  // A fleet visited faster than the prior's grid reaches (here 200,000 visits a page a day,
  // above a tenth of RatePrior::kMaxRate): none fitted, the Gamma prior has no upper end.
  Collection fast = c;
  fast.revisit.budget_visits_per_day = 40 * 2e5;
  std::unique_ptr<Scheduler> s_fast = Scheduler::Create(fast, {}).value();
  tuning = s_fast->TuneRevisits({p0.client.get(), p1.client.get()}, &*previous);
  ASSERT_TRUE(tuning.ok());
  EXPECT_TRUE(tuning->fleet_beyond_prior_grid);
  EXPECT_FALSE(tuning->prior.has_value());

  // The fleet-mean prior: none fitted, whatever the partitions keep.
  Collection fleet_mean = c;
  fleet_mean.revisit.options.prior = "fleet-mean";
  std::unique_ptr<Scheduler> s2 = Scheduler::Create(fleet_mean, {}).value();
  NoEvidenceClient watch(*p0.client);
  tuning = s2->TuneRevisits({&watch, p1.client.get()});
  ASSERT_TRUE(tuning.ok());
  EXPECT_FALSE(tuning->prior.has_value());
  EXPECT_FALSE(watch.sent_prior);
}

}  // namespace
}  // namespace crawler::scheduler
