#include "tools/crawlsim/freshness_meter.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace crawler::crawlsim {
namespace {

// Integral of (tau - origin) over [a, b].
double AgeIntegral(double a, double b, double origin) {
  return 0.5 * ((b - origin) * (b - origin) - (a - origin) * (a - origin));
}

}  // namespace

FreshnessMeter::FreshnessMeter(double end_days, double bucket_days, double window_start_days)
    : end_(end_days), bucket_days_(bucket_days), window_start_(window_start_days) {
  assert(end_days > 0 && bucket_days > 0);
  const int buckets = std::max(1, static_cast<int>(std::ceil(end_days / bucket_days - 1e-9)));
  fresh_.assign(static_cast<size_t>(buckets), 0.0);
  age_.assign(static_cast<size_t>(buckets), 0.0);
}

double FreshnessMeter::BucketWidth(int b) const {
  return std::min(end_, (b + 1) * bucket_days_) - b * bucket_days_;
}

void FreshnessMeter::AddInterval(double from_days, double to_days, double first_change_days,
                                 double weight) {
  const double from = std::max(from_days, 0.0);
  const double to = std::min(to_days, end_);
  if (!(to > from)) return;
  const double stale_from = std::clamp(first_change_days, from, to);

  // Fresh on [from, stale_from), ageing on [stale_from, to).
  if (stale_from > from) {
    window_fresh_ += weight * std::max(0.0, stale_from - std::max(from, window_start_));
  }
  if (to > stale_from) {
    const double a = std::max(stale_from, window_start_);
    if (to > a) window_age_ += weight * AgeIntegral(a, to, first_change_days);
  }
  const int last = bucket_count() - 1;
  for (int b = std::min(static_cast<int>(from / bucket_days_), last);
       b <= last && b * bucket_days_ < to; ++b) {
    const double lo = std::max(from, b * bucket_days_);
    const double hi = std::min(to, (b + 1) * bucket_days_);
    if (!(hi > lo)) continue;
    const double fresh_hi = std::min(hi, stale_from);
    if (fresh_hi > lo) fresh_[b] += weight * (fresh_hi - lo);
    const double age_lo = std::max(lo, stale_from);
    if (hi > age_lo) age_[b] += weight * AgeIntegral(age_lo, hi, first_change_days);
  }
}

double FreshnessMeter::WindowFreshness(double total_weight) const {
  return window_fresh_ / (total_weight * (end_ - window_start_));
}

double FreshnessMeter::WindowAgeDays(double total_weight) const {
  return window_age_ / (total_weight * (end_ - window_start_));
}

double FreshnessMeter::BucketFreshness(int b, double total_weight) const {
  return fresh_[b] / (total_weight * BucketWidth(b));
}

double FreshnessMeter::BucketAgeDays(int b, double total_weight) const {
  return age_[b] / (total_weight * BucketWidth(b));
}

}  // namespace crawler::crawlsim
