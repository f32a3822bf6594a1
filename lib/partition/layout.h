// PartitionLayout: how a crawl's hosts are spread over its partitions, including while that
// changes (resharding, docs/architecture.md §4).
//
// Hosts are routed by `count`. During a reshard `reshard_to` is the count the hosts are moving
// to: a host whose owner differs under the two counts moves from its old owner to its new one,
// and the new owner already takes what is delivered for it. When every host has moved, the
// layout flips: `count` becomes the new count and `resharded_from` keeps the old one for a
// while, so a URL routed by the old layout (a fetcher that has not heard of the flip yet) is
// recognised and held, not refused. An `epoch` numbers the layouts; every change raises it.
//
// Thread-safety: a plain value.
#ifndef CRAWLER_LIB_PARTITION_LAYOUT_H_
#define CRAWLER_LIB_PARTITION_LAYOUT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace crawler::partition {

struct PartitionLayout {
  uint64_t epoch = 0;
  uint32_t count = 1;
  uint32_t reshard_to = 0;      // 0: no move in progress
  uint32_t resharded_from = 0;  // 0: none

  bool moving() const { return reshard_to != 0; }
  // Partitions that may hold or receive hosts now: the largest of the three counts.
  uint32_t Span() const;
  // The partition hosts are routed to now.
  uint32_t Owner(std::string_view host) const;
  // Where the host lives once the move in progress is done (Owner() when none is).
  uint32_t NewOwner(std::string_view host) const;
  // "2 partitions", "2 partitions, moving to 3", "3 partitions (from 2)".
  std::string Describe() const;

  friend bool operator==(const PartitionLayout&, const PartitionLayout&) = default;
};

// What partition `index` does with a URL of a host under a layout, before it knows about the
// host (Frontier::AddUrls refines kOwn for hosts that are moving away).
enum class Routing {
  kOwn,     // the host is this partition's now, or is moving here
  kHold,    // another partition owns it, but this one owned it under the previous layout
  kRefuse,  // neither: the caller routed it wrong
};
Routing RouteAt(const PartitionLayout& layout, uint32_t index, std::string_view host);

// kInvalidArgument naming the field: counts in [1, 65536] (0 for the two optional ones),
// reshard_to not equal to count, the two optional ones not both set, and `index` (a
// partition's own place; pass 0 to check the layout alone) below Span().
absl::Status ValidateLayout(const PartitionLayout& layout, uint32_t index = 0);

}  // namespace crawler::partition

#endif  // CRAWLER_LIB_PARTITION_LAYOUT_H_
