// Partition: which crawler partition (frontier shard / fetcher replica) owns a host.
//
//   Partition(host, n) = JumpConsistentHash(XXH64(ASCII-lowercase(host), seed 0), n)
//
// as docs/architecture.md §4 specifies. Jump consistent hashing (J. Lamping, E. Veach, "A Fast,
// Minimal Memory, Consistent Hash Algorithm", 2014, arXiv:1406.2294) spreads keys evenly over n
// buckets and, when n grows to n + 1, moves only the ~1/(n + 1) of keys that now belong to the new
// bucket; no key moves between two old buckets. Resharding therefore migrates a small, predictable
// fraction of host queues.
//
// ON-DISK / ON-WIRE CONTRACT: every frontier shard, fetcher and the scheduler must agree on this
// function, and frontier shards persist the hosts they own. Changing the hash function, its seed,
// the case folding or the jump hash constants reassigns almost every host at once (a full
// reshard). The pinned known-answer tests in tests/unit/partition exist to catch that.
//
// Host keys are the serialised host of a parsed URL (crawler::url::Url::host(): IDNA A-labels,
// no port, IP literals in canonical form), so ASCII case folding is all the normalisation needed;
// bytes >= 0x80 are hashed unchanged.
//
// Thread-safety: pure functions of their arguments; safe to call concurrently.
#ifndef CRAWLER_LIB_PARTITION_PARTITION_H_
#define CRAWLER_LIB_PARTITION_PARTITION_H_

#include <cstdint>
#include <string_view>

namespace crawler::partition {

// The bucket in [0, num_buckets) of a 64-bit key, exactly the algorithm published in the paper
// (the linear congruential step 2862933555777941757 and the 2^31 / ((key >> 33) + 1) jump).
// Runs in O(ln num_buckets) time, no memory.
// REQUIRES: num_buckets >= 1 (0 is a programming error and aborts the process).
uint32_t JumpConsistentHash(uint64_t key, uint32_t num_buckets);

// XXH64 (seed 0) of the ASCII-lowercased host key: the 64-bit key partitioning hashes.
uint64_t HostKeyHash(std::string_view host);

// The partition in [0, num_partitions) that owns `host`; case-insensitive in ASCII.
// REQUIRES: num_partitions >= 1 (0 aborts the process).
uint32_t Partition(std::string_view host, uint32_t num_partitions);

}  // namespace crawler::partition

#endif  // CRAWLER_LIB_PARTITION_PARTITION_H_
