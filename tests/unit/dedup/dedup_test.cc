#include "services/dedup/dedup.h"

#include <stdlib.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/simhash.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "tests/unit/dedup/content_queries.h"

namespace crawler::dedup {
namespace {

using testing::Q;

// The queries whose verdict is kUnique: what a fetcher records once their records are written.
std::vector<ContentQuery> UniqueOf(const std::vector<ContentQuery>& queries,
                                   const std::vector<ContentVerdict>& verdicts) {
  std::vector<ContentQuery> unique;
  for (size_t i = 0; i < queries.size() && i < verdicts.size(); ++i) {
    if (verdicts[i].verdict == Verdict::kUnique) unique.push_back(queries[i]);
  }
  return unique;
}

class DedupTest : public ::testing::Test {
 protected:
  DedupTest() : store_(Dedup::ColumnFamilies()) {}
  std::unique_ptr<Dedup> Open(DedupOptions options = {}) {
    absl::StatusOr<std::unique_ptr<Dedup>> d = Dedup::Open(options, store_);
    EXPECT_TRUE(d.ok()) << d.status();
    return std::move(*d);
  }
  std::vector<ContentVerdict> CheckOnly(Dedup& d, const std::vector<ContentQuery>& q) {
    absl::StatusOr<std::vector<ContentVerdict>> v = d.Check(q);
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : std::vector<ContentVerdict>{};
  }
  // A fetcher's round: check the batch, archive it, record its new content.
  std::vector<ContentVerdict> CheckThenRecord(Dedup& d, const std::vector<ContentQuery>& q) {
    std::vector<ContentVerdict> v = CheckOnly(d, q);
    absl::StatusOr<size_t> recorded = d.Record(UniqueOf(q, v));
    EXPECT_TRUE(recorded.ok()) << recorded.status();
    return v;
  }
  kv::InMemoryKvStore store_;
};

TEST_F(DedupTest, ExactCopiesPointAtTheFirstCapture) {
  auto d = Open();
  std::vector<ContentVerdict> v = CheckThenRecord(
      *d, {Q("http://a/1", "body"), Q("http://b/2", "body"), Q("http://c/3", "other")});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].verdict, Verdict::kUnique);
  EXPECT_EQ(v[1].verdict, Verdict::kExactDuplicate);  // within one batch
  ASSERT_TRUE(v[1].original.has_value());
  EXPECT_EQ(v[1].original->url, "http://a/1");
  EXPECT_EQ(v[1].original->warc_record_id, "<urn:uuid:http://a/1>");
  EXPECT_EQ(v[1].original->payload_digest, "sha1:http://a/1");
  EXPECT_EQ(v[1].original->fetch_time, testing::QueryTime());
  EXPECT_EQ(v[2].verdict, Verdict::kUnique);
  // And in a later batch.
  v = CheckThenRecord(*d, {Q("http://d/4", "other")});
  EXPECT_EQ(v[0].verdict, Verdict::kExactDuplicate);
  EXPECT_EQ(v[0].original->url, "http://c/3");
}

TEST_F(DedupTest, RevisitOfTheSameUrlIsAnExactDuplicateOfItself) {
  auto d = Open();
  CheckThenRecord(*d, {Q("http://a/1", "body")});
  std::vector<ContentVerdict> v = CheckThenRecord(*d, {Q("http://a/1", "body")});
  EXPECT_EQ(v[0].verdict, Verdict::kExactDuplicate);
  EXPECT_EQ(v[0].original->url, "http://a/1");
}

// Content is known only once recorded: a capture checked but never recorded (its process killed
// before the WARC write, or the write failed) leaves no trace, so nothing can become a revisit of
// its record. Within one batch, a copy still points at the unique query before it.
TEST_F(DedupTest, CheckRecordsNothing) {
  auto d = Open({.near_duplicate_bits = 3});
  const uint64_t h = 0x0123456789ABCDEFull;
  std::vector<ContentVerdict> v = CheckOnly(
      *d, {Q("http://a/1", "lost", h), Q("http://b/2", "lost"), Q("http://c/3", "x", h ^ 1)});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].verdict, Verdict::kUnique);
  EXPECT_EQ(v[1].verdict, Verdict::kExactDuplicate);
  EXPECT_EQ(v[1].original->url, "http://a/1");
  EXPECT_EQ(v[2].verdict, Verdict::kNearDuplicate);
  EXPECT_EQ(v[2].original->url, "http://a/1");

  // The page fetched again (a resumed crawl), and copies of it: new content, exact and near.
  v = CheckOnly(*d, {Q("http://a/1", "lost", h)});
  EXPECT_EQ(v[0].verdict, Verdict::kUnique);
  v = CheckOnly(*d, {Q("http://d/4", "lost"), Q("http://e/5", "y", h ^ 1)});
  EXPECT_EQ(v[0].verdict, Verdict::kUnique);
  EXPECT_EQ(v[1].verdict, Verdict::kUnique);

  // Recorded, it is the original of both kinds of copies.
  absl::StatusOr<size_t> recorded = d->Record({Q("http://a/1", "lost", h)});
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_EQ(*recorded, 1u);
  v = CheckOnly(*d, {Q("http://d/4", "lost"), Q("http://e/5", "y", h ^ 1)});
  EXPECT_EQ(v[0].verdict, Verdict::kExactDuplicate);
  EXPECT_EQ(v[0].original->warc_record_id, "<urn:uuid:http://a/1>");
  EXPECT_EQ(v[1].verdict, Verdict::kNearDuplicate);
}

// Two copies checked before either is recorded are both unique; the first recorded stays the
// original, in one Record batch as across two.
TEST_F(DedupTest, RecordKeepsTheFirstOriginal) {
  auto d = Open();
  EXPECT_EQ(CheckOnly(*d, {Q("http://a/1", "body")})[0].verdict, Verdict::kUnique);
  EXPECT_EQ(CheckOnly(*d, {Q("http://b/2", "body")})[0].verdict, Verdict::kUnique);
  absl::StatusOr<size_t> recorded = d->Record({Q("http://a/1", "body")});
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_EQ(*recorded, 1u);
  recorded =
      d->Record({Q("http://b/2", "body"), Q("http://c/3", "other"), Q("http://d/4", "other")});
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_EQ(*recorded, 1u);  // only "other", once
  std::vector<ContentVerdict> v =
      CheckOnly(*d, {Q("http://e/5", "body"), Q("http://f/6", "other")});
  EXPECT_EQ(v[0].original->url, "http://a/1");
  EXPECT_EQ(v[1].original->url, "http://c/3");
  recorded = d->Record({});
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_EQ(*recorded, 0u);
}

// Manku et al. 2007: fingerprints within k bits are found; k + 1 bits apart are not.
TEST_F(DedupTest, NearDuplicatesWithinKBits) {
  auto d = Open({.near_duplicate_bits = 3});
  const uint64_t base = 0x0123456789ABCDEFull;
  CheckThenRecord(*d, {Q("http://a/", "p0", base)});
  struct Case {
    uint64_t flip;  // bits flipped relative to base
    Verdict want;
    int distance;
  };
  const Case cases[] = {
      {0x1ull, Verdict::kNearDuplicate, 1},
      {0x8000000000000001ull, Verdict::kNearDuplicate, 2},
      // three bits in three different blocks: only the fourth block still matches
      {0x0001000100010000ull, Verdict::kNearDuplicate, 3},
      {0x0001000100010001ull, Verdict::kUnique, 0},  // 4 bits, every block differs
      {0xF000000000000000ull, Verdict::kUnique, 0},  // 4 bits in one block
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string n = std::to_string(++i);
    std::vector<ContentVerdict> v =
        CheckThenRecord(*d, {Q("http://n/" + n, "p" + n, base ^ c.flip)});
    EXPECT_EQ(v[0].verdict, c.want) << std::hex << c.flip;
    if (c.want == Verdict::kNearDuplicate) {
      EXPECT_EQ(v[0].original->url, "http://a/");
      EXPECT_EQ(v[0].distance_bits, c.distance);
    }
  }
}

TEST_F(DedupTest, NearDuplicateIndexAgreesWithBruteForce) {
  auto d = Open({.near_duplicate_bits = 3});
  std::mt19937_64 rng(11);
  std::vector<std::pair<std::string, uint64_t>> seen;  // unique entries so far
  for (int i = 0; i < 2000; ++i) {
    uint64_t h;
    if (!seen.empty() && rng() % 3 == 0) {
      h = seen[rng() % seen.size()].second;
      for (int flips = rng() % 6; flips > 0; --flips) h ^= 1ull << (rng() % 64);
    } else {
      h = rng();
    }
    const std::string url = "http://x/" + std::to_string(i);
    std::vector<ContentVerdict> v = CheckThenRecord(*d, {Q(url, url, h)});
    int best = 99;
    for (const auto& [u, other] : seen) {
      best = std::min(best, std::popcount(other ^ h));
    }
    if (best <= 3) {
      ASSERT_EQ(v[0].verdict, Verdict::kNearDuplicate) << i;
      EXPECT_EQ(v[0].distance_bits, best);
    } else {
      ASSERT_EQ(v[0].verdict, Verdict::kUnique) << i;
      seen.emplace_back(url, h);
    }
  }
}

// Batches of 16 (as the fetcher sends them) mixing new pages, exact copies, near-copies and
// revisits, on both stores, against a brute-force model of the documented rules: exact first;
// else the closest recorded fingerprint within k bits, unless it is the page's own URL; else
// recorded, visible to the rest of its batch. The RocksDB store is flushed midway so lookups
// span memtables and files.
TEST(DedupBatches, AgreeWithBruteForceOnBothStores) {
  std::string pattern = ::testing::TempDir() + "dedup_test_XXXXXX";
  const std::string dir = mkdtemp(pattern.data());
  kv::InMemoryKvStore memory(Dedup::ColumnFamilies());
  absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> rocks = kv::RocksDbKvStore::Open(
      {.path = dir + "/db", .block_cache_bytes = 1 << 20, .write_buffer_bytes = 1 << 20},
      Dedup::ColumnFamilies());
  ASSERT_TRUE(rocks.ok()) << rocks.status();
  absl::StatusOr<std::unique_ptr<Dedup>> on_memory = Dedup::Open({}, memory);
  absl::StatusOr<std::unique_ptr<Dedup>> on_rocks = Dedup::Open({}, **rocks);
  ASSERT_TRUE(on_memory.ok() && on_rocks.ok());

  struct Recorded {
    std::string url;
    std::string payload;
    fingerprint::ContentKey key;
    std::optional<uint64_t> simhash;
  };
  std::vector<Recorded> recorded;  // the model: unique content in recording order
  std::mt19937_64 rng(7);
  int page = 0;
  int kinds[3] = {0, 0, 0};
  for (int b = 0; b < 60; ++b) {
    if (b == 30) {
      ASSERT_TRUE((*rocks)->Flush().ok());
    }
    std::vector<ContentQuery> batch;
    std::vector<std::string> payloads;
    auto add = [&](const std::string& url, const std::string& payload,
                   std::optional<uint64_t> simhash) {
      batch.push_back(Q(url, payload, simhash));
      payloads.push_back(payload);
    };
    for (int i = 0; i < 16; ++i) {
      const uint64_t r = rng() % 8;
      if (!recorded.empty() && r == 0) {  // exact copy elsewhere, or a revisit of the URL
        const Recorded& o = recorded[rng() % recorded.size()];
        add(rng() % 2 ? o.url : "http://copy/" + std::to_string(page++), o.payload, o.simhash);
      } else if (!recorded.empty() && r <= 2) {  // 0..5 bits changed, maybe at the same URL
        const Recorded& o = recorded[rng() % recorded.size()];
        uint64_t h = o.simhash.value_or(rng());
        for (int flips = static_cast<int>(rng() % 6); flips > 0; --flips) {
          h ^= uint64_t{1} << (rng() % 64);
        }
        const std::string url = r == 1 ? o.url : "http://near/" + std::to_string(page);
        add(url, "near" + std::to_string(page++), h);
      } else if (r == 3) {  // no text: exact digests only
        add("http://bin/" + std::to_string(page), "bin" + std::to_string(page), std::nullopt);
        ++page;
      } else {
        add("http://new/" + std::to_string(page), "new" + std::to_string(page), rng());
        ++page;
      }
    }
    absl::StatusOr<std::vector<ContentVerdict>> m = (*on_memory)->Check(batch);
    absl::StatusOr<std::vector<ContentVerdict>> r = (*on_rocks)->Check(batch);
    ASSERT_TRUE(m.ok() && r.ok());
    ASSERT_TRUE((*on_memory)->Record(UniqueOf(batch, *m)).ok());
    ASSERT_TRUE((*on_rocks)->Record(UniqueOf(batch, *r)).ok());
    ASSERT_EQ(m->size(), batch.size());
    ASSERT_EQ(r->size(), batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      const ContentQuery& q = batch[i];
      SCOPED_TRACE(::testing::Message() << "batch " << b << " page " << i << " " << q.url);
      // The model.
      Verdict want = Verdict::kUnique;
      int want_distance = 0;
      std::string want_url;
      auto exact = std::find_if(recorded.begin(), recorded.end(),
                                [&](const Recorded& o) { return o.key == q.content_key; });
      if (exact != recorded.end()) {
        want = Verdict::kExactDuplicate;
        want_url = exact->url;
      } else if (q.simhash.has_value()) {
        int best = 4;
        const Recorded* nearest = nullptr;
        for (const Recorded& o : recorded) {
          if (!o.simhash.has_value()) continue;
          const int d = std::popcount(*o.simhash ^ q.simhash->bits());
          if (d < best) {
            best = d;
            nearest = &o;
          }
        }
        if (nearest != nullptr && nearest->url != q.url) {
          want = Verdict::kNearDuplicate;
          want_distance = best;
          want_url = nearest->url;
        }
      }
      if (want == Verdict::kUnique) {
        recorded.push_back({.url = q.url,
                            .payload = payloads[i],
                            .key = q.content_key,
                            .simhash = q.simhash.has_value()
                                           ? std::optional<uint64_t>(q.simhash->bits())
                                           : std::nullopt});
      }
      ++kinds[static_cast<int>(want)];
      for (const ContentVerdict* v : {&(*m)[i], &(*r)[i]}) {
        ASSERT_EQ(v->verdict, want);
        if (want == Verdict::kUnique) continue;
        ASSERT_TRUE(v->original.has_value());
        if (want == Verdict::kNearDuplicate) {
          EXPECT_EQ(v->distance_bits, want_distance);
          // Equally near originals are possible; the stores must still agree (below).
        } else {
          EXPECT_EQ(v->original->url, want_url);
        }
      }
      EXPECT_EQ((*m)[i].original.has_value() ? (*m)[i].original->url : "",
                (*r)[i].original.has_value() ? (*r)[i].original->url : "");
    }
  }
  // The workload reached every verdict.
  EXPECT_GT(kinds[0], 100);
  EXPECT_GT(kinds[1], 50);
  EXPECT_GT(kinds[2], 50);
  rocks->reset();
  std::filesystem::remove_all(dir);
}

TEST_F(DedupTest, SlightlyChangedPageIsNotADuplicateOfItself) {
  auto d = Open();
  CheckThenRecord(*d, {Q("http://a/", "v1", 0xFFull)});
  std::vector<ContentVerdict> v = CheckThenRecord(*d, {Q("http://a/", "v2", 0xFEull)});
  EXPECT_EQ(v[0].verdict, Verdict::kUnique);
}

TEST_F(DedupTest, PagesWithoutTextUseExactDigestsOnly) {
  auto d = Open();
  CheckThenRecord(*d, {Q("http://a/img.png", "png-bytes")});
  std::vector<ContentVerdict> v = CheckThenRecord(*d, {Q("http://b/img.png", "other-bytes")});
  EXPECT_EQ(v[0].verdict, Verdict::kUnique);
}

TEST_F(DedupTest, IndexSurvivesReopen) {
  {
    auto d = Open();
    CheckThenRecord(*d, {Q("http://a/", "body", 42)});
  }
  auto d = Open();
  EXPECT_EQ(CheckThenRecord(*d, {Q("http://b/", "body")})[0].verdict, Verdict::kExactDuplicate);
  EXPECT_EQ(CheckThenRecord(*d, {Q("http://c/", "x", 43)})[0].verdict, Verdict::kNearDuplicate);
}

TEST(DedupOptions, Validate) {
  EXPECT_TRUE(DedupOptions{.near_duplicate_bits = 0}.Validate().ok());
  EXPECT_FALSE(DedupOptions{.near_duplicate_bits = 4}.Validate().ok());
  EXPECT_FALSE(DedupOptions{.near_duplicate_bits = -1}.Validate().ok());
  kv::InMemoryKvStore wrong({{.name = "other"}});
  EXPECT_EQ(Dedup::Open({}, wrong).status().code(), absl::StatusCode::kInvalidArgument);
}

// The links seen per collection: insert-if-absent, per collection, durable in the store (a
// reopened index remembers), bad keys refused.
TEST_F(DedupTest, MarkLinksSeenSaysWhichLinksAreFreshPerCollection) {
  auto d = Open();
  EXPECT_EQ(d->MarkLinksSeen("c", {"http://a/", "http://b/", "http://a/"}).value(),
            (std::vector<bool>{true, true, false}));
  EXPECT_EQ(d->MarkLinksSeen("c", {"http://b/", "http://c/"}).value(),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(d->MarkLinksSeen("other", {"http://b/"}).value(), std::vector<bool>{true});
  EXPECT_TRUE(d->MarkLinksSeen("c", {}).value().empty());
  d = Open();
  EXPECT_EQ(d->MarkLinksSeen("c", {"http://c/"}).value(), std::vector<bool>{false});
  EXPECT_TRUE(absl::IsInvalidArgument(d->MarkLinksSeen("", {"http://a/"}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(d->MarkLinksSeen("c", {""}).status()));
}

}  // namespace
}  // namespace crawler::dedup
