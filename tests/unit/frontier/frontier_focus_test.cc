// A focused collection's host choice (services/frontier/focus_selector.h) alone and inside the
// Frontier core (FrontierOptions::focus), on InMemoryKvStore and FakeClock.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/focus_selector.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_options.h"

namespace crawler::frontier {
namespace {

FocusOptions Focus(const std::string& policy, uint32_t in_flight = 1) {
  return FocusOptions{.enabled = true, .policy = policy, .seed = 1, .max_in_flight = in_flight};
}

TEST(FocusSelector, HostsJoinLeaveAndComeBackWithTheirHistory) {
  FocusSelector selector(Focus("r3"), 100);
  EXPECT_EQ(selector.ChooseHost(), -1);
  selector.Sync({true, false, true});  // hosts 0 and 2 are arms 0 and 1
  EXPECT_EQ(selector.ChooseHost(), 0);  // R3's initial round, lowest arm first
  selector.Observe(0, 0);
  EXPECT_EQ(selector.ChooseHost(), 2);
  selector.Observe(2, 3);
  EXPECT_EQ(selector.ChooseHost(), 2);  // the better mean, same exploration bonus
  selector.Sync({true, false, false});   // host 2 ran out of URLs: it leaves the game
  EXPECT_EQ(selector.ChooseHost(), 0);
  const uint64_t rebuilds = selector.rebuilds();
  selector.Sync({true, true, true});     // host 1 appears, host 2 has URLs again
  EXPECT_GT(selector.rebuilds(), rebuilds);
  EXPECT_EQ(selector.pulls(), 2u);
  EXPECT_DOUBLE_EQ(selector.total_reward(), 3);
  // The replayed history still ranks host 2 above host 0; host 1 is explored first (t = 0).
  EXPECT_EQ(selector.ChooseHost(), 1);
  selector.Observe(1, 0);
  EXPECT_EQ(selector.ChooseHost(), 2);
  selector.Observe(7, 1);  // not an arm: ignored
  EXPECT_EQ(selector.pulls(), 3u);
}

TEST(FocusSelector, ValidatesItsOptions) {
  EXPECT_TRUE(ValidateFocusOptions(Focus("rested-thompson"), 2000).ok());
  EXPECT_FALSE(ValidateFocusOptions(Focus("no-such-policy"), 2000).ok());
  EXPECT_FALSE(ValidateFocusOptions(Focus("r3", 0), 2000).ok());
  EXPECT_FALSE(ValidateFocusOptions(Focus("r3"), 0).ok());
  FrontierOptions options;
  options.focus = Focus("r3");
  EXPECT_FALSE(ValidateFrontierOptions(options).ok()) << "a focused collection needs a budget";
  options.max_pages_total = 10;
  EXPECT_TRUE(ValidateFrontierOptions(options).ok());
}

class FrontierFocusTest : public ::testing::Test {
 protected:
  FrontierFocusTest() : store_(Frontier::ColumnFamilies()) {
    FrontierOptions options;
    options.focus = Focus("r3");
    options.max_pages_total = 100;
    absl::StatusOr<std::unique_ptr<Frontier>> frontier = Frontier::Open(options, store_, clock_);
    EXPECT_TRUE(frontier.ok()) << frontier.status();
    frontier_ = *std::move(frontier);
  }
  void Add(const std::string& host, int first, int count) {
    std::vector<UrlToAdd> urls;
    for (int i = first; i < first + count; ++i) {
      urls.push_back(UrlToAdd{.canonical_url = "http://" + host + "/p" + std::to_string(i),
                              .host_key = host});
    }
    ASSERT_TRUE(frontier_->AddUrls(urls).ok());
  }
  std::vector<LeasedTask> Lease() { return frontier_->Lease(100, 100).value(); }
  void Complete(const LeasedTask& task, uint32_t reward) {
    ASSERT_TRUE(frontier_
                    ->Complete({FetchOutcome{.lease_id = task.lease_id,
                                             .outcome = OutcomeClass::kFetched,
                                             .http_status = 200,
                                             .new_external_links = reward}})
                    .ok());
  }

  kv::InMemoryKvStore store_;
  FakeClock clock_;
  std::unique_ptr<Frontier> frontier_;
};

TEST_F(FrontierFocusTest, LeasesWhatThePolicyChoosesOneSlotAtATime) {
  Add("a.example", 0, 5);
  Add("b.example", 0, 1);
  std::vector<LeasedTask> tasks = Lease();
  ASSERT_EQ(tasks.size(), 1u) << "one slot (focus.max_in_flight = 1)";
  EXPECT_EQ(tasks[0].host_key, "a.example");
  EXPECT_TRUE(Lease().empty()) << "the slot is taken until the reward arrives";
  Complete(tasks[0], 0);
  tasks = Lease();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].host_key, "b.example");
  Complete(tasks[0], 4);  // b's only page: b has nothing left and leaves the game
  tasks = Lease();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].host_key, "a.example");
  // b gets a URL again (found on a's page): it is back, and its mean makes it the choice.
  Add("b.example", 1, 1);
  Complete(tasks[0], 0);
  tasks = Lease();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].host_key, "b.example");
  Complete(tasks[0], 1);
  const FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.focus_pulls, 4u);
  EXPECT_EQ(stats.focus_reward, 5u);
  EXPECT_GE(stats.focus_rebuilds, 2u);
}

// The scheduler's split moves a focused partition's budget while it runs: leases stop at the
// budget, URLs found meanwhile are kept (not refused by the limit), and a larger budget lets the
// crawl go on with the same bandit.
TEST_F(FrontierFocusTest, ThePageBudgetMovesInPlace) {
  ASSERT_TRUE(frontier_->SetPageBudget(1).ok());
  Add("a.example", 0, 1);
  std::vector<LeasedTask> tasks = Lease();
  ASSERT_EQ(tasks.size(), 1u);
  Complete(tasks[0], 2);
  Add("a.example", 1, 3);  // found on the page: kept for a larger budget
  EXPECT_TRUE(Lease().empty());
  EXPECT_TRUE(frontier_->IsExhausted());
  ASSERT_TRUE(frontier_->SetPageBudget(3).ok());
  EXPECT_FALSE(frontier_->IsExhausted());
  tasks = Lease();
  ASSERT_EQ(tasks.size(), 1u);
  Complete(tasks[0], 0);
  tasks = Lease();
  ASSERT_EQ(tasks.size(), 1u);
  Complete(tasks[0], 0);
  EXPECT_TRUE(Lease().empty());
  const FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.pages_completed, 3u);
  EXPECT_EQ(stats.focus_pulls, 3u);
  EXPECT_EQ(stats.focus_reward, 2u);
  EXPECT_EQ(stats.urls_rejected_by_limit, 0u);
  EXPECT_TRUE(absl::IsInvalidArgument(frontier_->SetPageBudget(FrontierOptions::kUnlimited)));
}

}  // namespace
}  // namespace crawler::frontier
