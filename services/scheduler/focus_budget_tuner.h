// FocusBudgetTuner: the periodic job that splits a focused collection's page budget N over its
// frontier partitions by where the rewards are (docs/architecture.md §8, docs/focused.md
// "Distributed mode"). Each partition's FocusSelector plays a bandit over its own hosts (a host's
// URLs live on one partition) within a page budget of its own; every `interval` the tuner reads
// each partition's pages spent (completed + in flight), pulls and reward (FrontierStats), splits
// the budget with SplitFocusBudget and pushes each partition's new budget through `push` (the
// scheduler's OpenCollection, as the RevisitTuner's re-tuning goes out through the partitions).
//
// The split never takes back pages already spent, so the partitions' budgets add up to N, give
// or take the pulls that completed between the reads of two partitions' figures.
//
// A round whose figures cannot all be read changes nothing (reported through `on_error`); the
// budgets in force stay.
//
// Thread-safety: Tick and TuneNow run on one thread at a time; budgets() and tunings() may be
// called from any thread. The partitions must outlive the tuner.
#ifndef CRAWLER_SERVICES_SCHEDULER_FOCUS_BUDGET_TUNER_H_
#define CRAWLER_SERVICES_SCHEDULER_FOCUS_BUDGET_TUNER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/bandit/policy_factory.h"
#include "services/common/periodic_runner.h"
#include "services/frontier/frontier_client.h"

namespace crawler::scheduler {

// One partition's figures, as the split reads them.
struct PartitionFocus {
  uint64_t spent = 0;   // pages completed + leased: the budget it has used
  uint64_t pulls = 0;   // pages its bandit was told of
  uint64_t reward = 0;  // new external links they brought
  bool has_work = true;  // URLs queued, waiting or leased: it can spend more
};

// The Gamma prior of a partition's mean reward per page (rewards Poisson, as rested-thompson
// models each site; docs/focused.md): rested-thompson's, mean a0 / b0 = 0.5 links a page, worth
// b0 = 2 pages.
struct FocusPrior {
  double shape = bandit::PolicyOptions{}.rested_thompson.prior_shape;  // a0
  double rate = bandit::PolicyOptions{}.rested_thompson.prior_rate;    // b0
};

// Each partition's budget out of `total`: its pages spent plus a share of what is left
// (total - sum of spent, if positive) proportional to its posterior mean reward per page,
// (a0 + reward) / (b0 + pulls); a partition without work gets no share. Shares are whole pages
// (largest remainders), so the budgets add up to max(total, sum of spent); with no partition
// left that has work the rest is left unassigned.
std::vector<uint64_t> SplitFocusBudget(uint64_t total, const std::vector<PartitionFocus>& partitions,
                                       const FocusPrior& prior = {});

struct FocusBudgetTunerOptions {
  // How often the budget is split again. A round costs one Stats call per partition, plus an
  // OpenCollection for each partition whose budget moved; the rewards of a few seconds of
  // fetching are enough to tell partitions apart.
  absl::Duration interval = absl::Seconds(5);
};

class FocusBudgetTuner final : public PeriodicJob {
 public:
  // Partition k's new budget goes out as push(k, max_pages). `total` is the collection's
  // max_pages. Before the first round every partition holds its even share (collections::ShareOf).
  FocusBudgetTuner(FocusBudgetTunerOptions options, uint64_t total,
                   std::vector<frontier::FrontierClient*> partitions,
                   std::function<absl::Status(uint32_t k, uint64_t max_pages)> push,
                   std::function<void(const absl::Status&)> on_error = {});

  // Splits at once and restarts the interval from `now`. The first failing read or push is
  // returned (budgets pushed before it stay pushed).
  absl::Status TuneNow(absl::Time now);

  void Tick(absl::Time now) override;

  // Partition k's budget as last split (index k), and the rounds that completed.
  std::vector<uint64_t> budgets() const;
  uint64_t tunings() const;

 private:
  const FocusBudgetTunerOptions options_;
  const uint64_t total_;
  const std::vector<frontier::FrontierClient*> partitions_;
  const std::function<absl::Status(uint32_t, uint64_t)> push_;
  const std::function<void(const absl::Status&)> on_error_;
  absl::Time last_tuning_ = absl::InfinitePast();  // only on the tuning thread

  mutable absl::Mutex mu_;
  std::vector<uint64_t> budgets_ ABSL_GUARDED_BY(mu_);
  uint64_t tunings_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_FOCUS_BUDGET_TUNER_H_
