// Scheduler: the control-plane core (docs/architecture.md §3). It holds a collection's definition,
// builds the scope every component applies, feeds the seeds to the frontier, and tunes the re-visit
// policy (docs/architecture.md §7): TuneRevisits merges the frontier partitions' histograms of
// estimated change rates (and, for the fitted prior, their evidence, to which it fits the
// estimators' prior), solves the policy's fleet-wide parameters for the collection's budget (for
// "optimal": the multiplier mu) and sends the fleet summary to every partition, whose policy
// then turns each page's own estimate into its next visit in O(1). A focused collection's host
// choice (the bandit of docs/architecture.md §8) is each frontier partition's (focus_selector.h);
// the service splits its page budget over the partitions by reward (focus_budget_tuner.h).
//
// Thread-safety: the collection and scope are immutable after Create; FeedSeeds and
// TuneRevisits may be called from any thread.
#ifndef CRAWLER_SERVICES_SCHEDULER_SCHEDULER_H_
#define CRAWLER_SERVICES_SCHEDULER_SCHEDULER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/recrawl/rate_prior.h"
#include "lib/scope/scope.h"
#include "lib/url/canonical_url.h"
#include "lib/url/url.h"
#include "services/collections/collection.h"
#include "services/collections/collection_scope.h"
#include "services/common/retry/backoff.h"
#include "services/frontier/frontier_client.h"

namespace crawler::scheduler {

// The scheduler owns collections; their definition lives below every service
// (services/collections), so that the frontier and the fetcher share it.
using collections::Collection;
using collections::CollectionFocus;
using collections::CollectionLimits;
using collections::CollectionRevisit;

// URLs longer than this are abbreviated in reports of rejected seeds (encoding::Abbreviated).
inline constexpr size_t kShownSeedBytes = 200;

struct SeedReport {
  size_t seeds = 0;
  size_t queued = 0;                  // new to the frontier
  size_t already_seen = 0;            // known already (a resumed crawl)
  std::vector<std::string> rejected;  // "url: reason", a URL longer than 200 bytes abbreviated
  // Frontier calls that failed and were tried again, and the last such error.
  uint32_t failed_calls = 0;
  absl::Status last_error;
};

// How FeedSeeds talks to the frontier: seeds go in batches, each retried through an outage.
struct SeedFeedOptions {
  // Seeds per AddUrls call (a routed client splits them further per partition).
  size_t batch_urls = 512;
  // Attempts per batch before FeedSeeds gives up with the frontier's error; a batch that
  // reached the frontier before a failure is harmless to send again (seeds already seen).
  retry::BackoffOptions retry{.initial = absl::Milliseconds(100),
                              .max = absl::Seconds(5),
                              .max_attempts = 10};
  // Waits between attempts (absl::SleepFor when empty; tests record instead).
  std::function<void(absl::Duration)> sleep;
};

// What one TuneRevisits call found and decided.
struct RevisitTuning {
  // Pages scheduled for re-visits across the partitions, and how many of them have a rate
  // estimate > 0 (the others are believed static, or their policy does not estimate rates).
  double pages = 0;
  double pages_with_rate = 0;
  double budget_visits_per_day = 0;
  // Mean estimated change rate over all pages, changes per day.
  double mean_rate_per_day = 0;
  // Changes seen per day of observation over all re-visits so far (0 before any): centres the
  // estimators' Gamma prior.
  double observed_rate_per_day = 0;
  // The prior fitted to the partitions' merged evidence and sent with the fleet summary
  // (RevisitOptions::prior "fitted"; docs/recrawl.md §3), and its mean rate, changes per day.
  // Absent with the fleet-mean prior, before any page has a history, when a partition sent
  // no evidence (a frontier from before the fitted prior), and when the fleet is too fast for
  // the prior's grid (fleet_beyond_prior_grid): the estimators then use the Gamma prior centred
  // on observed_rate_per_day.
  std::optional<recrawl::RatePrior> prior;
  std::optional<double> prior_mean_rate_per_day;
  // The budget per page or the observed rate exceeds a tenth of RatePrior::kMaxRate (10^5 a day):
  // many pages would change faster than the fitted prior's grid reaches, so none is fitted.
  bool fleet_beyond_prior_grid = false;
  // The merged evidence's size: pages with a history, and cells (what the partitions shipped).
  double evidence_pages = 0;
  size_t evidence_cells = 0;
  // "optimal" only: the multiplier solved (over the pages' posteriors under the fitted prior,
  // else over the histogram of estimates). Absent for other policies, before any page with a
  // rate estimate is scheduled, or when the floor alone spends the budget.
  std::optional<double> mu;
  // The mean freshness the allocation expects over the pages scheduled (fixed-order visits):
  // "optimal" under the fitted prior: the posterior-expected freshness of the pages with a
  // history at their decided frequencies; "optimal" otherwise: with each page's estimated rate
  // (histogram resolution) and its solved frequency, pages believed static counting as fresh
  // (so 1 while no page is estimated to change); "uniform": with every page changing at the
  // observed rate (observed_rate_per_day; absent before any re-visit) and visited budget /
  // fleet pages a day. Absent for other policies and before any page is scheduled.
  std::optional<double> expected_freshness;
  // The re-visits per day the allocation plans over the fleet, divided by the budget (planned,
  // not measured): "optimal": the solved frequencies summed, pages without a history at the
  // uniform interval (1 unless the floor moves it; only the floor, 0 without one, while no page
  // is estimated to change); "uniform": 1. Absent when expected_freshness is.
  std::optional<double> planned_spend_ratio;
};

class Scheduler {
 public:
  // Parses and canonicalises the seeds and builds the scope. Errors: kInvalidArgument naming a
  // malformed seed, suffix or pattern, or an empty seed list.
  static absl::StatusOr<std::unique_ptr<Scheduler>> Create(
      const Collection& collection, const url::CanonicalizeOptions& canonical);

  const Collection& collection() const { return collection_; }
  const scope::Scope& scope() const { return scope_->scope(); }

  // Queues the collection's seeds (depth 0) in batches, then its sitemap seeds (as sitemaps to
  // read, depth 0; Collection::sitemap_seeds). Seeds outside the scope are reported,
  // not queued. Transient frontier errors (retry::IsRetryable) are retried per SeedFeedOptions
  // and counted in the report; other errors, or a batch out of attempts, are returned (seeds of
  // earlier batches are queued).
  absl::StatusOr<SeedReport> FeedSeeds(frontier::FrontierClient& frontier,
                                       const SeedFeedOptions& options = {}) const;

  // The same for more seeds of this collection (the admin API's AddSeeds): each is parsed and
  // canonicalised like the collection's own; one that does not parse is reported as rejected
  // ("url: reason"), as is one outside the scope. The scope stays the collection's: for
  // same_site_only, the sites of the seeds it was created with. `kind` kSitemap queues them as
  // sitemaps to read (frontier::UrlToAdd::sitemap_level 1).
  enum class SeedKind { kPage, kSitemap };
  absl::StatusOr<SeedReport> AddSeeds(frontier::FrontierClient& frontier,
                                      const std::vector<std::string>& seeds,
                                      const SeedFeedOptions& options = {},
                                      SeedKind kind = SeedKind::kPage) const;

  // The collection's seeds its scope admits (at depth 0); `rejected` (may be null) gets the
  // others as "url: reason". A collection with none would fetch nothing.
  size_t SeedsInScope(std::vector<std::string>* rejected) const;

  // The seeds the scope depends on: for same_site_only, the first seed of each site (the
  // scope's sites); otherwise the first seed. What a fetcher, which builds the scope but never
  // feeds seeds, needs of the seed list.
  std::vector<std::string> ScopeSeeds() const;

  // The canonical form of `raw` (as seeds and explained URLs are canonicalised), its host key,
  // and the scope's verdict at `depth`. kInvalidArgument if it does not parse.
  struct Judged {
    url::CanonicalUrl canonical;
    std::string host_key;
    scope::Verdict verdict;
  };
  absl::StatusOr<Judged> Judge(std::string_view raw, uint32_t depth) const;

  // Re-tunes the re-visit policy of every partition for the collection's budget (see the header
  // comment). Call it once before the crawl starts and then periodically (every few seconds to
  // minutes: the histogram moves slowly), and whenever the crawl has discovered many pages
  // since. The fleet is the pages with estimates plus the URLs still queued, so first visits get
  // the uniform interval pages / budget. kFailedPrecondition if the collection does not re-visit; a partition's
  // error is returned (partitions before it have been tuned).
  // The fitted prior starts from `previous_prior` (the previous tuning's RevisitTuning::prior;
  // EM then needs far fewer iterations), or from the Gamma prior centred on the fleet when null.
  absl::StatusOr<RevisitTuning> TuneRevisits(
      const std::vector<frontier::FrontierClient*>& partitions,
      const recrawl::RatePrior* previous_prior = nullptr) const;

 private:
  Scheduler(Collection collection, std::unique_ptr<collections::CollectionScope> scope,
            const url::CanonicalizeOptions& canonical)
      : collection_(std::move(collection)), scope_(std::move(scope)), canonical_(canonical) {}

  // Queues `batch` (in scope already) per `options` into `report`.
  absl::Status Feed(frontier::FrontierClient& frontier, const std::vector<frontier::UrlToAdd>& batch,
                    const SeedFeedOptions& options, SeedReport& report) const;

  const Collection collection_;
  const std::unique_ptr<const collections::CollectionScope> scope_;
  const url::CanonicalizeOptions canonical_;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_SCHEDULER_H_
