// RevisitOptions: how a collection keeps its pages fresh, as each frontier partition applies it
// (the scheduler tunes the policy's fleet-wide parameters: services/scheduler/scheduler.h).
//
// Thread-safety: plain values.
#ifndef CRAWLER_SERVICES_COLLECTIONS_REVISIT_OPTIONS_H_
#define CRAWLER_SERVICES_COLLECTIONS_REVISIT_OPTIONS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/recrawl/policy_factory.h"

namespace crawler::collections {

// Re-visiting (docs/architecture.md §7). Off, a URL is done after its final outcome: a one-off
// crawl. On, every URL whose content the crawler holds (outcome fetched, duplicate or not_modified)
// goes back into the due index after each visit, due when the collection's re-visit policy says:
// the frontier records the visit in the URL's history (changed = the main content's change
// digest differs, or for pages and records without digests the SimHash moved by more than
// change_threshold_bits: lib/fingerprint/change_detection.h; a 304 is unchanged), asks the policy
// for the next interval and clamps it to [min_interval, max_interval]. The policy's fleet-wide
// parameters (for "optimal": the multiplier mu that spends the re-visit budget) come from the
// scheduler (Frontier:: RetuneRevisits). A URL whose first visit ends in a redirect, an error or a
// robots denial is not re-visited. A page that held content and then fails (an error after its
// retries, a redirect, a robots denial) stays in the re-visit fleet, re-visited after twice the
// time since its previous visit (doubling per consecutive failure, within the interval bounds); a
// 404 or 410 twice in a row, or a URL now out of scope, leaves the fleet and its rate histogram. A
// redirect's target is re-visited as its own URL (it comes in through AddUrls).
struct RevisitOptions {
  bool enabled = false;
  // A lib/recrawl policy name (policy_factory.h): optimal, uniform, proportional, fixed, nutch,
  // stormcrawler, step, bayes-published, bayes-corrected.
  std::string policy = "optimal";
  recrawl::PolicyOptions policy_options;
  // Whatever the policy says, a page is re-visited no sooner than min_interval (protects sites
  // and the budget from a runaway estimate) and no later than max_interval (a page the policy
  // gave up on, as too fast to keep fresh or as static, is still looked at now and then, so a
  // wrong estimate heals). 0 < min_interval <= max_interval.
  absl::Duration min_interval = absl::Minutes(1);
  absl::Duration max_interval = absl::Hours(24 * 30);
  // Visits kept per URL for the estimators, [1, 64] (visit_history.h).
  int history_capacity = 32;
  // SimHash bits that make a visit "changed" where no change digest decides (a record stored
  // before digests, a page without main content text: lib/fingerprint/change_detection.h),
  // [0, 64].
  int change_threshold_bits = 7;
  // The estimators' prior (docs/recrawl.md §3): "fitted" (the partition keeps the fleet's
  // evidence, recrawl::FleetEvidence, next to its rate histogram and ships it to the scheduler,
  // which fits the prior and sends it back with the fleet summary) or "fleet-mean" (the Gamma
  // prior centred on the fleet's observed rate; no evidence is kept). Until a fitted prior
  // arrives, and whenever the scheduler sends none, the policies use the Gamma prior. Only the
  // estimating policies (optimal, proportional) use it.
  std::string prior = "fitted";
  // The re-visit budget is a hard cap (revisit_budget.h): this partition's share of the
  // collection's budget (set by RetuneRevisits) accrues as tokens, and a re-visit that is due
  // when none is left waits in the due index, first due first. `budget_burst` is how much of
  // the budget may be saved up and spent at once: longer smooths bursts of due pages, shorter
  // holds the measured spend closer to the budget over short stretches. >= 0 (at least one
  // visit is always allowed). Not in the collection config: a server-wide setting.
  absl::Duration budget_burst = absl::Hours(1);

  friend bool operator==(const RevisitOptions&, const RevisitOptions&) = default;
};

// kInvalidArgument naming the first field out of range (only when enabled).
absl::Status ValidateRevisitOptions(const RevisitOptions& revisit);

// The policy options the collection's re-visits run with: `revisit.policy_options` with the
// optimal policy's exploration floor raised to one visit per max_interval, since the frontier
// re-visits every page at least that often whatever the policy says, and the optimal solve must
// count those visits to spend the budget it is given.
recrawl::PolicyOptions EffectivePolicyOptions(const RevisitOptions& revisit);

}  // namespace crawler::collections

#endif  // CRAWLER_SERVICES_COLLECTIONS_REVISIT_OPTIONS_H_
