// FocusSelector: the site choice of a focused collection (docs/architecture.md §8, docs/focused.md)
// inside one frontier: each host is an arm of a lib/bandit policy, a lease of one of its URLs is a
// pull, and the page's reward (FetchOutcome::new_external_links) is observed when its completion
// arrives.
//
// Several fetches are in flight at once, so the policy is asked once per free lease slot
// (ChooseHost) and told the outcomes as pages complete (Observe), in completion order: a pull's
// reward arrives after later choices were made, which the rules as published do not model.
//
// Arms change during a crawl: hosts appear (seeds added, a site's other hosts discovered) and a
// host that ran out of URLs (queue, due index and leases empty; or its page cap reached) leaves
// the game (Policy::Retire), but may come back when a URL of it is found later. The policy is
// built for a fixed number of arms and retires for good, so on such a change it is rebuilt over
// the new arms and the pulls so far are replayed into it in their order (Observe does not draw
// randomness; the rebuilt generator is seeded from the seed and the rebuild count). History is
// one (arm, reward) pair per page, bounded by the page budget.
//
// State is in memory: a crawl resumed from its data dir starts its bandit afresh (its hosts'
// pages already fetched are not replayed).
//
// Thread-safety: none; the Frontier calls it under its mutex.
#ifndef CRAWLER_SERVICES_FRONTIER_FOCUS_SELECTOR_H_
#define CRAWLER_SERVICES_FRONTIER_FOCUS_SELECTOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "lib/bandit/policy.h"
#include "lib/bandit/policy_factory.h"
#include "services/frontier/frontier_api.h"

namespace crawler::frontier {

class FocusSelector {
 public:
  // REQUIRES: ValidateFocusOptions(options, budget).ok().
  FocusSelector(const FocusOptions& options, uint64_t budget);

  // Brings the arms in line with the hosts: `playable[i]` says whether host id i has URLs to
  // fetch or may get some (queued, waiting or leased, and below its page cap). New playable hosts
  // become arms; arms no longer playable retire; a retired arm playable again comes back (both of
  // the latter rebuild the policy).
  void Sync(const std::vector<bool>& playable);

  // The host id the policy pulls next, or -1 if no arm is in the game.
  int ChooseHost();

  // A pull of `host` returned `reward` (ignored for a host that is not an arm).
  void Observe(uint32_t host, double reward);

  uint64_t pulls() const { return history_.size(); }
  double total_reward() const { return total_reward_; }
  uint64_t rebuilds() const { return rebuilds_; }

 private:
  void Rebuild();

  const FocusOptions options_;
  const int64_t budget_;
  std::unique_ptr<bandit::Policy> policy_;
  std::vector<uint32_t> arm_host_;                   // arm -> host id
  absl::flat_hash_map<uint32_t, int> arm_of_host_;  // host id -> arm
  std::vector<bool> retired_;                        // per arm
  struct Pull {
    int arm;
    double reward;
  };
  std::vector<Pull> history_;
  double total_reward_ = 0;
  uint64_t rebuilds_ = 0;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FOCUS_SELECTOR_H_
