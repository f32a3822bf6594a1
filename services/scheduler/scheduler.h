// Scheduler: the control-plane core (DESIGN.md §3). It holds a collection's definition, builds
// the scope every component applies, and feeds the seeds to the frontier. (Re-visit policy and
// bandit allocation arrive with their own issues.)
//
// Thread-safety: immutable after Create; FeedSeeds may be called from any thread.
#ifndef CRAWLER_SERVICES_SCHEDULER_SCHEDULER_H_
#define CRAWLER_SERVICES_SCHEDULER_SCHEDULER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/scope/scope.h"
#include "lib/url/canonical_url.h"
#include "lib/url/public_suffix_list.h"
#include "lib/url/url.h"
#include "services/frontier/frontier_client.h"
#include "services/scheduler/collection.h"

namespace crawler::scheduler {

struct SeedReport {
  size_t seeds = 0;
  size_t queued = 0;                  // new to the frontier
  size_t already_seen = 0;            // known already (a resumed crawl)
  std::vector<std::string> rejected;  // "url: reason"
};

class Scheduler {
 public:
  // Parses and canonicalises the seeds and builds the scope. Errors: kInvalidArgument naming a
  // malformed seed, suffix or pattern, or an empty seed list.
  static absl::StatusOr<std::unique_ptr<Scheduler>> Create(
      const Collection& collection, const url::CanonicalizeOptions& canonical);

  const Collection& collection() const { return collection_; }
  const scope::Scope& scope() const { return *scope_; }

  // Queues the seeds (depth 0) in one batch. Seeds outside the scope are reported, not queued.
  absl::StatusOr<SeedReport> FeedSeeds(frontier::FrontierClient& frontier) const;

 private:
  Scheduler(Collection collection, std::unique_ptr<url::PublicSuffixList> psl)
      : collection_(std::move(collection)), psl_(std::move(psl)) {}

  const Collection collection_;
  std::unique_ptr<url::PublicSuffixList> psl_;  // only for same-site scopes
  std::unique_ptr<scope::Scope> scope_;
  std::vector<url::Url> seed_urls_;
  std::vector<url::CanonicalUrl> seed_canonical_;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_SCHEDULER_H_
