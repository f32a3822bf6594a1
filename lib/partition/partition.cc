#include "lib/partition/partition.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lib/encoding/ascii.h"

namespace crawler::partition {
namespace {

// A zero bucket count is a caller's broken invariant, not bad input: there is no correct answer
// to return, and handing back a bucket number would route work to a shard that does not exist.
void CheckBucketCount(uint32_t num_buckets) {
  if (num_buckets == 0) {
    std::fputs("crawler::partition: REQUIRES num_buckets >= 1\n", stderr);
    std::abort();
  }
}

}  // namespace

uint32_t JumpConsistentHash(uint64_t key, uint32_t num_buckets) {
  CheckBucketCount(num_buckets);
  // Signed 64-bit arithmetic as in the paper. For num_buckets <= 2^32 - 1 the product
  // (b + 1) * 2^31 / ((key >> 33) + 1) stays below 2^63, so the conversion is always defined.
  int64_t b = -1;
  int64_t j = 0;
  while (j < static_cast<int64_t>(num_buckets)) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = static_cast<int64_t>(static_cast<double>(b + 1) * (static_cast<double>(int64_t{1} << 31) /
                                                           static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<uint32_t>(b);
}

uint64_t HostKeyHash(std::string_view host) {
  // Serialised hosts are already lowercase, so the common case hashes the caller's bytes as they
  // are; only a key with an uppercase ASCII letter pays for a lowercased copy.
  if (std::none_of(host.begin(), host.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
    return XXH64(host.data(), host.size(), /*seed=*/0);
  }
  const std::string lowered = encoding::ToAsciiLower(host);
  return XXH64(lowered.data(), lowered.size(), /*seed=*/0);
}

uint32_t Partition(std::string_view host, uint32_t num_partitions) {
  CheckBucketCount(num_partitions);
  return JumpConsistentHash(HostKeyHash(host), num_partitions);
}

}  // namespace crawler::partition
