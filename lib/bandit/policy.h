// Policy: the interface of the focused-collection bandits (docs/architecture.md §8). A collection
// aiming at a yield ("as many external links as possible from these K sites within N pages") treats
// each site as an arm; a pull fetches the site's next page in breadth-first order and the reward is
// the page's yield (e.g. its external links not seen before in the collection).
//
// The caller drives a policy with three calls:
//   - Choose() names the arm to pull next (-1 once every arm is retired). It has no side effect
//     on the statistics: calling it twice without Observe() returns the same arm, except for
//     randomised policies, which draw again.
//   - Observe(arm, reward) records the reward of one pull of `arm`.
//   - Retire(arm) takes an arm out of the game for good: its site ran out of pages or reached the
//     depth limit. Its pulls still count in the total n that UCB-style indices use.
// A scheduler with several fetches in flight may call Choose() once per free fetch slot and
// Observe() as pages arrive; the published rules assume one pull at a time.
//
// Ties between arms are broken towards the lowest index, so every rule is deterministic given
// its rewards (and, for randomised rules, its generator), which the unit tests rely on.
//
// Rewards are >= 0. Policies are pure: no clocks, no I/O; randomness comes from a generator
// passed in at construction.
//
// Thread-safety: none; one policy per collection, driven from one thread.
#ifndef CRAWLER_LIB_BANDIT_POLICY_H_
#define CRAWLER_LIB_BANDIT_POLICY_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace crawler::bandit {

// What every policy knows about one arm: the undiscounted statistics of its pulls.
struct ArmState {
  int64_t pulls = 0;
  double total_reward = 0;
  bool retired = false;

  // Mean reward per pull; 0 before the first pull.
  double mean() const { return pulls > 0 ? total_reward / static_cast<double>(pulls) : 0.0; }
};

class Policy {
 public:
  // REQUIRES: arms >= 1.
  explicit Policy(int arms);
  virtual ~Policy() = default;
  Policy(const Policy&) = delete;
  Policy& operator=(const Policy&) = delete;

  // Short stable name ("r1", "thompson", ...), as MakePolicy() accepts it.
  virtual std::string_view name() const = 0;

  // The arm to pull next, or -1 when every arm is retired.
  int Choose();
  // REQUIRES: 0 <= arm < arms, arm not retired, reward >= 0 (a broken requirement aborts).
  void Observe(int arm, double reward);
  // Idempotent. REQUIRES: 0 <= arm < arms.
  void Retire(int arm);

  const std::vector<ArmState>& arms() const { return arms_; }
  int arm_count() const { return static_cast<int>(arms_.size()); }
  // n: pulls of all arms together, retired ones included.
  int64_t total_pulls() const { return total_pulls_; }
  // X_max: the largest single reward observed so far (0 before any positive reward).
  double max_reward() const { return max_reward_; }
  int active_arms() const { return active_; }

 protected:
  // Called by Choose() while at least one arm is active; returns an active arm.
  virtual int ChooseActive() = 0;
  // Called after the common statistics were updated.
  virtual void OnObserve(int /*arm*/, double /*reward*/) {}
  virtual void OnRetire(int /*arm*/) {}

  // The active arm with the fewest pulls if that is below `quota` (ties: lowest index), else -1.
  // Pulling it repeatedly visits every arm `quota` times in round-robin order, which is how the
  // initial phases of the published rules are run (a site that retires early simply drops out).
  int RoundRobinBelow(int64_t quota) const;

  // The active arm maximising score(arm) (ties: lowest index). REQUIRES: an active arm exists.
  template <typename Score>
  int ArgMaxActive(Score score) const {
    int best = -1;
    double best_score = 0;
    for (int arm = 0; arm < arm_count(); ++arm) {
      if (arms_[arm].retired) continue;
      const double s = score(arm);
      if (best < 0 || s > best_score) {
        best = arm;
        best_score = s;
      }
    }
    return best;
  }

 private:
  std::vector<ArmState> arms_;
  int64_t total_pulls_ = 0;
  double max_reward_ = 0;
  int active_ = 0;
};

// Aborts with `what` on stderr when `condition` is false: for broken caller requirements.
void CheckOrDie(bool condition, const char* what);

}  // namespace crawler::bandit

#endif  // CRAWLER_LIB_BANDIT_POLICY_H_
