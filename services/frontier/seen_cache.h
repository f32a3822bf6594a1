// SeenCache: a bounded in-memory set of URLs known to have a record in the frontier's
// "frontier.urls" family, consulted by Frontier::AddUrls before it reads the store. Most links
// of a page (navigation, headers, footers) point at URLs the frontier already holds; a hit here
// answers "already seen" without a RocksDB lookup.
//
// What is kept: the 64-bit XXH3 hash of each URL (0 is mapped to 1: 0 marks a free slot), in a
// set-associative table of 8-way buckets, one 64-byte cache line each, so a lookup touches one
// line. The bucket is chosen by the hash's low bits; within a bucket the slots are kept in
// order of use, with midpoint insertion (as in 2Q or InnoDB's buffer pool): a hit moves its hash
// to the front, a new hash goes in at the middle, and an insertion into a full bucket drops the
// last one. A URL seen once therefore has to be seen again before it can push out a URL that
// was: the links of the pages being fetched (a site's navigation, popular pages elsewhere)
// stay while the stream of URLs met once (new discoveries, deep links) passes through the back
// half. Memory is fixed at construction (8 bytes per entry) and does not grow with
// the number of URLs (docs/architecture.md §2: frontier RAM is bounded by hosts, not URLs). It is
// mapped zero-filled and becomes resident as buckets are first used, so a frontier starts without
// clearing the whole table.
//
// False positives: a URL that is NOT in the store hits only if its 64-bit hash equals one of
// the hashes held, i.e. with probability at most capacity() / 2^64 per lookup (2^-44, about
// 5.7e-14, at the default 2^20 entries): one wrongly dropped URL expected per ~1.8e13 new URLs.
// Such a URL is counted as already seen and never crawled. Misses are exact: a URL that is not
// held is looked up in the store. The hash is not keyed, so a page crafted to collide with a
// URL the crawler has not seen yet could hide that one URL; nothing else is affected.
//
// Correctness needs the caller to insert only URLs that are durably in the store, and to remove
// none from the store while the cache lives (the frontier never deletes URL records).
//
// Thread-safety: not thread-safe; Contains() reorders its bucket, so even lookups need the
// owner's lock (the Frontier's mutex).
#ifndef CRAWLER_SERVICES_FRONTIER_SEEN_CACHE_H_
#define CRAWLER_SERVICES_FRONTIER_SEEN_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler::frontier {

class SeenCache {
 public:
  // Slots per bucket: 8 x 8 bytes fill one cache line.
  static constexpr size_t kWays = 8;
  // Where Insert puts a new hash once the bucket has that many entries: from then on the front
  // half holds only hashes hit since they came in.
  static constexpr size_t kProbationStart = kWays / 2;

  // A cache that holds at most `max_entries` hashes: the largest power-of-two number of buckets
  // whose slots fit in max_entries. Fewer than kWays entries (0 included) gives a disabled
  // cache. kResourceExhausted if the table's address space cannot be mapped.
  static absl::StatusOr<SeenCache> Create(size_t max_entries);

  // A disabled cache: Contains() is always false and Insert() does nothing.
  SeenCache() = default;

  SeenCache(SeenCache&& other) noexcept;
  SeenCache& operator=(SeenCache&& other) noexcept;
  SeenCache(const SeenCache&) = delete;
  SeenCache& operator=(const SeenCache&) = delete;

  // The key of `url` (XXH3 64-bit, never 0). Compute it once per URL and pass it to both calls.
  static uint64_t Hash(std::string_view url);

  bool enabled() const { return bucket_count_ > 0; }
  // Hashes the table can hold; its memory is capacity() * 8 bytes.
  size_t capacity() const { return bucket_count_ * kWays; }
  // Hashes held now (counts the slots: O(capacity), for tests and diagnostics).
  size_t size() const;

  // Starts loading `hash`'s bucket into the CPU cache. A table larger than the CPU caches
  // costs a memory round trip per probe; prefetching a batch's buckets first overlaps them.
  void Prefetch(uint64_t hash) const {
    if (enabled()) __builtin_prefetch(&buckets_[hash & mask_], /*rw=*/1);
  }

  // True if `hash` is held; a hit moves it to the front of its bucket.
  bool Contains(uint64_t hash);
  // Holds `hash`: a hash held already moves to the front of its bucket (as a hit), a new one
  // goes in at the middle, dropping the bucket's last entry if it is full. REQUIRES: the URL
  // behind `hash` has a record in the store.
  void Insert(uint64_t hash);

  // Forgets everything (e.g. if URL records were ever removed from the store).
  void Clear();

  // True once an entry was dropped (by Insert into a full bucket) or Clear() was called: from
  // then on the cache may lack a URL it was given. Until then it holds every hash inserted.
  bool forgot() const { return forgot_; }

 private:
  struct alignas(64) Bucket {
    // Ordered by use, midpoint insertion (the class comment); free slots (0) only after the
    // used ones.
    uint64_t slots[kWays] = {};
  };

  // Unmaps the table (munmap needs its length).
  struct Unmap {
    size_t bytes;  // no default member initialiser: unique_ptr needs Unmap default-constructible
    void operator()(Bucket* buckets) const;
  };

  Bucket& BucketOf(uint64_t hash) { return buckets_[hash & mask_]; }
  // Moves slots[i] to slots[0], the entries before it one place back.
  static void MoveToFront(uint64_t* slots, size_t i);

  std::unique_ptr<Bucket[], Unmap> buckets_;
  size_t bucket_count_ = 0;
  uint64_t mask_ = 0;
  bool forgot_ = false;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_SEEN_CACHE_H_
