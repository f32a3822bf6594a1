// SeenCache tests: sizing (memory fixed by the option, never by the URLs inserted), lookups,
// most-recently-used replacement within a bucket, and that heavy eviction keeps the table
// bounded and never reports a hash that was not inserted.
#include "services/frontier/seen_cache.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace crawler::frontier {
namespace {

// A hash in bucket `bucket` (low bits) with distinguishing high bits `n`.
uint64_t InBucket(uint64_t bucket, uint64_t n) { return (n << 32) | bucket; }

TEST(SeenCacheTest, FewerEntriesThanOneBucketDisable) {
  for (const size_t entries : {size_t{0}, size_t{1}, SeenCache::kWays - 1}) {
    SeenCache cache(entries);
    EXPECT_FALSE(cache.enabled()) << entries;
    EXPECT_EQ(cache.capacity(), 0u);
    cache.Insert(SeenCache::Hash("http://a.test/"));
    EXPECT_FALSE(cache.Contains(SeenCache::Hash("http://a.test/")));
  }
}

TEST(SeenCacheTest, CapacityIsAPowerOfTwoBucketsWithinTheLimit) {
  EXPECT_EQ(SeenCache(8).capacity(), 8u);
  EXPECT_EQ(SeenCache(100).capacity(), 64u);  // 12 buckets' worth -> 8 buckets
  EXPECT_EQ(SeenCache(size_t{1} << 20).capacity(), size_t{1} << 20);
  EXPECT_EQ(SeenCache((size_t{1} << 20) + 5).capacity(), size_t{1} << 20);
}

TEST(SeenCacheTest, HoldsWhatWasInsertedAndNothingElse) {
  SeenCache cache(1024);
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

TEST(SeenCacheTest, FullBucketDropsItsLeastRecentlyUsedEntry) {
  SeenCache cache(64);  // 8 buckets
  for (uint64_t n = 1; n <= SeenCache::kWays; ++n) cache.Insert(InBucket(3, n));
  cache.Insert(InBucket(3, 4));  // already held: moves to the front, drops nothing
  EXPECT_FALSE(cache.forgot());
  EXPECT_TRUE(cache.Contains(InBucket(3, 1)));  // now the most recently used
  cache.Insert(InBucket(3, 100));               // evicts n = 2, the least recently used
  EXPECT_TRUE(cache.forgot());
  EXPECT_FALSE(cache.Contains(InBucket(3, 2)));
  EXPECT_TRUE(cache.Contains(InBucket(3, 1)));
  EXPECT_TRUE(cache.Contains(InBucket(3, 100)));
  for (uint64_t n = 3; n <= SeenCache::kWays; ++n) EXPECT_TRUE(cache.Contains(InBucket(3, n)));
  EXPECT_EQ(cache.size(), SeenCache::kWays);
  EXPECT_FALSE(cache.Contains(InBucket(4, 1)));  // other buckets untouched
}

TEST(SeenCacheTest, ManyMoreUrlsThanEntriesStayBoundedAndExact) {
  SeenCache cache(256);
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

}  // namespace
}  // namespace crawler::frontier
