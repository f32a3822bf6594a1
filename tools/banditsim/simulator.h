// banditsim's engine: runs bandit policies (lib/bandit) on simulated site sets (site_set.h) under
// a page budget and compares them with the oracle.
//
// A run: every policy starts from scratch on the same K sites (common random numbers, so the
// differences between policies are not noise of the sets). Each step the policy chooses a site,
// the site's next page in breadth-first order is fetched, its new external links are the reward,
// and a site whose last page (its size doubles as the depth limit) was fetched is retired. The
// run ends after N pages or when every site is retired. The result is the number of distinct
// links collected.
//
// The oracle: any crawler that fetches every site in breadth-first order ends with a prefix of
// each site, n_i pages of site i with sum n_i <= N, and collects sum_i f_i(n_i) links, f_i(n)
// being the distinct links in site i's first n pages (pools are disjoint across sites, so the
// sum is exact). The oracle is the best such allocation, found exactly by dynamic programming
// over the budget (O(K N min(N, S))). It is the upper bound of every policy here; "the best N
// pages" without the breadth-first constraint would be an upper bound no crawler can reach (a
// link-list page 400 deep costs the 399 pages before it), and a greedy best-next-page oracle is
// not optimal when a site's links come late.
//
// Thread-safety: pure functions; RunExperiment() uses its own threads.
#ifndef CRAWLER_TOOLS_BANDITSIM_SIMULATOR_H_
#define CRAWLER_TOOLS_BANDITSIM_SIMULATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/bandit/policy.h"
#include "lib/bandit/policy_factory.h"
#include "tools/banditsim/site_set.h"

namespace crawler::banditsim {

// Drives `policy` over `sites` for at most `budget` pages; returns the links collected.
// REQUIRES: policy.arm_count() == sites.size().
int64_t RunPolicy(const std::vector<Site>& sites, bandit::Policy& policy, int64_t budget);

// The best links-per-budget of any breadth-first allocation (see above).
int64_t OracleLinks(const std::vector<Site>& sites, int64_t budget);

struct ExperimentConfig {
  // Set types (SetTypeNames()) and policies (bandit::PolicyNames()), in report order.
  std::vector<std::string> set_types;
  std::vector<std::string> policies;
  // K and N.
  int sites = 10;
  int64_t budget = 2000;
  // Site sets drawn per set type; seed s of type t is the same set for every policy.
  int seeds = 200;
  uint64_t seed = 1;
  DuplicateModel duplicates;
  bandit::PolicyOptions policy_options;
  // Worker threads over seeds; results do not depend on it.
  int threads = 1;
  // A replayed set (ParseReplay) instead of drawn ones: when not empty, set_types must be
  // {"replay"}, sites is its size, and each seed runs the policies on these sites with another
  // stream of the randomised policies' draws.
  std::vector<Site> replay;
};

// One (set type, policy) cell; policy "oracle" is the oracle.
struct Summary {
  std::string set_type;
  std::string policy;
  int seeds = 0;
  double mean_links = 0;
  double sd_links = 0;
  double p10_links = 0;
  double p90_links = 0;
  // Mean over seeds of links / oracle links (1 for the oracle).
  double mean_ratio_to_oracle = 0;
};

// kInvalidArgument for unknown names or a non-positive sites, budget or seeds.
absl::Status ValidateExperiment(const ExperimentConfig& config);

// Summaries per set type (oracle first, then the policies in order).
absl::StatusOr<std::vector<Summary>> RunExperiment(const ExperimentConfig& config);

// The text table: per set type, each policy's links (mean, sd, p10, p90), ratio to the oracle and
// ratio to the best published rule (r1-r3, when run); then the averages over set types.
std::string FormatTable(const ExperimentConfig& config, const std::vector<Summary>& summaries);

// CSV columns: set,policy,seeds,mean_links,sd_links,p10_links,p90_links,ratio_to_oracle.
absl::Status WriteCsv(const std::string& path, const std::vector<Summary>& summaries);

}  // namespace crawler::banditsim

#endif  // CRAWLER_TOOLS_BANDITSIM_SIMULATOR_H_
