#include "services/frontier/seen_cache.h"

#include <xxhash.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace crawler::frontier {

SeenCache::SeenCache(size_t max_entries) {
  if (max_entries < kWays) return;
  const size_t buckets = std::bit_floor(max_entries / kWays);
  buckets_.resize(buckets);
  mask_ = buckets - 1;
}

uint64_t SeenCache::Hash(std::string_view url) {
  const uint64_t hash = XXH3_64bits(url.data(), url.size());
  return hash == 0 ? 1 : hash;
}

size_t SeenCache::size() const {
  size_t held = 0;
  for (const Bucket& bucket : buckets_) {
    for (const uint64_t slot : bucket.slots) held += slot != 0 ? 1 : 0;
  }
  return held;
}

bool SeenCache::Contains(uint64_t hash) {
  if (buckets_.empty()) return false;
  uint64_t* slots = BucketOf(hash).slots;
  for (size_t i = 0; i < kWays && slots[i] != 0; ++i) {
    if (slots[i] != hash) continue;
    for (; i > 0; --i) slots[i] = slots[i - 1];
    slots[0] = hash;
    return true;
  }
  return false;
}

void SeenCache::Insert(uint64_t hash) {
  if (buckets_.empty()) return;
  uint64_t* slots = BucketOf(hash).slots;
  // Shift the entries before `hash` (or all but the last, which falls out) one place back.
  size_t i = 0;
  while (i < kWays - 1 && slots[i] != 0 && slots[i] != hash) ++i;
  for (; i > 0; --i) slots[i] = slots[i - 1];
  slots[0] = hash;
}

void SeenCache::Clear() {
  for (Bucket& bucket : buckets_) bucket = Bucket{};
}

}  // namespace crawler::frontier
