// RoutedFrontierClient over real Frontier cores (in-memory stores): each URL reaches the
// partition owning its host and only that one, calls are split per destination and by size,
// the popular-URL cache drops URLs sent before (but not ones found nearer a seed), exhaustion
// is judged across partitions, stats are summed (held URLs and moving hosts too), and a
// partition's failure is passed on without losing a URL.
#include "services/frontier/routed_frontier_client.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/partition/partition.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/local_frontier_client.h"
#include "tests/unit/frontier/flaky_clients.h"

namespace crawler::frontier {
namespace {

UrlToAdd U(const std::string& host, const std::string& path, uint32_t depth = 1) {
  return UrlToAdd{.canonical_url = "http://" + host + path, .host_key = host, .depth = depth};
}

// N partitions, each a Frontier on its own store that owns its share of hosts.
class Partitions {
 public:
  explicit Partitions(uint32_t n, FrontierOptions options = {}) {
    for (uint32_t k = 0; k < n; ++k) {
      stores_.push_back(std::make_unique<kv::InMemoryKvStore>(Frontier::ColumnFamilies()));
      options.partition_index = k;
      options.partition_count = n;
      absl::StatusOr<std::unique_ptr<Frontier>> f = Frontier::Open(options, *stores_[k], clock_);
      EXPECT_TRUE(f.ok()) << f.status();
      cores_.push_back(*std::move(f));
      locals_.push_back(std::make_unique<LocalFrontierClient>(*cores_[k]));
    }
  }
  std::vector<FrontierClient*> clients() {
    std::vector<FrontierClient*> out;
    for (auto& c : locals_) out.push_back(c.get());
    return out;
  }
  Frontier& core(uint32_t k) { return *cores_[k]; }
  uint32_t size() const { return static_cast<uint32_t>(cores_.size()); }

 private:
  FakeClock clock_;
  std::vector<std::unique_ptr<kv::InMemoryKvStore>> stores_;
  std::vector<std::unique_ptr<Frontier>> cores_;
  std::vector<std::unique_ptr<LocalFrontierClient>> locals_;
};

std::unique_ptr<RoutedFrontierClient> Route(std::vector<FrontierClient*> clients,
                                            uint32_t home = 0, RoutingOptions options = {}) {
  absl::StatusOr<std::unique_ptr<RoutedFrontierClient>> r =
      RoutedFrontierClient::Create(options, std::move(clients), home);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : nullptr;
}

std::vector<UrlToAdd> ManyHosts(int hosts, int pages_per_host) {
  std::vector<UrlToAdd> urls;
  for (int h = 0; h < hosts; ++h) {
    for (int p = 0; p < pages_per_host; ++p) {
      urls.push_back(U(absl::StrCat("h", h, ".test"), absl::StrCat("/p", p)));
    }
  }
  return urls;
}

TEST(RoutedFrontierClientTest, EveryUrlReachesTheOwnerOfItsHostOnly) {
  Partitions parts(4);
  std::unique_ptr<RoutedFrontierClient> router = Route(parts.clients());
  const std::vector<UrlToAdd> urls = ManyHosts(40, 5);
  absl::StatusOr<AddResult> added = router->AddUrls(urls);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->added, urls.size());
  uint64_t total = 0;
  for (uint32_t k = 0; k < parts.size(); ++k) {
    // Everything the partition leases is a host it owns.
    absl::StatusOr<std::vector<LeasedTask>> tasks = parts.core(k).Lease(1000, 1000);
    ASSERT_TRUE(tasks.ok());
    for (const LeasedTask& t : *tasks) EXPECT_EQ(partition::Partition(t.host_key, 4), k);
    EXPECT_GT(tasks->size(), 0u) << "40 hosts leave no partition empty";
    total += parts.core(k).Stats().seen_urls;
  }
  EXPECT_EQ(total, urls.size());
  const RoutingStats stats = router->Routing();
  EXPECT_EQ(stats.routed, urls.size());
  EXPECT_EQ(stats.sent[0] + stats.sent[1] + stats.sent[2] + stats.sent[3], urls.size());
  EXPECT_EQ(stats.batches, 4u);  // one call per destination
}

TEST(RoutedFrontierClientTest, AFrontierRefusesAHostItDoesNotOwnNamingTheOwner) {
  Partitions parts(3);
  for (int h = 0;; ++h) {
    const std::string host = absl::StrCat("x", h, ".test");
    const uint32_t owner = partition::Partition(host, 3);
    if (owner == 0) continue;
    absl::StatusOr<AddResult> r = parts.core(0).AddUrls({U(host, "/")});
    EXPECT_TRUE(absl::IsFailedPrecondition(r.status())) << r.status();
    EXPECT_THAT(std::string(r.status().message()),
                ::testing::HasSubstr(absl::StrCat("belongs to partition ", owner)));
    EXPECT_EQ(parts.core(0).Stats().seen_urls, 0u);  // nothing of the batch was taken
    break;
  }
}

TEST(RoutedFrontierClientTest, LargeHandOversAreSplitIntoBoundedBatches) {
  Partitions parts(1);
  std::unique_ptr<RoutedFrontierClient> router =
      Route(parts.clients(), 0, RoutingOptions{.max_batch_urls = 64});
  ASSERT_TRUE(router->AddUrls(ManyHosts(1, 200)).ok());
  EXPECT_EQ(router->Routing().batches, 4u);  // 64 + 64 + 64 + 8
  EXPECT_EQ(parts.core(0).Stats().queued_urls, 200u);
}

TEST(RoutedFrontierClientTest, HandOversOfLongUrlsAreSplitByBytes) {
  // The fetcher service's 4,096-URL hand-over of 1 KiB outlinks would be a 4 MiB request, which
  // a frontier's port refuses: it goes in calls of at most max_batch_bytes.
  Partitions parts(1);
  std::unique_ptr<RoutedFrontierClient> router =
      Route(parts.clients(), 0, RoutingOptions{.max_batch_urls = 4096});
  std::vector<UrlToAdd> urls;
  for (int i = 0; i < 4096; ++i) {
    urls.push_back(U("long.test", absl::StrCat("/p", i, "?", std::string(1000, 'q'))));
    urls.back().discovered_from = "http://long.test/index";
  }
  ASSERT_TRUE(router->AddUrls(urls).ok());
  EXPECT_EQ(router->Routing().batches, 3u);  // ~4.3 MB in calls of at most 2 MiB
  EXPECT_EQ(parts.core(0).Stats().queued_urls, 4096u);

  // A URL larger than the bound goes alone rather than never.
  Partitions one(1);
  std::unique_ptr<RoutedFrontierClient> tiny =
      Route(one.clients(), 0, RoutingOptions{.max_batch_bytes = 10});
  ASSERT_TRUE(tiny->AddUrls(ManyHosts(1, 3)).ok());
  EXPECT_EQ(tiny->Routing().batches, 3u);
  EXPECT_EQ(one.core(0).Stats().queued_urls, 3u);
}

TEST(RoutedFrontierClientTest, PopularUrlsSentOnceAreSuppressed) {
  Partitions parts(2);
  std::unique_ptr<RoutedFrontierClient> router = Route(parts.clients());
  // Every page of a site links the same navigation and one global page.
  for (int page = 0; page < 10; ++page) {
    std::vector<UrlToAdd> outlinks = {U("a.test", "/"), U("a.test", "/about"),
                                      U("popular.test", "/"),
                                      U("a.test", absl::StrCat("/article", page))};
    ASSERT_TRUE(router->AddUrls(outlinks).ok());
  }
  const RoutingStats stats = router->Routing();
  EXPECT_EQ(stats.routed, 40u);
  EXPECT_EQ(stats.suppressed, 27u);  // 3 repeated links on 9 pages
  EXPECT_EQ(parts.core(0).Stats().seen_urls + parts.core(1).Stats().seen_urls, 13u);
}

TEST(RoutedFrontierClientTest, AUrlFoundNearerASeedIsSentAgain) {
  // max_depth 2: the URL found at depth 3 is rejected and not remembered by the frontier; the
  // same URL found later at depth 1 must reach it.
  FrontierOptions options;
  options.max_depth = 2;
  Partitions parts(1, options);
  std::unique_ptr<RoutedFrontierClient> router = Route(parts.clients());
  absl::StatusOr<AddResult> deep = router->AddUrls({U("a.test", "/x", 3)});
  ASSERT_TRUE(deep.ok());
  EXPECT_EQ(deep->rejected_by_limit, 1u);
  absl::StatusOr<AddResult> near = router->AddUrls({U("a.test", "/x", 1)});
  ASSERT_TRUE(near.ok());
  EXPECT_EQ(near->added, 1u);
  // And deeper again: suppressed.
  ASSERT_TRUE(router->AddUrls({U("a.test", "/x", 2)}).ok());
  EXPECT_EQ(router->Routing().suppressed, 1u);
}

// A sitemap's lastmod is news about a URL already sent: the cache must not swallow it, or the
// partition would never learn that the page claims a change.
TEST(RoutedFrontierClientTest, AUrlListedWithALastmodIsNeverSuppressed) {
  Partitions parts(1);
  std::unique_ptr<RoutedFrontierClient> router = Route(parts.clients());
  ASSERT_TRUE(router->AddUrls({U("a.test", "/")}).ok());
  UrlToAdd listed = U("a.test", "/");
  listed.sitemap.lastmod = absl::FromUnixSeconds(1'700'000'000);
  absl::StatusOr<AddResult> again = router->AddUrls({listed});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(router->Routing().suppressed, 0u);
  EXPECT_EQ(again->already_seen, 1u);
  EXPECT_EQ(again->lastmod_updates, 1u);  // the partition's record took it
}

TEST(RoutedFrontierClientTest, NoCacheSendsEverything) {
  Partitions parts(1);
  std::unique_ptr<RoutedFrontierClient> router =
      Route(parts.clients(), 0, RoutingOptions{.popular_cache_entries = 0});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(router->AddUrls({U("a.test", "/")}).ok());
  EXPECT_EQ(router->Routing().suppressed, 0u);
  EXPECT_EQ(router->Routing().sent[0], 3u);
}

TEST(RoutedFrontierClientTest, LeaseAndCompleteStayWithTheHomePartition) {
  Partitions parts(2);
  std::unique_ptr<RoutedFrontierClient> router = Route(parts.clients(), 1);
  ASSERT_TRUE(router->AddUrls(ManyHosts(20, 2)).ok());
  absl::StatusOr<std::vector<LeasedTask>> tasks = router->Lease(1000, 1000);
  ASSERT_TRUE(tasks.ok());
  ASSERT_FALSE(tasks->empty());
  std::vector<FetchOutcome> outcomes;
  for (const LeasedTask& t : *tasks) {
    EXPECT_EQ(partition::Partition(t.host_key, 2), 1u);
    outcomes.push_back(FetchOutcome{.lease_id = t.lease_id, .http_status = 200});
  }
  absl::StatusOr<CompleteResult> done = router->Complete(outcomes);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->accepted, tasks->size());
  EXPECT_EQ(parts.core(1).Stats().pages_completed, tasks->size());
  EXPECT_EQ(parts.core(0).Stats().pages_completed, 0u);
}

TEST(RoutedFrontierClientTest, ExhaustedOnlyWhenEveryPartitionIs) {
  Partitions parts(2);
  std::unique_ptr<RoutedFrontierClient> home0 = Route(parts.clients(), 0);
  std::unique_ptr<RoutedFrontierClient> home1 = Route(parts.clients(), 1);
  EXPECT_TRUE(home0->IsExhausted().value());
  ASSERT_TRUE(home0->AddUrls(ManyHosts(20, 1)).ok());
  for (auto* r : {home0.get(), home1.get()}) {
    EXPECT_FALSE(r->IsExhausted().value());
    absl::StatusOr<std::vector<LeasedTask>> tasks = r->Lease(1000, 1000);
    ASSERT_TRUE(tasks.ok());
    std::vector<FetchOutcome> outcomes;
    for (const LeasedTask& t : *tasks) {
      outcomes.push_back(FetchOutcome{.lease_id = t.lease_id, .http_status = 200});
    }
    ASSERT_TRUE(r->Complete(outcomes).ok());
  }
  EXPECT_TRUE(home0->IsExhausted().value());
  EXPECT_TRUE(home1->Stats().value().exhausted);
  EXPECT_EQ(home1->Stats().value().pages_completed, 20u);
}

// During a reshard from 2 to 3 partitions each partition holds URLs for hosts that are moving
// to partition 2; the routed view sums what every partition holds and how many hosts each has
// in flight, as the scheduler's progress and the collection's stats read them.
TEST(RoutedFrontierClientTest, StatsSumHeldUrlsAndMovingHostsOverPartitions) {
  Partitions parts(2);
  std::unique_ptr<RoutedFrontierClient> router = Route(parts.clients(), 0);
  // On each partition: one host that goes to partition 2, known before the reshard began and then
  // moving (k + 1 URLs arrive for it meanwhile), and one new host whose owner will be partition 2.
  int next = 0;
  auto host_going_to_2_from = [&](uint32_t k) {
    for (; next < 10000; ++next) {
      const std::string host = absl::StrCat("h", next, ".test");
      if (partition::Partition(host, 2) == k && partition::Partition(host, 3) == 2) {
        ++next;
        return host;
      }
    }
    return std::string();
  };
  std::vector<std::string> moving(parts.size());
  for (uint32_t k = 0; k < parts.size(); ++k) {
    moving[k] = host_going_to_2_from(k);
    ASSERT_EQ(parts.core(k).AddUrls({U(moving[k], "/")})->added, 1u);
    ASSERT_TRUE(parts.core(k).SetLayout({.epoch = 2, .count = 2, .reshard_to = 3}).ok());
  }
  for (uint32_t k = 0; k < parts.size(); ++k) {
    const std::string arriving = host_going_to_2_from(k);
    ASSERT_FALSE(arriving.empty());
    ASSERT_TRUE(parts.core(k).BeginHostMove(moving[k]).ok());
    std::vector<UrlToAdd> meanwhile = {U(arriving, "/")};
    for (uint32_t i = 0; i <= k; ++i) meanwhile.push_back(U(moving[k], absl::StrCat("/m", i)));
    ASSERT_EQ(parts.core(k).AddUrls(meanwhile)->held, k + 2);
    EXPECT_EQ(parts.core(k).Stats().held_urls, k + 2);
    EXPECT_EQ(parts.core(k).Stats().hosts_moving, 1u);
  }
  absl::StatusOr<FrontierStats> sum = router->Stats();
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->held_urls, 2u + 3u);
  EXPECT_EQ(sum->hosts_moving, 2u);
}

TEST(RoutedFrontierClientTest, LookupsAndHostTimesAreRoutedByHost) {
  Partitions parts(3);
  std::unique_ptr<RoutedFrontierClient> router = Route(parts.clients());
  ASSERT_TRUE(router->AddUrls(ManyHosts(10, 1)).ok());
  absl::StatusOr<std::vector<std::optional<UrlRecord>>> records =
      router->LookupUrls({"http://h3.test/p0", "http://unknown.test/", "http://h7.test/p0"});
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  EXPECT_TRUE((*records)[0].has_value());
  EXPECT_FALSE((*records)[1].has_value());
  EXPECT_TRUE((*records)[2].has_value());
  absl::StatusOr<size_t> updated = router->ReportHostTimes(
      {HostTime{"h1.test", absl::FromUnixSeconds(2'000'000'000)},
       HostTime{"h2.test", absl::FromUnixSeconds(2'000'000'000)}});
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(*updated, 2u);
}

TEST(RoutedFrontierClientTest, APartitionFailureIsReturnedAsIs) {
  Partitions parts(2);
  std::vector<FrontierClient*> clients = parts.clients();
  testing::FlakyFrontierClient flaky(*clients[1], 1);  // partition 1 is down
  clients[1] = &flaky;
  std::unique_ptr<RoutedFrontierClient> router = Route(clients);
  const std::vector<UrlToAdd> urls = ManyHosts(20, 2);
  absl::StatusOr<AddResult> failed = router->AddUrls(urls);
  EXPECT_TRUE(absl::IsUnavailable(failed.status())) << failed.status();
  EXPECT_GT(parts.core(0).Stats().seen_urls, 0u);  // sent before the failing destination
  EXPECT_EQ(parts.core(1).Stats().seen_urls, 0u);
  EXPECT_EQ(router->Routing().sent[1], 0u);
  // Partition 1 back: a client over the same partitions gets the same batch through.
  std::unique_ptr<RoutedFrontierClient> again = Route(parts.clients());
  ASSERT_TRUE(again->AddUrls(urls).ok());
  EXPECT_EQ(parts.core(0).Stats().seen_urls + parts.core(1).Stats().seen_urls, urls.size());
}

TEST(RoutedFrontierClientTest, SuppressionNeverCoversAUrlWhosePartitionFailed) {
  Partitions parts(2);
  std::vector<FrontierClient*> clients = parts.clients();
  testing::FlakyFrontierClient flaky(*clients[1], 2);  // partition 1 fails every 2nd call
  clients[1] = &flaky;
  std::unique_ptr<RoutedFrontierClient> router = Route(clients);
  const std::vector<UrlToAdd> urls = ManyHosts(20, 2);
  // Retried until it goes through, as the fetcher does.
  for (int attempt = 0; attempt < 5 && !router->AddUrls(urls).ok(); ++attempt) {
  }
  EXPECT_EQ(parts.core(0).Stats().seen_urls + parts.core(1).Stats().seen_urls, urls.size());
}

TEST(RoutedFrontierClientTest, BadArgumentsAreRefused) {
  Partitions parts(2);
  EXPECT_FALSE(RoutedFrontierClient::Create({}, {}, 0).ok());
  EXPECT_FALSE(RoutedFrontierClient::Create({}, parts.clients(), 2).ok());
  EXPECT_FALSE(RoutedFrontierClient::Create({}, {nullptr}, 0).ok());
  EXPECT_FALSE(
      RoutedFrontierClient::Create(RoutingOptions{.max_batch_urls = 0}, parts.clients(), 0).ok());
  EXPECT_FALSE(
      RoutedFrontierClient::Create(RoutingOptions{.max_batch_bytes = 0}, parts.clients(), 0).ok());
}

}  // namespace
}  // namespace crawler::frontier
