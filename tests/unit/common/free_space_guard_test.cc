// FreeSpaceGuard: fires once, on the first directory below the threshold, with a message naming
// it; never when off; directories that cannot be asked are skipped; the bytes writers report
// bring a check between ticks.
#include "services/common/free_space_guard.h"

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

using ::testing::HasSubstr;

struct Fixture {
  std::map<std::string, absl::StatusOr<uint64_t>> free;
  std::vector<absl::Status> fired;
  int asked = 0;  // calls of the free-space function
  FreeSpaceGuard Make(uint64_t min_free_bytes) {
    return FreeSpaceGuard(
        {.directories = {"/data", "/warc"}, .min_free_bytes = min_free_bytes},
        [this](const absl::Status& s) { fired.push_back(s); },
        [this](const std::string& dir) {
          ++asked;
          return free.at(dir);
        });
  }
};

TEST(FreeSpaceGuard, FiresOnceForTheFirstDirectoryBelowTheThreshold) {
  Fixture f;
  f.free = {{"/data", uint64_t{10} << 20}, {"/warc", uint64_t{1} << 20}};
  FreeSpaceGuard guard = f.Make(uint64_t{4} << 20);
  guard.Tick(absl::UnixEpoch());
  ASSERT_EQ(f.fired.size(), 1u);
  EXPECT_TRUE(absl::IsResourceExhausted(f.fired[0]));
  EXPECT_THAT(std::string(f.fired[0].message()),
              HasSubstr("only 1.0 MiB free in /warc, below min_free_bytes (4.0 MiB)"));
  EXPECT_TRUE(guard.fired());
  EXPECT_EQ(guard.status(), f.fired[0]);
  f.free["/data"] = 0;
  guard.Tick(absl::UnixEpoch());
  EXPECT_EQ(f.fired.size(), 1u);
}

TEST(FreeSpaceGuard, QuietWithRoomOffOrUnknown) {
  Fixture f;
  f.free = {{"/data", uint64_t{8} << 20}, {"/warc", absl::UnavailableError("gone")}};
  FreeSpaceGuard guard = f.Make(uint64_t{4} << 20);
  guard.Tick(absl::UnixEpoch());
  EXPECT_FALSE(guard.fired());
  EXPECT_TRUE(guard.status().ok());

  f.free["/data"] = 0;
  FreeSpaceGuard off = f.Make(0);
  off.Tick(absl::UnixEpoch());
  EXPECT_TRUE(f.fired.empty());
}

TEST(FreeSpaceGuard, WrittenBytesBringACheckBetweenTicks) {
  Fixture f;
  f.free = {{"/data", uint64_t{10} << 20}, {"/warc", uint64_t{10} << 20}};
  FreeSpaceGuard guard = f.Make(uint64_t{8} << 20);  // checks every 1 MiB written
  guard.Written(uint64_t{600} << 10);
  EXPECT_EQ(f.asked, 0);
  f.free["/warc"] = uint64_t{7} << 20;
  guard.Written(uint64_t{600} << 10);  // 1.2 MiB since the last check
  EXPECT_EQ(f.asked, 2);
  ASSERT_EQ(f.fired.size(), 1u);
  EXPECT_THAT(std::string(f.fired[0].message()), HasSubstr("only 7.0 MiB free in /warc"));
  guard.Written(uint64_t{4} << 20);  // fired once: no more checks, no second call
  guard.Tick(absl::UnixEpoch());
  EXPECT_EQ(f.asked, 2);
  EXPECT_EQ(f.fired.size(), 1u);
}

TEST(FreeSpaceGuard, TickStartsTheWrittenCountAgain) {
  Fixture f;
  f.free = {{"/data", uint64_t{10} << 20}, {"/warc", uint64_t{10} << 20}};
  FreeSpaceGuard guard = f.Make(uint64_t{8} << 20);
  guard.Written(uint64_t{900} << 10);
  guard.Tick(absl::UnixEpoch());
  EXPECT_EQ(f.asked, 2);
  guard.Written(uint64_t{900} << 10);  // 0.9 MiB since the tick's check: none yet
  EXPECT_EQ(f.asked, 2);
  EXPECT_TRUE(f.fired.empty());
}

TEST(FreeSpaceGuard, StatvfsAnswersForARealDirectory) {
  absl::StatusOr<uint64_t> free = FreeSpaceGuard::StatvfsFreeBytes("/");
  ASSERT_TRUE(free.ok()) << free.status();
  EXPECT_FALSE(FreeSpaceGuard::StatvfsFreeBytes("/no/such/directory/here").ok());
}

}  // namespace
}  // namespace crawler
