// RevisitTuner tests (FakeClock, a real frontier on an in-memory store): the tuner re-tunes on
// its interval and early when the known URLs grew by its growth fraction, keeps the latest
// tuning, and reports a failed tuning without stopping.
#include "services/scheduler/revisit_tuner.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/local_frontier_client.h"
#include "services/scheduler/scheduler.h"

namespace crawler::scheduler {
namespace {

Collection Revisiting() {
  Collection c;
  c.seeds = {"http://a.test/"};
  c.revisit.options.enabled = true;
  c.revisit.budget_visits_per_day = 240;
  return c;
}

class RevisitTunerTest : public ::testing::Test {
 protected:
  RevisitTunerTest()
      : store_(frontier::Frontier::ColumnFamilies()),
        frontier_(frontier::Frontier::Open(Options(), store_, clock_).value()),
        client_(*frontier_),
        scheduler_(Scheduler::Create(Revisiting(), {}).value()) {}

  static frontier::FrontierOptions Options() {
    frontier::FrontierOptions options;
    options.revisit = Revisiting().revisit.options;
    return options;
  }
  void AddHosts(int from, int to) {
    std::vector<frontier::UrlToAdd> urls;
    for (int i = from; i < to; ++i) {
      const std::string host = absl::StrCat("h", i, ".test");
      urls.push_back({.canonical_url = "http://" + host + "/", .host_key = host});
    }
    ASSERT_TRUE(frontier_->AddUrls(urls).ok());
  }
  std::unique_ptr<RevisitTuner> Tuner(const Scheduler& scheduler,
                                      std::function<void(const absl::Status&)> on_error = {}) {
    return std::make_unique<RevisitTuner>(
        RevisitTunerOptions{.interval = absl::Seconds(10), .growth = 0.1}, scheduler,
        std::vector<frontier::FrontierClient*>{&client_},
        [this] { return frontier_->Stats().seen_urls; }, std::move(on_error));
  }

  FakeClock clock_;
  kv::InMemoryKvStore store_;
  std::unique_ptr<frontier::Frontier> frontier_;
  frontier::LocalFrontierClient client_;
  std::unique_ptr<Scheduler> scheduler_;
};

TEST_F(RevisitTunerTest, TunesOnItsInterval) {
  AddHosts(0, 100);
  std::unique_ptr<RevisitTuner> tuner = Tuner(*scheduler_);
  EXPECT_FALSE(tuner->latest().has_value());
  ASSERT_TRUE(tuner->TuneNow(clock_.Now()).ok());
  ASSERT_TRUE(tuner->latest().has_value());
  EXPECT_DOUBLE_EQ(tuner->latest()->budget_visits_per_day, 240);
  EXPECT_EQ(tuner->attempts(), 1u);

  clock_.Advance(absl::Seconds(9));
  tuner->Tick(clock_.Now());
  EXPECT_EQ(tuner->attempts(), 1u);
  clock_.Advance(absl::Seconds(1));
  tuner->Tick(clock_.Now());
  EXPECT_EQ(tuner->attempts(), 2u);
  tuner->Tick(clock_.Now());
  EXPECT_EQ(tuner->attempts(), 2u);
}

TEST_F(RevisitTunerTest, TunesEarlyWhenTheFleetGrew) {
  AddHosts(0, 100);
  std::unique_ptr<RevisitTuner> tuner = Tuner(*scheduler_);
  ASSERT_TRUE(tuner->TuneNow(clock_.Now()).ok());
  AddHosts(100, 110);  // exactly 10% more: not yet
  clock_.Advance(absl::Seconds(1));
  tuner->Tick(clock_.Now());
  EXPECT_EQ(tuner->attempts(), 1u);
  AddHosts(110, 111);  // more than 10%
  tuner->Tick(clock_.Now());
  EXPECT_EQ(tuner->attempts(), 2u);
  tuner->Tick(clock_.Now());  // the growth is measured from the last tuning
  EXPECT_EQ(tuner->attempts(), 2u);
}

TEST_F(RevisitTunerTest, FailuresAreReportedAndTheLatestTuningIsKept) {
  Collection static_collection = Revisiting();
  static_collection.revisit.options.enabled = false;
  std::unique_ptr<Scheduler> not_revisiting = Scheduler::Create(static_collection, {}).value();
  std::vector<absl::Status> errors;
  std::unique_ptr<RevisitTuner> tuner =
      Tuner(*not_revisiting, [&errors](const absl::Status& s) { errors.push_back(s); });
  EXPECT_EQ(tuner->TuneNow(clock_.Now()).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(errors.empty());  // TuneNow returns its error instead
  clock_.Advance(absl::Seconds(10));
  tuner->Tick(clock_.Now());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(tuner->latest().has_value());
  EXPECT_EQ(tuner->attempts(), 2u);
}

}  // namespace
}  // namespace crawler::scheduler
