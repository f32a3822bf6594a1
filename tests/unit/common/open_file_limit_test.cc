#include "services/common/open_file_limit.h"

#include <sys/resource.h>

#include <limits>

#include "gtest/gtest.h"

namespace crawler::service {
namespace {

size_t Soft(const rlimit& limit) {
  return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<size_t>::max()
                                         : static_cast<size_t>(limit.rlim_cur);
}

// The soft limit goes up to the hard one, and OpenFileLimit() reads what is in force.
TEST(OpenFileLimitTest, RaisesTheSoftLimitToTheHardOne) {
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  // Start below the hard limit, as under the usual 1,024 soft limit.
  if (before.rlim_max != RLIM_INFINITY && before.rlim_max > 64) {
    rlimit lowered = before;
    lowered.rlim_cur = 64;
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
    EXPECT_EQ(OpenFileLimit(), 64u);
  }
  const size_t raised = RaiseOpenFileLimit();
  rlimit after{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(raised, Soft(after));
  EXPECT_EQ(OpenFileLimit(), Soft(after));
  if (after.rlim_max != RLIM_INFINITY) {
    EXPECT_EQ(after.rlim_cur, after.rlim_max);
  }
  EXPECT_EQ(RaiseOpenFileLimit(), raised);  // already at the hard limit: unchanged
}

}  // namespace
}  // namespace crawler::service
