// FreshnessMeter: integrates the freshness and age of a collection of page copies over time,
// exactly (no sampling): between two visits of a page its copy is fresh until the live page's
// first change and then ages linearly. Totals are kept per time bucket (for plots of freshness
// over time) and over a measurement window [window_start, end] (for the reported averages).
// Weighted: each page counts with its importance weight.
//
// Thread-compatible.
#ifndef CRAWLER_TOOLS_CRAWLSIM_FRESHNESS_METER_H_
#define CRAWLER_TOOLS_CRAWLSIM_FRESHNESS_METER_H_

#include <vector>

namespace crawler::crawlsim {

class FreshnessMeter {
 public:
  // REQUIRES: end_days > 0, bucket_days > 0, 0 <= window_start_days < end_days.
  FreshnessMeter(double end_days, double bucket_days, double window_start_days);

  // A copy taken at `from_days` and replaced at `to_days`; the live page first changed after the
  // copy at `first_change_days` (>= from_days; beyond to_days when it did not change).
  // Time outside [0, end] is ignored.
  void AddInterval(double from_days, double to_days, double first_change_days, double weight);

  // Window averages over pages of total weight `total_weight`.
  double WindowFreshness(double total_weight) const;
  double WindowAgeDays(double total_weight) const;

  int bucket_count() const { return static_cast<int>(fresh_.size()); }
  double bucket_start_days(int b) const { return b * bucket_days_; }
  double BucketFreshness(int b, double total_weight) const;
  double BucketAgeDays(int b, double total_weight) const;

 private:
  double BucketWidth(int b) const;

  double end_;
  double bucket_days_;
  double window_start_;
  std::vector<double> fresh_;  // weighted fresh page-days per bucket
  std::vector<double> age_;    // weighted integral of age per bucket, page-days^2
  double window_fresh_ = 0;
  double window_age_ = 0;
};

}  // namespace crawler::crawlsim

#endif  // CRAWLER_TOOLS_CRAWLSIM_FRESHNESS_METER_H_
