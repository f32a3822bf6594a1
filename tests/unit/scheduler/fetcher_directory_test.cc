// FetcherDirectory: live fetchers from their reports, one per address, gone after the TTL; and
// the address a report stands for.
#include "services/scheduler/fetcher_directory.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"

namespace crawler::scheduler {
namespace {

std::vector<std::string> Ids(const std::vector<KnownFetcher>& fetchers) {
  std::vector<std::string> ids;
  for (const KnownFetcher& f : fetchers) ids.push_back(f.id);
  return ids;
}

TEST(FetcherDirectoryTest, LiveWhileReportingOnePerAddress) {
  FakeClock clock;
  FetcherDirectory directory(absl::Seconds(30), clock);
  directory.Note("b", 1, "10.0.0.2:50053");
  directory.Note("a", 0, "10.0.0.1:50053");
  directory.Note("none", 2, "");  // serves no archive: not listed
  EXPECT_THAT(Ids(directory.Live()), ::testing::ElementsAre("a", "b"));
  // "a" restarted on the same address as "a2": one fetcher there.
  directory.Note("a2", 0, "10.0.0.1:50053");
  EXPECT_THAT(Ids(directory.Live()), ::testing::ElementsAre("a2", "b"));
  EXPECT_FALSE(directory.Find("a").has_value());
  clock.Advance(absl::Seconds(20));
  directory.Note("b", 1, "10.0.0.2:50053");
  clock.Advance(absl::Seconds(20));
  EXPECT_THAT(Ids(directory.Live()), ::testing::ElementsAre("b"));
  ASSERT_TRUE(directory.Find("b").has_value());
  EXPECT_EQ(directory.Find("b")->address, "10.0.0.2:50053");
}

TEST(FetcherAddressTest, EmptyHostIsThePeers) {
  EXPECT_EQ(FetcherAddress(":50053", "ipv4:10.1.2.3:41234"), "10.1.2.3:50053");
  EXPECT_EQ(FetcherAddress(":50053", "ipv6:[::1]:41234"), "[::1]:50053");
  EXPECT_EQ(FetcherAddress("fetcher-0.svc:50053", "ipv4:10.1.2.3:1"), "fetcher-0.svc:50053");
  EXPECT_EQ(FetcherAddress("", "ipv4:10.1.2.3:1"), "");
  EXPECT_EQ(FetcherAddress(":50053", "unix:/tmp/s"), "");
}

}  // namespace
}  // namespace crawler::scheduler
