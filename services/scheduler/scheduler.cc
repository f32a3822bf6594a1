#include "services/scheduler/scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/encoding/utf8.h"
#include "lib/recrawl/allocation_solver.h"
#include "lib/recrawl/freshness.h"
#include "lib/recrawl/optimal_policy.h"
#include "lib/recrawl/posterior_allocation.h"
#include "lib/recrawl/rate_histogram.h"
#include "lib/recrawl/rate_prior.h"
#include "lib/recrawl/revisit_policy.h"
#include "lib/url/host_key.h"

namespace crawler::scheduler {

namespace {

// What the collection's allocation plans (RevisitTuning::mu, expected_freshness,
// planned_spend_ratio): the solve every partition's policy repeats in Retune, here for the
// report. `observed`: some re-visit has been made.
void ReportAllocation(const CollectionRevisit& revisit, const recrawl::FleetSummary& fleet,
                      const recrawl::RateHistogram& rates, const recrawl::FleetEvidence& evidence,
                      bool observed, RevisitTuning& tuning) {
  const recrawl::OptimalPolicyOptions optimal =
      collections::EffectivePolicyOptions(revisit.options).optimal;
  const double budget = revisit.budget_visits_per_day;
  if (revisit.options.policy == "optimal" && optimal.expected_freshness &&
      fleet.prior != nullptr && evidence.page_count() > 0) {
    // The rule every partition's policy applies in Retune (lib/recrawl/optimal_policy.h), solved
    // here for the report: pages without a history are visited at the uniform interval.
    const double share =
        std::min(1.0, evidence.page_count() / static_cast<double>(fleet.page_count));
    absl::StatusOr<recrawl::PosteriorAllocation> solved = recrawl::PosteriorAllocation::Solve(
        evidence, *fleet.prior, budget * share,
        recrawl::PosteriorAllocationOptions{
            .min_visits_per_day = recrawl::PosteriorRuleFloor(optimal, budget, fleet.page_count)});
    if (solved.ok()) {
      if (std::isfinite(solved->mu)) tuning.mu = solved->mu;
      tuning.expected_freshness = solved->expected_freshness;
      tuning.planned_spend_ratio = (solved->visits_per_day + budget * (1 - share)) / budget;
    }
  } else if (revisit.options.policy == "optimal" && tuning.pages > 0) {
    // The same solve every partition's policy repeats in Retune: here for the report. With no
    // page estimated to change yet, it leaves only the floor to spend.
    const recrawl::AllocationSolver solver(recrawl::AllocationOptions{
        .min_visits_per_day = optimal.min_visits_per_day});
    absl::StatusOr<recrawl::Allocation> allocation = solver.Solve(rates, budget);
    if (allocation.ok()) {
      if (tuning.pages_with_rate > 0) tuning.mu = allocation->mu;
      double fresh = rates.static_pages();
      for (const recrawl::RateHistogram::Bin& bin : rates.bins()) {
        if (!(bin.pages > 0)) continue;
        const double rate = bin.rate_sum / bin.pages;
        fresh += bin.pages * recrawl::ExpectedFreshness(
                                 recrawl::VisitOrder::kFixed, rate,
                                 solver.VisitsPerDay(rate, rate / (bin.key_sum / bin.pages),
                                                     *allocation));
      }
      tuning.expected_freshness = fresh / tuning.pages;
      if (std::isfinite(allocation->visits_per_day)) {
        tuning.planned_spend_ratio = allocation->visits_per_day / budget;
      }
    }
  } else if (revisit.options.policy == "uniform" && tuning.pages > 0 && observed) {
    // Every page visited budget / fleet pages a day; the policy estimates no rates, so each page
    // is taken to change at the rate all re-visits observed.
    const double visits_per_day = budget / static_cast<double>(fleet.page_count);
    tuning.expected_freshness = recrawl::ExpectedFreshness(
        recrawl::VisitOrder::kFixed, tuning.observed_rate_per_day, visits_per_day);
    tuning.planned_spend_ratio = 1.0;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Scheduler>> Scheduler::Create(
    const Collection& collection, const url::CanonicalizeOptions& canonical) {
  absl::StatusOr<std::unique_ptr<collections::CollectionScope>> scope =
      collections::CollectionScope::Create(collection, canonical);
  if (!scope.ok()) return scope.status();
  return std::unique_ptr<Scheduler>(new Scheduler(collection, *std::move(scope), canonical));
}

namespace {

// A rejected seed as a report lists it: "url: reason", a long URL abbreviated so that the
// reason stays in sight.
std::string Rejected(std::string_view url, std::string_view reason) {
  return absl::StrCat(encoding::Abbreviated(url, kShownSeedBytes), ": ", std::string(reason));
}

}  // namespace

size_t Scheduler::SeedsInScope(std::vector<std::string>* rejected) const {
  size_t in_scope = 0;
  auto count = [&](const std::vector<url::Url>& urls,
                   const std::vector<url::CanonicalUrl>& canonical) {
    for (size_t i = 0; i < urls.size(); ++i) {
      const scope::Verdict verdict = scope().Check(urls[i], canonical[i].str(), 0);
      if (verdict == scope::Verdict::kInScope) {
        ++in_scope;
      } else if (rejected != nullptr) {
        rejected->push_back(Rejected(canonical[i].str(), scope::VerdictName(verdict)));
      }
    }
  };
  count(scope_->seed_urls(), scope_->seed_canonical());
  count(scope_->sitemap_seed_urls(), scope_->sitemap_seed_canonical());
  return in_scope;
}

std::vector<std::string> Scheduler::ScopeSeeds() const { return scope_->ScopeSeeds(); }

absl::StatusOr<SeedReport> Scheduler::FeedSeeds(frontier::FrontierClient& frontier,
                                                 const SeedFeedOptions& options) const {
  SeedReport report;
  std::vector<frontier::UrlToAdd> batch;
  // The seeds as pages (level 0), then the sitemap seeds as sitemaps to read (level 1).
  auto add = [&](const std::vector<url::Url>& urls,
                 const std::vector<url::CanonicalUrl>& canonical, uint8_t sitemap_level) {
    report.seeds += urls.size();
    for (size_t i = 0; i < urls.size(); ++i) {
      const scope::Verdict verdict = scope().Check(urls[i], canonical[i].str(), 0);
      if (verdict != scope::Verdict::kInScope) {
        report.rejected.push_back(Rejected(canonical[i].str(), scope::VerdictName(verdict)));
        continue;
      }
      batch.push_back(frontier::UrlToAdd{.canonical_url = canonical[i].str(),
                                         .host_key = url::HostKey::Of(urls[i]).str(),
                                         .depth = 0,
                                         .sitemap_level = sitemap_level});
    }
  };
  add(scope_->seed_urls(), scope_->seed_canonical(), 0);
  add(scope_->sitemap_seed_urls(), scope_->sitemap_seed_canonical(), 1);
  if (absl::Status s = Feed(frontier, batch, options, report); !s.ok()) return s;
  return report;
}

absl::StatusOr<Scheduler::Judged> Scheduler::Judge(std::string_view raw, uint32_t depth) const {
  absl::StatusOr<url::Url> parsed = url::Url::Parse(raw);
  if (!parsed.ok()) return absl::InvalidArgumentError(parsed.status().message());
  absl::StatusOr<url::CanonicalUrl> canonical = url::Canonicalize(*parsed, canonical_);
  if (!canonical.ok()) return absl::InvalidArgumentError(canonical.status().message());
  const scope::Verdict verdict = scope().Check(*parsed, canonical->str(), depth);
  return Judged{.canonical = *std::move(canonical),
                .host_key = url::HostKey::Of(*parsed).str(),
                .verdict = verdict};
}

absl::StatusOr<SeedReport> Scheduler::AddSeeds(frontier::FrontierClient& frontier,
                                                const std::vector<std::string>& seeds,
                                                const SeedFeedOptions& options,
                                                SeedKind kind) const {
  SeedReport report;
  report.seeds = seeds.size();
  std::vector<frontier::UrlToAdd> batch;
  batch.reserve(seeds.size());
  for (const std::string& seed : seeds) {
    absl::StatusOr<Judged> judged = Judge(seed, 0);
    if (!judged.ok()) {
      report.rejected.push_back(Rejected(seed, std::string(judged.status().message())));
      continue;
    }
    if (judged->verdict != scope::Verdict::kInScope) {
      report.rejected.push_back(
          Rejected(judged->canonical.str(), scope::VerdictName(judged->verdict)));
      continue;
    }
    batch.push_back(frontier::UrlToAdd{
        .canonical_url = judged->canonical.str(),
        .host_key = std::move(judged->host_key),
        .depth = 0,
        .sitemap_level = static_cast<uint8_t>(kind == SeedKind::kSitemap ? 1 : 0)});
  }
  if (absl::Status s = Feed(frontier, batch, options, report); !s.ok()) return s;
  return report;
}

absl::Status Scheduler::Feed(frontier::FrontierClient& frontier,
                             const std::vector<frontier::UrlToAdd>& batch,
                             const SeedFeedOptions& options, SeedReport& report) const {
  const size_t per_call = std::max<size_t>(1, options.batch_urls);
  for (size_t begin = 0; begin < batch.size(); begin += per_call) {
    const std::vector<frontier::UrlToAdd> part(
        batch.begin() + static_cast<std::ptrdiff_t>(begin),
        batch.begin() + static_cast<std::ptrdiff_t>(std::min(batch.size(), begin + per_call)));
    auto on_failure = [&report](const absl::Status& error, uint32_t) {
      ++report.failed_calls;
      report.last_error = error;
    };
    absl::StatusOr<frontier::AddResult> added = retry::RetryCall<frontier::AddResult>(
        [&] { return frontier.AddUrls(part); }, options.retry, options.sleep, on_failure);
    if (!added.ok()) return added.status();
    report.queued += added->added;
    report.already_seen += added->already_seen;
  }
  return absl::OkStatus();
}

absl::StatusOr<RevisitTuning> Scheduler::TuneRevisits(
    const std::vector<frontier::FrontierClient*>& partitions,
    const recrawl::RatePrior* previous_prior) const {
  const CollectionRevisit& revisit = collection_.revisit;
  if (!revisit.options.enabled) {
    return absl::FailedPreconditionError(
        absl::StrCat("collection ", collection_.name, " does not re-visit pages"));
  }
  recrawl::RateHistogram rates;
  uint64_t pending_urls = 0;
  double changes_seen = 0;
  double days_observed = 0;
  recrawl::FleetEvidence evidence;
  bool every_partition_has_evidence = true;
  for (frontier::FrontierClient* partition : partitions) {
    absl::StatusOr<frontier::RevisitStatus> status = partition->GetRevisitStatus();
    if (!status.ok()) return status.status();
    rates.Merge(status->rates);
    if (status->evidence.has_value()) {
      evidence.Merge(*status->evidence);
    } else {
      every_partition_has_evidence = false;
    }
    pending_urls += status->pending_urls;
    changes_seen += status->changes_seen;
    days_observed += status->days_observed;
  }
  RevisitTuning tuning;
  tuning.pages = rates.page_count();
  tuning.pages_with_rate = rates.page_count() - rates.static_pages();
  tuning.budget_visits_per_day = revisit.budget_visits_per_day;
  if (tuning.pages > 0) tuning.mean_rate_per_day = rates.total_rate() / tuning.pages;
  // The prior of every page's estimate is centred on what all re-visits saw (changes per day
  // of observation), not on the estimates themselves, which lean on that same prior.
  if (days_observed > 0) tuning.observed_rate_per_day = changes_seen / days_observed;
  recrawl::FleetSummary fleet{
      .budget_visits_per_day = revisit.budget_visits_per_day,
      // While the crawl still discovers pages, those queued for a first visit count too (a
      // page re-queued for its re-visit is counted twice for that moment: a small bias).
      .page_count = static_cast<int64_t>(tuning.pages) + static_cast<int64_t>(pending_urls),
      .rates = &rates,
      .mean_rate_per_day = tuning.observed_rate_per_day};
  if (fleet.page_count == 0) return tuning;

  // The fitted prior, as crawlsim fits it: over the whole fleet's evidence (a partition
  // without any, an older frontier, would leave its pages out, so then none is fitted).
  tuning.evidence_pages = evidence.page_count();
  tuning.evidence_cells = evidence.cell_count();
  // RatePrior's grid ends at kMaxRate changes a day. A fleet visited, or seen changing, within a
  // decade of that (a test web changing in seconds) has pages beyond it, which the fitted
  // prior would hold at the grid's end: every fast page underestimated, and the budget left
  // unspent. Such a fleet keeps the Gamma prior, which has no upper end.
  const double visits_per_page_day =
      revisit.budget_visits_per_day / static_cast<double>(fleet.page_count);
  tuning.fleet_beyond_prior_grid =
      std::max(visits_per_page_day, tuning.observed_rate_per_day) >
      recrawl::RatePrior::kMaxRate / 10;
  if (revisit.options.prior == "fitted" && every_partition_has_evidence &&
      !tuning.fleet_beyond_prior_grid && evidence.page_count() > 0) {
    recrawl::FleetEvidence::FitOptions fit;
    // Warm-started, a fit moves little between tunings (rate_prior.h: 20 iterations suffice).
    if (previous_prior != nullptr) fit.iterations = 20;
    tuning.prior = evidence.Fit(
        previous_prior != nullptr
            ? *previous_prior
            : recrawl::RatePrior::FromGamma(recrawl::FleetPrior(
                  fleet, revisit.options.policy_options.optimal.prior_shape)),
        fit);
    tuning.prior_mean_rate_per_day = tuning.prior->Mean();
    fleet.prior = &*tuning.prior;
    fleet.evidence = &evidence;
  }

  ReportAllocation(revisit, fleet, rates, evidence, days_observed > 0, tuning);
  for (frontier::FrontierClient* partition : partitions) {
    if (absl::Status status = partition->RetuneRevisits(fleet); !status.ok()) return status;
  }
  return tuning;
}

}  // namespace crawler::scheduler
