// LeaseReaper tests (FakeClock, in-memory store): expired leases of every frontier core given go
// back to their queues on a tick, not before their deadline, and not more often than the
// reaper's interval.
#include "services/frontier/lease_reaper.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"

namespace crawler::frontier {
namespace {

struct Core {
  Core(const FrontierOptions& options, const Clock& clock)
      : store(Frontier::ColumnFamilies()),
        frontier(Frontier::Open(options, store, clock).value()) {}
  // Adds one URL of `host` and leases it.
  void AddAndLease(const std::string& host) {
    ASSERT_TRUE(
        frontier->AddUrls({{.canonical_url = "http://" + host + "/", .host_key = host}}).ok());
    ASSERT_EQ(frontier->Lease(10, 10).value().size(), 1u);
  }
  kv::InMemoryKvStore store;
  std::unique_ptr<Frontier> frontier;
};

TEST(LeaseReaper, ReturnsExpiredLeasesOfEveryCore) {
  FakeClock clock;
  FrontierOptions options;
  options.lease_duration = absl::Minutes(2);
  Core a(options, clock);
  Core b(options, clock);
  a.AddAndLease("a.test");
  b.AddAndLease("b.test");
  LeaseReaper reaper({}, {a.frontier.get(), b.frontier.get()});

  clock.Advance(absl::Minutes(1));
  reaper.Tick(clock.Now());
  EXPECT_EQ(reaper.expired(), 0u);  // not due yet
  EXPECT_EQ(a.frontier->Stats().in_flight_urls, 1u);

  clock.Advance(absl::Minutes(2));
  reaper.Tick(clock.Now());
  EXPECT_EQ(reaper.expired(), 2u);
  for (Core* core : {&a, &b}) {
    EXPECT_EQ(core->frontier->Stats().in_flight_urls, 0u);
    EXPECT_EQ(core->frontier->Stats().leases_expired, 1u);
    EXPECT_EQ(core->frontier->Lease(10, 10).value().size(), 1u);  // leasable again
  }
}

TEST(LeaseReaper, RunsAtMostOncePerInterval) {
  FakeClock clock;
  FrontierOptions options;
  options.lease_duration = absl::Seconds(10);
  Core core(options, clock);
  LeaseReaper reaper({.interval = absl::Minutes(1)}, {core.frontier.get()});
  reaper.Tick(clock.Now());  // the first tick runs (nothing to expire)
  core.AddAndLease("a.test");
  clock.Advance(absl::Seconds(30));
  reaper.Tick(clock.Now());  // within the interval: skipped although the lease expired
  EXPECT_EQ(reaper.expired(), 0u);
  clock.Advance(absl::Seconds(30));
  reaper.Tick(clock.Now());
  EXPECT_EQ(reaper.expired(), 1u);
}

}  // namespace
}  // namespace crawler::frontier
