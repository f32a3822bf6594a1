#include "lib/recrawl/rate_histogram.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/encoding/varint.h"
#include "lib/recrawl/internal/wire.h"

namespace crawler::recrawl {
namespace {

constexpr uint8_t kHistogramFormatVersion = 1;

absl::Status Corrupt(std::string_view what) {
  return absl::DataLossError(absl::StrCat("rate histogram: ", std::string(what)));
}

}  // namespace

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

void RateHistogram::Merge(const RateHistogram& other) {
  for (int i = 0; i < kBins; ++i) {
    bins_[i].pages += other.bins_[i].pages;
    bins_[i].rate_sum += other.bins_[i].rate_sum;
    bins_[i].key_sum += other.bins_[i].key_sum;
  }
  static_pages_ += other.static_pages_;
  page_count_ += other.page_count_;
  total_rate_ += other.total_rate_;
}

std::string RateHistogram::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kHistogramFormatVersion));
  internal::PutNumber(page_count_, out);
  internal::PutNumber(static_pages_, out);
  internal::PutNumber(total_rate_, out);
  uint64_t non_empty = 0;
  for (const Bin& bin : bins_) non_empty += bin.pages > 0 ? 1 : 0;
  encoding::AppendVarint64(non_empty, out);
  for (int i = 0; i < kBins; ++i) {
    if (!(bins_[i].pages > 0)) continue;
    encoding::AppendVarint64(static_cast<uint64_t>(i), out);
    internal::PutNumber(bins_[i].pages, out);
    internal::PutNumber(bins_[i].rate_sum, out);
    internal::PutNumber(bins_[i].key_sum, out);
  }
  return out;
}

absl::StatusOr<RateHistogram> RateHistogram::Decode(std::string_view bytes) {
  if (bytes.empty()) return Corrupt("empty");
  if (static_cast<uint8_t>(bytes.front()) != kHistogramFormatVersion) {
    return absl::UnimplementedError(absl::StrCat("rate histogram: unknown format version ",
                                                 static_cast<int>(bytes.front())));
  }
  internal::WireReader reader(bytes.substr(1));
  RateHistogram histogram;
  uint64_t non_empty = 0;
  if (!reader.Number(histogram.page_count_) || !reader.Number(histogram.static_pages_) ||
      !reader.Number(histogram.total_rate_) || !reader.Varint(non_empty) ||
      non_empty > static_cast<uint64_t>(kBins)) {
    return Corrupt("bad header");
  }
  int previous = -1;
  for (uint64_t n = 0; n < non_empty; ++n) {
    uint64_t index = 0;
    if (!reader.Varint(index) || index >= static_cast<uint64_t>(kBins) ||
        static_cast<int>(index) <= previous) {
      return Corrupt("bad bin index");
    }
    previous = static_cast<int>(index);
    Bin& bin = histogram.bins_[index];
    if (!reader.Number(bin.pages) || !reader.Number(bin.rate_sum) || !reader.Number(bin.key_sum)) {
      return Corrupt("bad bin");
    }
  }
  if (!reader.done()) return Corrupt("trailing bytes");
  return histogram;
}

}  // namespace crawler::recrawl
