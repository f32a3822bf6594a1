#include "services/frontier/seen_cache.h"

#include <sys/mman.h>
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::frontier {

absl::StatusOr<SeenCache> SeenCache::Create(size_t max_entries) {
  SeenCache cache;
  if (max_entries < kWays) return cache;
  const size_t buckets = std::bit_floor(max_entries / kWays);
  const size_t bytes = buckets * sizeof(Bucket);
  // Anonymous pages are zero (every slot free) and page-aligned (a bucket per cache line); they
  // become resident when first written, not all at once here.
  void* table = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (table == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("seen cache: cannot map ", bytes, " bytes: ", std::strerror(errno)));
  }
  cache.buckets_ = std::unique_ptr<Bucket[], Unmap>(static_cast<Bucket*>(table), Unmap{bytes});
  cache.bucket_count_ = buckets;
  cache.mask_ = buckets - 1;
  return cache;
}

SeenCache::SeenCache(SeenCache&& other) noexcept
    : buckets_(std::move(other.buckets_)),
      bucket_count_(std::exchange(other.bucket_count_, 0)),
      mask_(std::exchange(other.mask_, 0)),
      forgot_(std::exchange(other.forgot_, false)) {}

SeenCache& SeenCache::operator=(SeenCache&& other) noexcept {
  buckets_ = std::move(other.buckets_);
  bucket_count_ = std::exchange(other.bucket_count_, 0);
  mask_ = std::exchange(other.mask_, 0);
  forgot_ = std::exchange(other.forgot_, false);
  return *this;
}

void SeenCache::Unmap::operator()(Bucket* buckets) const { munmap(buckets, bytes); }

uint64_t SeenCache::Hash(std::string_view url) {
  const uint64_t hash = XXH3_64bits(url.data(), url.size());
  return hash == 0 ? 1 : hash;
}

size_t SeenCache::size() const {
  size_t held = 0;
  for (size_t b = 0; b < bucket_count_; ++b) {
    for (const uint64_t slot : buckets_[b].slots) held += slot != 0 ? 1 : 0;
  }
  return held;
}

void SeenCache::MoveToFront(uint64_t* slots, size_t i) {
  const uint64_t hash = slots[i];
  for (; i > 0; --i) slots[i] = slots[i - 1];
  slots[0] = hash;
}

bool SeenCache::Contains(uint64_t hash) {
  if (!enabled()) return false;
  uint64_t* slots = BucketOf(hash).slots;
  for (size_t i = 0; i < kWays && slots[i] != 0; ++i) {
    if (slots[i] != hash) continue;
    MoveToFront(slots, i);
    return true;
  }
  return false;
}

void SeenCache::Insert(uint64_t hash) {
  if (!enabled()) return;
  uint64_t* slots = BucketOf(hash).slots;
  size_t used = 0;
  for (; used < kWays && slots[used] != 0; ++used) {
    if (slots[used] != hash) continue;
    MoveToFront(slots, used);  // held already: a second sighting, as good as a hit
    return;
  }
  // A new entry goes in at the middle of the bucket (or after the last used slot, if that is
  // earlier): ahead of the entries that were never hit, behind those that were. The entries
  // after it move one place back and the last one falls out if the bucket was full.
  const size_t at = std::min(used, kProbationStart);
  if (used == kWays) forgot_ = true;
  for (size_t i = std::min(used, kWays - 1); i > at; --i) slots[i] = slots[i - 1];
  slots[at] = hash;
}

void SeenCache::Clear() {
  std::fill_n(buckets_.get(), bucket_count_, Bucket{});
  forgot_ = true;
}

}  // namespace crawler::frontier
