// VisitHistory: the bounded record of a URL's most recent visits that the change-rate
// estimators read (docs/architecture.md §7): for each visit, the interval since the previous one,
// whether the content changed (as decided by lib/fingerprint's change predicate, not by any byte
// difference), and how long before the visit the server's Last-Modified lay, when it sent one.
//
// It is small enough to live in the frontier's per-URL record: about 3 bytes per visit without
// Last-Modified, 6 with it, so the default 32 visits fit in ~100-200 bytes. Encode()/Decode() are
// the versioned on-disk form (RocksDB values). The layout of version 1 is below and in
// docs/recrawl.md; never change an existing version's layout, add a new version instead.
//
//   byte 0   format version, 1
//   byte 1   capacity, 1..64 (visits kept; the oldest is dropped when a new one arrives)
//   byte 2   count n, 0..capacity
//   byte 3   flags: bit 0 = the last visit time follows; other bits must be 0
//   varint   last visit, Unix seconds, zigzag-encoded (only if flag bit 0; required if n > 0)
//   n times, oldest visit first:
//     varint   (interval_seconds << 2) | (has_last_modified << 1) | changed,
//              interval_seconds in [1, 2^32 - 1]
//     varint   since_last_modified_seconds in [0, 2^32 - 1]   (only if has_last_modified)
//
// Varints are LEB128 (7 bits per byte, least significant group first, at most 10 bytes, no
// overlong forms), so a history has exactly one encoding.
// Decode() rejects anything else: unknown version (kUnimplemented), truncated or malformed bytes,
// out-of-range fields and trailing bytes (kDataLoss). It never reads past its input and never
// allocates more than kMaxCapacity visits.
//
// Thread-safety: a value type; const methods may be called concurrently.
#ifndef CRAWLER_LIB_RECRAWL_VISIT_HISTORY_H_
#define CRAWLER_LIB_RECRAWL_VISIT_HISTORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler::recrawl {

inline constexpr double kSecondsPerDay = 86400.0;

// One observation: what a visit saw compared with the visit before it.
struct Visit {
  // Seconds since the previous visit; at least 1 (intervals are stored in whole seconds).
  uint32_t interval_seconds = 1;
  // True iff the content changed significantly since the previous visit.
  bool changed = false;
  // True iff the server sent a usable Last-Modified at this visit.
  bool has_last_modified = false;
  // Visit time minus Last-Modified, in seconds (0 when Last-Modified was in the future).
  // Meaningful only if has_last_modified.
  uint32_t since_last_modified_seconds = 0;

  double interval_days() const { return interval_seconds / kSecondsPerDay; }
  std::optional<double> since_last_modified_days() const {
    if (!has_last_modified) return std::nullopt;
    return since_last_modified_seconds / kSecondsPerDay;
  }

  friend bool operator==(const Visit&, const Visit&) = default;
};

class VisitHistory {
 public:
  static constexpr int kDefaultCapacity = 32;
  static constexpr int kMaxCapacity = 64;
  static constexpr uint8_t kFormatVersion = 1;

  // REQUIRES: 1 <= capacity <= kMaxCapacity.
  explicit VisitHistory(int capacity = kDefaultCapacity);

  // Records a visit at `visit_time`. The first call only anchors the clock: there is no previous
  // visit to compare with, so nothing is appended and `changed` is ignored. A visit at or before
  // the previous one (clock stepped back) counts as 1 s after it. A Last-Modified after the visit
  // time counts as equal to it.
  void Record(absl::Time visit_time, bool changed, std::optional<absl::Time> last_modified);

  // Appends an observation made elsewhere (the simulator, tests); the clock anchor is unchanged.
  // Drops the oldest visit when full. interval_seconds is raised to 1 if it is 0.
  void Append(Visit visit);

  int capacity() const { return static_cast<int>(ring_.size()); }
  int size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // REQUIRES: 0 <= i < size(). Index 0 is the oldest visit kept.
  const Visit& operator[](int i) const { return ring_[(head_ + i) % ring_.size()]; }
  // REQUIRES: !empty().
  const Visit& latest() const { return (*this)[count_ - 1]; }
  // The time of the last Record() call, if any.
  std::optional<absl::Time> last_visit() const;

  // Sum of the kept intervals, in days.
  double total_interval_days() const;
  // Number of kept visits that saw a change.
  int changed_count() const;

  std::string Encode() const;
  static absl::StatusOr<VisitHistory> Decode(std::string_view bytes);

  friend bool operator==(const VisitHistory& a, const VisitHistory& b);

 private:
  std::vector<Visit> ring_;  // capacity() slots
  int head_ = 0;             // slot of the oldest visit
  int count_ = 0;
  bool has_last_visit_ = false;
  int64_t last_visit_unix_seconds_ = 0;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_VISIT_HISTORY_H_
