#include "lib/recrawl/rate_histogram.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace crawler::recrawl {

void RateHistogram::Add(double rate_per_day, double weight) { Update(rate_per_day, weight, 1.0); }

void RateHistogram::Remove(double rate_per_day, double weight) {
  Update(rate_per_day, weight, -1.0);
}

void RateHistogram::Update(double rate_per_day, double weight, double sign) {
  assert(rate_per_day >= 0 && weight >= 0);
  page_count_ += sign;
  if (!(rate_per_day > 0) || !(weight > 0)) {
    static_pages_ += sign;
    return;
  }
  total_rate_ += sign * rate_per_day;
  const double key = rate_per_day / weight;
  const double position = std::log10(std::clamp(key, kMinKey, kMaxKey) / kMinKey) * kBinsPerDecade;
  const int index = std::clamp(static_cast<int>(position), 0, kBins - 1);
  Bin& bin = bins_[index];
  bin.pages += sign;
  bin.rate_sum += sign * rate_per_day;
  bin.key_sum += sign * key;
  // Sums that went back to no pages must be exactly empty, not rounding residue.
  if (bin.pages <= 0.5) bin = Bin{};
  if (page_count_ <= 0.5) total_rate_ = 0;
}

}  // namespace crawler::recrawl
