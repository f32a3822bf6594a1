// SeenCache tests: sizing (memory fixed by the option, never by the URLs inserted), lookups,
// replacement within a bucket (midpoint insertion: entries hit outlive entries seen once), that
// heavy eviction keeps the table bounded and never reports a hash that was not inserted, moves,
// and that a table that cannot be mapped is a status, not an exception.
#include "services/frontier/seen_cache.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace crawler::frontier {
namespace {

// A cache of `max_entries`; the test fails if it cannot be created.
SeenCache Make(size_t max_entries) {
  absl::StatusOr<SeenCache> cache = SeenCache::Create(max_entries);
  EXPECT_TRUE(cache.ok()) << cache.status();
  return cache.ok() ? *std::move(cache) : SeenCache();
}

// A hash in bucket `bucket` (low bits) with distinguishing high bits `n`.
uint64_t InBucket(uint64_t bucket, uint64_t n) { return (n << 32) | bucket; }

TEST(SeenCacheTest, FewerEntriesThanOneBucketDisable) {
  for (const size_t entries : {size_t{0}, size_t{1}, SeenCache::kWays - 1}) {
    SeenCache cache = Make(entries);
    EXPECT_FALSE(cache.enabled()) << entries;
    EXPECT_EQ(cache.capacity(), 0u);
    cache.Insert(SeenCache::Hash("http://a.test/"));
    EXPECT_FALSE(cache.Contains(SeenCache::Hash("http://a.test/")));
  }
}

TEST(SeenCacheTest, CapacityIsAPowerOfTwoBucketsWithinTheLimit) {
  EXPECT_EQ(Make(8).capacity(), 8u);
  EXPECT_EQ(Make(100).capacity(), 64u);  // 12 buckets' worth -> 8 buckets
  EXPECT_EQ(Make(size_t{1} << 20).capacity(), size_t{1} << 20);
  EXPECT_EQ(Make((size_t{1} << 20) + 5).capacity(), size_t{1} << 20);
}

TEST(SeenCacheTest, HoldsWhatWasInsertedAndNothingElse) {
  SeenCache cache = Make(1024);
  const uint64_t a = SeenCache::Hash("http://a.test/");
  const uint64_t b = SeenCache::Hash("http://b.test/");
  EXPECT_NE(a, 0u);
  EXPECT_EQ(a, SeenCache::Hash("http://a.test/"));
  EXPECT_FALSE(cache.Contains(a));
  cache.Insert(a);
  EXPECT_TRUE(cache.Contains(a));
  EXPECT_FALSE(cache.Contains(b));
  cache.Insert(a);  // again: still one entry
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_FALSE(cache.forgot());
  cache.Clear();
  EXPECT_FALSE(cache.Contains(a));
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_TRUE(cache.forgot());  // it no longer holds everything it was given
}

TEST(SeenCacheTest, NewEntriesGoInAtTheMiddleAndTheLastFallsOut) {
  SeenCache cache = Make(64);  // 8 buckets
  // Until the middle, new entries fill the bucket in order; after it, each one goes in at the
  // middle, ahead of those that came before it: 1 2 3 4 | 8 7 6 5.
  for (uint64_t n = 1; n <= SeenCache::kWays; ++n) cache.Insert(InBucket(3, n));
  EXPECT_FALSE(cache.forgot());
  EXPECT_EQ(cache.size(), SeenCache::kWays);
  cache.Insert(InBucket(3, 100));  // 1 2 3 4 | 100 8 7 6: 5 falls out
  EXPECT_TRUE(cache.forgot());
  EXPECT_FALSE(cache.Contains(InBucket(3, 5)));
  for (const uint64_t n : {1, 2, 3, 4, 6, 7, 8, 100}) {
    EXPECT_TRUE(cache.Contains(InBucket(3, n))) << n;
  }
  EXPECT_EQ(cache.size(), SeenCache::kWays);
  EXPECT_FALSE(cache.Contains(InBucket(4, 1)));  // other buckets untouched
}

TEST(SeenCacheTest, HitEntriesOutliveAStreamOfEntriesSeenOnce) {
  SeenCache cache = Make(64);
  for (uint64_t n = 1; n <= SeenCache::kWays; ++n) cache.Insert(InBucket(5, n));
  // Hits on 7 and 8 (from the back half) move them to the front.
  EXPECT_TRUE(cache.Contains(InBucket(5, 7)));
  EXPECT_TRUE(cache.Contains(InBucket(5, 8)));
  // A hundred hashes seen once pass through the back half without touching the front half.
  for (uint64_t n = 1000; n < 1100; ++n) cache.Insert(InBucket(5, n));
  for (const uint64_t n : {8, 7, 1, 2}) EXPECT_TRUE(cache.Contains(InBucket(5, n))) << n;
  for (const uint64_t n : {3, 4, 5, 6}) EXPECT_FALSE(cache.Contains(InBucket(5, n))) << n;
  EXPECT_TRUE(cache.Contains(InBucket(5, 1099)));  // the newest is always held
  EXPECT_FALSE(cache.Contains(InBucket(5, 1000)));
}

TEST(SeenCacheTest, InsertingAHeldHashCountsAsAHit) {
  SeenCache cache = Make(64);
  for (uint64_t n = 1; n <= SeenCache::kWays; ++n) cache.Insert(InBucket(3, n));
  cache.Insert(InBucket(3, 6));  // held, in the back half: moves to the front, drops nothing
  EXPECT_FALSE(cache.forgot());
  EXPECT_EQ(cache.size(), SeenCache::kWays);
  // 6 1 2 3 | 4 8 7 5: four new hashes push out 4, 8, 7 and 5, not 6.
  for (uint64_t n = 200; n < 204; ++n) cache.Insert(InBucket(3, n));
  EXPECT_TRUE(cache.Contains(InBucket(3, 6)));
  for (const uint64_t n : {4, 5, 7, 8}) EXPECT_FALSE(cache.Contains(InBucket(3, n))) << n;
}

TEST(SeenCacheTest, ManyMoreUrlsThanEntriesStayBoundedAndExact) {
  SeenCache cache = Make(256);
  std::vector<uint64_t> inserted;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t hash =
        SeenCache::Hash("http://h" + std::to_string(i % 37) + ".test/" + std::to_string(i));
    cache.Insert(hash);
    inserted.push_back(hash);
  }
  EXPECT_LE(cache.size(), cache.capacity());
  EXPECT_EQ(cache.capacity(), 256u);
  // The last URL inserted is always held; URLs never inserted are never reported.
  EXPECT_TRUE(cache.Contains(inserted.back()));
  size_t held = 0;
  for (const uint64_t hash : inserted) held += cache.Contains(hash) ? 1 : 0;
  EXPECT_LE(held, cache.capacity());
  for (int i = 0; i < 20000; ++i) {
    EXPECT_FALSE(cache.Contains(SeenCache::Hash("http://never.test/" + std::to_string(i))));
  }
}

TEST(SeenCacheTest, MoveTransfersTheTableAndDisablesTheSource) {
  SeenCache source = Make(64);
  const uint64_t a = SeenCache::Hash("http://a.test/");
  source.Insert(a);
  SeenCache moved(std::move(source));
  EXPECT_TRUE(moved.Contains(a));
  EXPECT_EQ(moved.capacity(), 64u);
  EXPECT_FALSE(source.enabled());  // NOLINT(bugprone-use-after-move): the documented state
  EXPECT_FALSE(source.Contains(a));
  SeenCache assigned;
  assigned = std::move(moved);
  EXPECT_TRUE(assigned.Contains(a));
  EXPECT_FALSE(moved.enabled());  // NOLINT(bugprone-use-after-move)
}

// Creates the largest cache (a 2 GiB table) in a process that may map only 256 MiB more (room
// enough for the error message): 0 if the result is kResourceExhausted.
int CreateWithoutAddressSpace() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  if (!(statm >> pages)) return 2;
  const rlim_t room = pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) + (256 << 20);
  const rlimit limit = {.rlim_cur = room, .rlim_max = room};
  if (setrlimit(RLIMIT_AS, &limit) != 0) return 3;
  const absl::StatusOr<SeenCache> cache = SeenCache::Create(size_t{1} << 28);
  return !cache.ok() && cache.status().code() == absl::StatusCode::kResourceExhausted ? 0 : 1;
}

// A table whose address space cannot be mapped is an error the caller receives, not an
// exception.
TEST(SeenCacheDeathTest, UnmappableTableIsResourceExhausted) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(CreateWithoutAddressSpace()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace crawler::frontier
