// Frontier tests of the seen-set cache in front of AddUrls' store lookup
// (FrontierOptions::seen_cache_entries): a hit costs no store read and means what a store hit
// means; the cache holds only URLs that are in the store (not after a failed write), starts
// empty after a restart, and, however small, never changes a result: the same random crawl
// with and without it gives identical AddUrls/Lease/Complete results and identical stores.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"
#include "tests/unit/frontier/counting_kv_store.h"
#include "tests/unit/frontier/store_inspection.h"

namespace crawler::frontier {
namespace {

UrlToAdd U(const std::string& host, const std::string& path, uint32_t depth = 0) {
  UrlToAdd url;
  url.canonical_url = "http://" + host + path;
  url.host_key = host;
  url.depth = depth;
  return url;
}

FrontierOptions WithSeenCache(size_t entries) {
  FrontierOptions options;
  options.seen_cache_entries = entries;
  return options;
}

class FrontierSeenCacheTest : public ::testing::Test {
 protected:
  FrontierSeenCacheTest() : memory_(Frontier::ColumnFamilies()), store_(memory_) {}

  void Open(const FrontierOptions& options = FrontierOptions()) {
    options_ = options;
    frontier_.reset();
    absl::StatusOr<std::unique_ptr<Frontier>> frontier = Frontier::Open(options, store_, clock_);
    ASSERT_TRUE(frontier.ok()) << frontier.status();
    frontier_ = std::move(*frontier);
  }
  AddResult Add(const std::vector<UrlToAdd>& urls) {
    absl::StatusOr<AddResult> result = frontier_->AddUrls(urls);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(AddResult{});
  }
  size_t UrlReads() const { return store_.multiget_keys(storage::kUrlsFamily); }

  kv::InMemoryKvStore memory_;
  kv::CountingKvStore store_;
  FakeClock clock_;
  FrontierOptions options_;
  std::unique_ptr<Frontier> frontier_;
};

TEST_F(FrontierSeenCacheTest, IsOnByDefault) {
  EXPECT_EQ(FrontierOptions().seen_cache_entries, size_t{1} << 20);
}

TEST_F(FrontierSeenCacheTest, HitSkipsTheStoreRead) {
  // A store that held URLs before this process: misses must be looked up.
  Open();
  Add({U("c.test", "/1")});
  Open(options_);
  const size_t before = UrlReads();
  EXPECT_EQ(Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1")}).added, 3u);
  EXPECT_EQ(UrlReads() - before, 3u);

  AddResult again =
      Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1"), U("b.test", "/2")});
  EXPECT_EQ(again.added, 1u);
  EXPECT_EQ(again.already_seen, 3u);
  EXPECT_EQ(UrlReads() - before, 4u);  // only the new URL was looked up

  // All hits: no store read at all.
  EXPECT_EQ(Add({U("a.test", "/1"), U("b.test", "/2")}).already_seen, 2u);
  EXPECT_EQ(UrlReads() - before, 4u);
  FrontierStats stats = frontier_->Stats();
  EXPECT_EQ(stats.seen_cache_hits, 5u);
  EXPECT_EQ(stats.urls_already_seen, 5u);
  EXPECT_EQ(stats.seen_urls, 5u);
}

// A new crawl: the URLs family starts empty and the cache sees every key written to it, so a
// miss needs no lookup either, until the cache first drops an entry.
TEST_F(FrontierSeenCacheTest, NewStoreNeedsNoLookupsUntilTheCacheForgets) {
  Open();
  EXPECT_EQ(Add({U("a.test", "/1"), U("a.test", "/2"), U("b.test", "/1")}).added, 3u);
  AddResult again = Add({U("a.test", "/1"), U("b.test", "/2")});
  EXPECT_EQ(again.added, 1u);
  EXPECT_EQ(again.already_seen, 1u);
  EXPECT_EQ(UrlReads(), 0u);

  // Two buckets for 100 URLs: the first batch is still answered without reads (all new), and
  // drops entries; from then on misses are looked up, and found.
  FrontierOptions tiny = WithSeenCache(16);
  kv::InMemoryKvStore memory(Frontier::ColumnFamilies());
  kv::CountingKvStore store(memory);
  absl::StatusOr<std::unique_ptr<Frontier>> small = Frontier::Open(tiny, store, clock_);
  ASSERT_TRUE(small.ok()) << small.status();
  std::vector<UrlToAdd> urls;
  for (int i = 0; i < 100; ++i) urls.push_back(U("h.test", "/" + std::to_string(i)));
  absl::StatusOr<AddResult> first = (*small)->AddUrls(urls);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->added, 100u);
  EXPECT_EQ(store.multiget_keys(storage::kUrlsFamily), 0u);
  absl::StatusOr<AddResult> second = (*small)->AddUrls(urls);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->added, 0u);
  EXPECT_EQ(second->already_seen, 100u);
  EXPECT_GE(store.multiget_keys(storage::kUrlsFamily), 100u - 16u);
}

// A URL record missing under a live lease (a damaged store) ends the trust in the cache: the
// store no longer holds what the cache was built from.
TEST_F(FrontierSeenCacheTest, RepairedRecordEndsTheLookupFreeMode) {
  Open();
  Add({U("a.test", "/1")});
  absl::StatusOr<std::vector<LeasedTask>> tasks = frontier_->Lease(1, 1);
  ASSERT_TRUE(tasks.ok() && tasks->size() == 1u);
  kv::WriteBatch damage;
  damage.Delete(storage::kUrlsFamily, "http://a.test/1");
  ASSERT_TRUE(memory_.Write(damage).ok());
  FetchOutcome outcome;
  outcome.lease_id = (*tasks)[0].lease_id;
  outcome.outcome = OutcomeClass::kFetched;
  outcome.http_status = 200;
  ASSERT_TRUE(frontier_->Complete({outcome}).ok());
  EXPECT_EQ(frontier_->Stats().repairs, 1u);
  const size_t reads = UrlReads();
  EXPECT_EQ(Add({U("a.test", "/2")}).added, 1u);
  EXPECT_EQ(UrlReads(), reads + 1);  // looked up again
}

TEST_F(FrontierSeenCacheTest, DisabledLooksUpEveryCandidate) {
  Open(WithSeenCache(0));
  Add({U("a.test", "/1"), U("a.test", "/2")});
  EXPECT_EQ(Add({U("a.test", "/1"), U("a.test", "/2")}).already_seen, 2u);
  EXPECT_EQ(UrlReads(), 4u);
  EXPECT_EQ(frontier_->Stats().seen_cache_hits, 0u);
}

TEST_F(FrontierSeenCacheTest, CompletedUrlsStayCachedAndSeen) {
  Open();
  Add({U("a.test", "/1")});
  absl::StatusOr<std::vector<LeasedTask>> tasks = frontier_->Lease(1, 1);
  ASSERT_TRUE(tasks.ok() && tasks->size() == 1u);
  FetchOutcome outcome;
  outcome.lease_id = (*tasks)[0].lease_id;
  outcome.outcome = OutcomeClass::kFetched;
  outcome.http_status = 200;
  ASSERT_TRUE(frontier_->Complete({outcome}).ok());
  const size_t reads = UrlReads();  // Complete reads the URL record too
  EXPECT_EQ(Add({U("a.test", "/1")}).already_seen, 1u);
  EXPECT_EQ(UrlReads(), reads);
}

TEST_F(FrontierSeenCacheTest, StartsEmptyAfterARestartAndLearnsFromTheStore) {
  Open();
  Add({U("a.test", "/1"), U("a.test", "/2")});
  Open(options_);  // a new process: the cache is gone, the store is not
  const size_t reads = UrlReads();
  EXPECT_EQ(Add({U("a.test", "/1"), U("a.test", "/2")}).already_seen, 2u);
  EXPECT_EQ(UrlReads(), reads + 2);  // looked up, found, now cached
  EXPECT_EQ(frontier_->Stats().seen_cache_hits, 0u);
  EXPECT_EQ(Add({U("a.test", "/1"), U("a.test", "/2")}).already_seen, 2u);
  EXPECT_EQ(UrlReads(), reads + 2);
  EXPECT_EQ(frontier_->Stats().seen_cache_hits, 2u);
}

TEST_F(FrontierSeenCacheTest, FailedWriteCachesNothing) {
  Open();
  store_.FailWritesWith(absl::UnavailableError("disk gone"));
  EXPECT_EQ(frontier_->AddUrls({U("a.test", "/1")}).status().code(),
            absl::StatusCode::kUnavailable);
  store_.FailWritesWith(absl::OkStatus());
  AddResult retry = Add({U("a.test", "/1")});
  EXPECT_EQ(retry.added, 1u);
  EXPECT_EQ(retry.already_seen, 0u);
  EXPECT_EQ(frontier_->Stats().seen_cache_hits, 0u);
  // A failed write also ends the lookup-free mode of a new store: the retry was looked up.
  EXPECT_EQ(UrlReads(), 1u);
}

TEST_F(FrontierSeenCacheTest, LimitsAreCheckedBeforeTheCache) {
  FrontierOptions options;
  options.max_depth = 1;
  Open(options);
  Add({U("a.test", "/1", 1)});
  // Known and cached, but too deep this time: the limit answers first, with or without cache.
  AddResult deep = Add({U("a.test", "/1", 2)});
  EXPECT_EQ(deep.rejected_by_limit, 1u);
  EXPECT_EQ(deep.already_seen, 0u);
}

TEST_F(FrontierSeenCacheTest, SmallCacheStaysCorrectUnderEviction) {
  Open(WithSeenCache(16));  // two buckets for 500 URLs
  std::vector<UrlToAdd> urls;
  for (int i = 0; i < 500; ++i)
    urls.push_back(U("h" + std::to_string(i % 7) + ".test", "/" + std::to_string(i)));
  EXPECT_EQ(Add(urls).added, 500u);
  for (int round = 0; round < 3; ++round) {
    AddResult again = Add(urls);
    EXPECT_EQ(again.added, 0u);
    EXPECT_EQ(again.already_seen, 500u);
  }
  FrontierStats stats = frontier_->Stats();
  EXPECT_LE(stats.seen_cache_hits, 3u * 16u);  // at most the cache's capacity per round
  EXPECT_EQ(stats.urls_already_seen, 1500u);
  EXPECT_EQ(stats.seen_urls, 500u);
}

TEST_F(FrontierSeenCacheTest, OptionIsValidated) {
  for (const size_t bad : {size_t{1}, size_t{7}, (size_t{1} << 28) + 1}) {
    EXPECT_EQ(Frontier::Open(WithSeenCache(bad), store_, clock_).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  for (const size_t good : {size_t{0}, size_t{8}, size_t{1000}}) {
    EXPECT_TRUE(Frontier::Open(WithSeenCache(good), store_, clock_).ok()) << good;
  }
}

// The same random crawl against two stores, one frontier with a tiny cache (heavy eviction),
// one without: every result and the final stores are identical.
class SeenCacheEquivalenceTest : public ::testing::TestWithParam<int> {};

TEST_P(SeenCacheEquivalenceTest, SameResultsWithAndWithoutCache) {
  std::mt19937_64 rng(GetParam());
  auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  FakeClock clock;
  FrontierOptions options;
  options.max_in_flight_per_host = 3;
  options.lease_duration = absl::Minutes(1);
  options.max_attempts = 2;
  options.retry_backoff_initial = absl::Seconds(10);
  options.max_depth = 3;
  options.max_urls_per_host = 60;
  options.max_pages_per_host = 25;
  FrontierOptions cached = options;
  // Even seeds: a cache that soon drops entries. Odd seeds: one that holds every URL of the
  // run, so each life on a new store answers every miss without a lookup, until a restart.
  cached.seen_cache_entries = GetParam() % 2 == 0 ? 64 : 4096;
  FrontierOptions uncached = options;
  uncached.seen_cache_entries = 0;

  kv::InMemoryKvStore store_a(Frontier::ColumnFamilies());
  kv::InMemoryKvStore store_b(Frontier::ColumnFamilies());
  std::unique_ptr<Frontier> a;
  std::unique_ptr<Frontier> b;
  uint64_t cache_hits = 0;  // of `a`, over all its lives
  auto open = [&]() {
    if (a != nullptr) cache_hits += a->Stats().seen_cache_hits;
    a.reset();
    b.reset();
    absl::StatusOr<std::unique_ptr<Frontier>> fa = Frontier::Open(cached, store_a, clock);
    absl::StatusOr<std::unique_ptr<Frontier>> fb = Frontier::Open(uncached, store_b, clock);
    ASSERT_TRUE(fa.ok() && fb.ok());
    a = *std::move(fa);
    b = *std::move(fb);
  };
  open();
  std::vector<LeasedTask> open_leases;

  for (int step = 0; step < 400; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const int op = uniform(0, 9);
    if (op <= 3) {
      std::vector<UrlToAdd> batch;
      for (int n = uniform(1, 30); n > 0; --n) {
        UrlToAdd url = U("h" + std::to_string(uniform(0, 6)) + ".test",
                         "/" + std::to_string(uniform(0, 90)), uniform(0, 4));
        if (uniform(0, 40) == 0) url.canonical_url.clear();  // invalid
        batch.push_back(url);
      }
      absl::StatusOr<AddResult> ra = a->AddUrls(batch);
      absl::StatusOr<AddResult> rb = b->AddUrls(batch);
      ASSERT_TRUE(ra.ok() && rb.ok());
      ASSERT_EQ(ra->added, rb->added);
      ASSERT_EQ(ra->already_seen, rb->already_seen);
      ASSERT_EQ(ra->rejected_by_limit, rb->rejected_by_limit);
      ASSERT_EQ(ra->invalid, rb->invalid);
    } else if (op <= 5) {
      const size_t max_urls = static_cast<size_t>(uniform(1, 12));
      const size_t per_host = static_cast<size_t>(uniform(1, 3));
      absl::StatusOr<std::vector<LeasedTask>> la = a->Lease(max_urls, per_host);
      absl::StatusOr<std::vector<LeasedTask>> lb = b->Lease(max_urls, per_host);
      ASSERT_TRUE(la.ok() && lb.ok());
      ASSERT_EQ(la->size(), lb->size());
      for (size_t i = 0; i < la->size(); ++i) {
        ASSERT_EQ((*la)[i].canonical_url, (*lb)[i].canonical_url);
        ASSERT_EQ((*la)[i].lease_id, (*lb)[i].lease_id);
        open_leases.push_back((*la)[i]);
      }
    } else if (op <= 7) {
      std::vector<FetchOutcome> outcomes;
      std::vector<LeasedTask> kept;
      for (const LeasedTask& task : open_leases) {
        if (uniform(0, 2) == 0) {
          kept.push_back(task);
          continue;
        }
        FetchOutcome outcome;
        outcome.lease_id = task.lease_id;
        outcome.outcome = static_cast<OutcomeClass>(uniform(1, kMaxOutcomeClass));
        outcome.retry = uniform(0, 3) == 0;
        outcomes.push_back(outcome);
      }
      open_leases = kept;
      absl::StatusOr<CompleteResult> ca = a->Complete(outcomes);
      absl::StatusOr<CompleteResult> cb = b->Complete(outcomes);
      ASSERT_TRUE(ca.ok() && cb.ok());
      ASSERT_EQ(ca->accepted, cb->accepted);
      ASSERT_EQ(ca->retries_scheduled, cb->retries_scheduled);
      ASSERT_EQ(ca->unknown_leases, cb->unknown_leases);
    } else if (op == 8) {
      clock.Advance(absl::Seconds(uniform(0, 45)));
    } else {
      open();  // restart: the cache starts empty again
      if (HasFatalFailure()) return;
      open_leases.clear();
    }
  }

  StoreInspection disk_a = Inspect(store_a);
  StoreInspection disk_b = Inspect(store_b);
  EXPECT_EQ(disk_a.queued, disk_b.queued);
  EXPECT_EQ(disk_a.leased, disk_b.leased);
  EXPECT_EQ(disk_a.waiting, disk_b.waiting);
  ASSERT_EQ(disk_a.records.size(), disk_b.records.size());
  for (const auto& [url, record] : disk_a.records) {
    ASSERT_TRUE(disk_b.records.contains(url)) << url;
    EXPECT_EQ(record.status, disk_b.records.at(url).status) << url;
    EXPECT_EQ(record.seq, disk_b.records.at(url).seq) << url;
  }
  const FrontierStats sa = a->Stats();
  const FrontierStats sb = b->Stats();
  EXPECT_EQ(sa.seen_urls, sb.seen_urls);
  EXPECT_EQ(sa.queued_urls, sb.queued_urls);
  EXPECT_EQ(sa.pages_completed, sb.pages_completed);
  EXPECT_EQ(sb.seen_cache_hits, 0u);
  EXPECT_GT(cache_hits + sa.seen_cache_hits, 0u);  // the cache did answer
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeenCacheEquivalenceTest, ::testing::Range(1, 11));

}  // namespace
}  // namespace crawler::frontier
