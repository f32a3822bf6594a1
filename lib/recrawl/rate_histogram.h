// RateHistogram: a fixed-size summary of the (estimated) change rates of a collection's pages,
// from which AllocationSolver finds the freshness-optimal multiplier mu without touching every
// page: the scheduler solves over the histogram, frontier shards keep their own histograms up to
// date as estimates move (Add the new estimate, Remove the old one) and ship them to it.
//
// Pages are binned by key = rate / weight (the only page property the optimality condition
// depends on, see optimal_frequency.h) on a log scale, kBinsPerDecade bins per decade over
// [kMinKey, kMaxKey] changes per day; keys outside are clamped into the edge bins. Each bin keeps
// its page count, the sum of its pages' rates and the sum of their keys (the bin's representative
// key is the mean). Pages with rate 0 or weight 0 go to a separate static bin: they never need a
// visit for freshness. Within a bin keys differ by at most 10^(1/32) - 1 = 7.5%, which bounds the
// error of a histogram solve; docs/recrawl.md measures it.
//
// Thread-compatible.
#ifndef CRAWLER_LIB_RECRAWL_RATE_HISTOGRAM_H_
#define CRAWLER_LIB_RECRAWL_RATE_HISTOGRAM_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace crawler::recrawl {

class RateHistogram {
 public:
  static constexpr int kBinsPerDecade = 32;
  static constexpr double kMinKey = 1e-6;  // changes per day: once in ~2,700 years
  static constexpr double kMaxKey = 1e6;   // changes per day: ~12 per second
  static constexpr int kBins = 12 * kBinsPerDecade;

  struct Bin {
    double pages = 0;
    double rate_sum = 0;  // sum of rates (changes per day)
    double key_sum = 0;   // sum of rate / weight

    friend bool operator==(const Bin&, const Bin&) = default;
  };

  // REQUIRES: rate_per_day >= 0, weight >= 0.
  void Add(double rate_per_day, double weight = 1.0);
  // Undoes an earlier Add with the same arguments.
  void Remove(double rate_per_day, double weight = 1.0);

  // Adds every page of `other` (the scheduler merges the histograms of frontier partitions).
  void Merge(const RateHistogram& other);

  // A compact, versioned form for storage and RPCs: only non-empty bins are written. Layout
  // (version 1): byte 0 = 1; page_count, static_pages, total_rate as IEEE-754 binary64
  // little-endian; a varint count of non-empty bins; per bin a varint index (< kBins) and pages,
  // rate_sum, key_sum as binary64. Decode() rejects an unknown version (kUnimplemented) and
  // truncated, trailing, duplicate-bin, negative or non-finite values (kDataLoss).
  std::string Encode() const;
  static absl::StatusOr<RateHistogram> Decode(std::string_view bytes);

  absl::Span<const Bin> bins() const { return bins_; }
  // Pages with rate 0 or weight 0.
  double static_pages() const { return static_pages_; }
  double page_count() const { return page_count_; }
  // Sum of all rates, changes per day.
  double total_rate() const { return total_rate_; }

  // Same bins and totals (exact floating-point comparison: for tests of Encode/Decode and RPCs).
  friend bool operator==(const RateHistogram&, const RateHistogram&) = default;

 private:
  void Update(double rate_per_day, double weight, double sign);

  std::array<Bin, kBins> bins_{};
  double static_pages_ = 0;
  double page_count_ = 0;
  double total_rate_ = 0;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_RATE_HISTOGRAM_H_
