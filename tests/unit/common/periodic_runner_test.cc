// PeriodicRunner and RunLimit tests: jobs run in order on the runner's thread until Stop(), and
// no job runs after Stop() returns; the run limit fires once, at its deadline (FakeClock).
#include "services/common/periodic_runner.h"

#include <atomic>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"

namespace crawler {
namespace {

class RecordingJob final : public PeriodicJob {
 public:
  RecordingJob(int id, std::vector<int>& log, absl::Mutex& mu) : id_(id), log_(log), mu_(mu) {}
  void Tick(absl::Time) override {
    absl::MutexLock lock(&mu_);
    log_.push_back(id_);
    if (++ticks_ == 3 && !three_.HasBeenNotified()) three_.Notify();
  }
  absl::Notification& three() { return three_; }

 private:
  const int id_;
  std::vector<int>& log_;
  absl::Mutex& mu_;
  int ticks_ = 0;
  absl::Notification three_;
};

TEST(PeriodicRunner, RunsTheJobsInOrderUntilStopped) {
  FakeClock clock;
  absl::Mutex mu;
  std::vector<int> log;
  RecordingJob first(1, log, mu);
  RecordingJob second(2, log, mu);
  PeriodicRunner runner({.tick = absl::Milliseconds(1), .thread_name = "test-runner"}, clock,
                        {&first, &second});
  runner.Start();
  second.three().WaitForNotification();  // no sleep: waits for the third round
  runner.Stop();
  absl::MutexLock lock(&mu);
  const size_t after_stop = log.size();
  ASSERT_GE(after_stop, 6u);
  ASSERT_EQ(after_stop % 2, 0u);  // a round is never cut short by Stop
  for (size_t i = 0; i < after_stop; ++i) EXPECT_EQ(log[i], i % 2 == 0 ? 1 : 2);
  runner.Stop();  // idempotent
  EXPECT_EQ(log.size(), after_stop);
}

TEST(PeriodicRunner, StopWithoutStartAndStopBeforeTheFirstTickAreClean) {
  FakeClock clock;
  absl::Mutex mu;
  std::vector<int> log;
  RecordingJob job(1, log, mu);
  { PeriodicRunner never_started({}, clock, {&job}); }
  PeriodicRunner runner({.tick = absl::Hours(1)}, clock, {&job});
  runner.Start();
  runner.Stop();  // wakes the thread at once, not after an hour
  absl::MutexLock lock(&mu);
  EXPECT_TRUE(log.empty());
}

TEST(RunLimit, FiresOnceAtTheDeadline) {
  FakeClock clock;
  const absl::Time start = clock.Now();
  int fired = 0;
  RunLimit limit(absl::Seconds(10), start, [&fired] { ++fired; });
  limit.Tick(start + absl::Seconds(9));
  EXPECT_EQ(fired, 0);
  EXPECT_FALSE(limit.reached());
  limit.Tick(start + absl::Seconds(10));
  EXPECT_EQ(fired, 1);
  EXPECT_TRUE(limit.reached());
  limit.Tick(start + absl::Seconds(20));
  EXPECT_EQ(fired, 1);
}

TEST(RunLimit, InfiniteNeverFires) {
  FakeClock clock;
  bool fired = false;
  RunLimit limit(absl::InfiniteDuration(), clock.Now(), [&fired] { fired = true; });
  limit.Tick(clock.Now() + absl::Hours(24 * 365 * 100));
  EXPECT_FALSE(fired);
  EXPECT_FALSE(limit.reached());
}

}  // namespace
}  // namespace crawler
