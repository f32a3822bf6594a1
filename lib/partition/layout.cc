#include "lib/partition/layout.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/partition/partition.h"

namespace crawler::partition {

uint32_t PartitionLayout::Span() const {
  return std::max({count, reshard_to, resharded_from});
}

uint32_t PartitionLayout::Owner(std::string_view host) const { return Partition(host, count); }

uint32_t PartitionLayout::NewOwner(std::string_view host) const {
  return moving() ? Partition(host, reshard_to) : Owner(host);
}

std::string PartitionLayout::Describe() const {
  std::string out = absl::StrCat(count, count == 1 ? " partition" : " partitions");
  if (moving()) absl::StrAppend(&out, ", moving to ", reshard_to);
  if (resharded_from != 0) absl::StrAppend(&out, " (from ", resharded_from, ")");
  return out;
}

Routing RouteAt(const PartitionLayout& layout, uint32_t index, std::string_view host) {
  if (layout.Span() <= 1) return Routing::kOwn;
  if (layout.Owner(host) == index) return Routing::kOwn;
  if (layout.moving() && layout.NewOwner(host) == index) return Routing::kOwn;
  if (layout.resharded_from != 0 && Partition(host, layout.resharded_from) == index) {
    return Routing::kHold;
  }
  return Routing::kRefuse;
}

absl::Status ValidateLayout(const PartitionLayout& layout, uint32_t index) {
  constexpr uint32_t kMax = 65536;
  if (layout.count < 1 || layout.count > kMax) {
    return absl::InvalidArgumentError("partition count must be in [1, 65536]");
  }
  if (layout.reshard_to > kMax || layout.resharded_from > kMax) {
    return absl::InvalidArgumentError("a reshard's partition count must be in [1, 65536]");
  }
  if (layout.reshard_to == layout.count) {
    return absl::InvalidArgumentError("a reshard must change the partition count");
  }
  if (layout.reshard_to != 0 && layout.resharded_from != 0) {
    return absl::InvalidArgumentError(
        "a layout moving to another count cannot still hold the previous one's stragglers");
  }
  if (index >= layout.Span()) {
    return absl::InvalidArgumentError(absl::StrCat("partition ", index, " is outside the layout (",
                                                   layout.Describe(), ")"));
  }
  return absl::OkStatus();
}

}  // namespace crawler::partition
