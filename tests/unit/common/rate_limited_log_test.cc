// RateLimitedLog: one line per interval, the lines held back counted in the next.
#include "services/common/rate_limited_log.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/log/recording_log_sink.h"

namespace crawler {
namespace {

TEST(RateLimitedLogTest, CountsWhatItHoldsBack) {
  FakeClock clock;
  RecordingLogSink sink;
  RateLimitedLog log(absl::Seconds(10), clock, Logger(sink, "test"));
  log.Log("a");
  log.Log("b");
  log.Log("c");
  clock.Advance(absl::Seconds(9));
  log.Log("d");
  clock.Advance(absl::Seconds(1));
  log.Log("e");
  log.Log("f");
  EXPECT_EQ(sink.lines(), (std::vector<std::string>{
                             "test: a", "test: e (and 3 more like it since the last one logged)"}));
  EXPECT_EQ(log.written(), 2u);
  EXPECT_EQ(log.held_back(), 4u);
}

}  // namespace
}  // namespace crawler
