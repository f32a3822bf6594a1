#include "lib/recrawl/rate_prior.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

namespace crawler::recrawl {
namespace {

// Evidence cells: change-free days and mean intervals on a log grid of 10 bins per decade over
// [kMinDays, kMinDays * 10^10) days, from under a second (pages of test webs that change in
// seconds) to centuries; bin 0 holds 0 (and anything below kMinDays).
constexpr double kMinDays = 1e-5;
constexpr int kDayBinsPerDecade = 10;
constexpr int kDayBins = 10 * kDayBinsPerDecade + 1;

int DayBin(double days) {
  if (!(days >= kMinDays)) return 0;
  const int bin = 1 + static_cast<int>(std::floor(std::log10(days / kMinDays) * kDayBinsPerDecade));
  return std::min(bin, kDayBins - 1);
}

// The days a bin stands for: the geometric centre of its range (0 for bin 0).
double BinDays(int bin) {
  if (bin <= 0) return 0.0;
  return kMinDays * std::pow(10.0, (bin - 0.5) / kDayBinsPerDecade);
}

// The cell key: timed, short and long change counts, then the bins of change-free days and of
// the two groups' mean intervals.
struct KeyFields {
  uint64_t timed, short_changes, long_changes, quiet_bin, short_bin, long_bin;
};

uint64_t PackKey(const KeyFields& f) {
  return (f.timed << 48) | (f.short_changes << 40) | (f.long_changes << 32) | (f.quiet_bin << 16) |
         (f.short_bin << 8) | f.long_bin;
}

KeyFields UnpackKey(uint64_t key) {
  return KeyFields{key >> 48,          (key >> 40) & 0xff, (key >> 32) & 0xff,
                   (key >> 16) & 0xff, (key >> 8) & 0xff,  key & 0xff};
}

// ln L of a pooled evidence at every grid rate.
void LogLikelihoodOnGrid(const PooledEvidence& evidence,
                         std::array<double, RatePrior::kPoints>& out) {
  for (int p = 0; p < RatePrior::kPoints; ++p) {
    out[p] = evidence.LogLikelihood(RatePrior::PointRate(p));
  }
}

// Normalised posterior over the grid from ln L and the prior weights; returns false when every
// point has probability 0 under the prior.
bool PosteriorOnGrid(const std::array<double, RatePrior::kPoints>& log_l,
                     const std::array<double, RatePrior::kPoints>& prior,
                     std::array<double, RatePrior::kPoints>& out) {
  double peak = -std::numeric_limits<double>::infinity();
  for (int p = 0; p < RatePrior::kPoints; ++p) {
    if (prior[p] > 0) peak = std::max(peak, log_l[p]);
  }
  if (!std::isfinite(peak)) return false;
  double total = 0;
  for (int p = 0; p < RatePrior::kPoints; ++p) {
    out[p] = prior[p] > 0 ? prior[p] * std::exp(log_l[p] - peak) : 0.0;
    total += out[p];
  }
  if (!(total > 0)) return false;
  for (double& w : out) w /= total;
  return true;
}

}  // namespace

PooledEvidence PooledEvidence::Of(const ChangeEvidence& evidence) {
  PooledEvidence pooled;
  pooled.timed_changes = evidence.timed_changes;
  pooled.quiet_days = evidence.quiet_days;
  double longest = 0;
  for (int i = 0; i < evidence.untimed_count; ++i) {
    longest = std::max(longest, evidence.untimed_days[i]);
  }
  for (int i = 0; i < evidence.untimed_count; ++i) {
    const double days = evidence.untimed_days[i];
    if (days < 0.5 * longest) {
      pooled.short_changes += 1;
      pooled.short_mean_days += days;
    } else {
      pooled.long_changes += 1;
      pooled.long_mean_days += days;
    }
  }
  if (pooled.short_changes > 0) pooled.short_mean_days /= pooled.short_changes;
  if (pooled.long_changes > 0) pooled.long_mean_days /= pooled.long_changes;
  pooled.quiet_days = BinDays(DayBin(pooled.quiet_days));
  pooled.short_mean_days = BinDays(DayBin(pooled.short_mean_days));
  pooled.long_mean_days = BinDays(DayBin(pooled.long_mean_days));
  return pooled;
}

double PooledEvidence::LogLikelihood(double lambda) const {
  double log_l = -lambda * quiet_days;
  if (timed_changes > 0) log_l += timed_changes * std::log(lambda);
  if (short_changes > 0) log_l += short_changes * std::log(-std::expm1(-lambda * short_mean_days));
  if (long_changes > 0) log_l += long_changes * std::log(-std::expm1(-lambda * long_mean_days));
  return log_l;
}

double RatePrior::PointRate(int k) {
  // Every posterior evaluates all of them: computed once.
  static const std::array<double, kPoints> kRates = [] {
    std::array<double, kPoints> rates{};
    for (int p = 0; p < kPoints; ++p) {
      rates[p] = kMinRate * std::pow(10.0, static_cast<double>(p) / kPointsPerDecade);
    }
    return rates;
  }();
  return kRates[k];
}

RatePrior RatePrior::FromGamma(const GammaPrior& gamma) {
  // Density lambda^(shape-1) e^{-rate lambda} times the grid's d lambda ~ lambda.
  std::array<double, kPoints> log_w{};
  double peak = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < kPoints; ++k) {
    const double lambda = PointRate(k);
    log_w[k] = gamma.shape * std::log(lambda) - gamma.rate_days * lambda;
    peak = std::max(peak, log_w[k]);
  }
  std::array<double, kPoints> weights{};
  for (int k = 0; k < kPoints; ++k) weights[k] = std::exp(log_w[k] - peak);
  return RatePrior(weights);
}

RatePrior::RatePrior(const std::array<double, kPoints>& weights) : weights_(weights) {
  double total = 0;
  for (double w : weights_) {
    assert(w >= 0);
    total += w;
  }
  assert(total > 0);
  for (double& w : weights_) w /= total;
}

double RatePrior::Mean() const {
  double mean = 0;
  for (int k = 0; k < kPoints; ++k) mean += weights_[k] * PointRate(k);
  return mean;
}

std::array<double, RatePrior::kPoints> RatePrior::Posterior(
    const ChangeEvidence& evidence) const {
  std::array<double, kPoints> log_l{};
  for (int k = 0; k < kPoints; ++k) log_l[k] = evidence.LogLikelihood(PointRate(k));
  std::array<double, kPoints> posterior{};
  if (!PosteriorOnGrid(log_l, weights_, posterior)) return weights_;
  return posterior;
}

std::array<double, RatePrior::kPoints> RatePrior::Posterior(
    const PooledEvidence& evidence) const {
  std::array<double, kPoints> log_l{};
  LogLikelihoodOnGrid(evidence, log_l);
  std::array<double, kPoints> posterior{};
  if (!PosteriorOnGrid(log_l, weights_, posterior)) return weights_;
  return posterior;
}

double RatePrior::PosteriorRate(const ChangeEvidence& evidence) const {
  return PosteriorSummary(evidence, kMaxRate).rate_per_day;
}

RatePrior::Summary RatePrior::PosteriorSummary(const ChangeEvidence& evidence,
                                               double rate_threshold) const {
  const std::array<double, kPoints> posterior = Posterior(evidence);
  double mean_log = 0;
  Summary summary;
  for (int k = 0; k < kPoints; ++k) {
    const double rate = PointRate(k);
    mean_log += posterior[k] * std::log(rate);
    if (rate > rate_threshold) summary.probability_above += posterior[k];
  }
  summary.rate_per_day = std::clamp(std::exp(mean_log), kMinRate, kMaxRate);
  return summary;
}

uint64_t FleetEvidence::KeyOf(const PooledEvidence& evidence) {
  return PackKey(KeyFields{static_cast<uint64_t>(evidence.timed_changes),
                           static_cast<uint64_t>(evidence.short_changes),
                           static_cast<uint64_t>(evidence.long_changes),
                           static_cast<uint64_t>(DayBin(evidence.quiet_days)),
                           static_cast<uint64_t>(DayBin(evidence.short_mean_days)),
                           static_cast<uint64_t>(DayBin(evidence.long_mean_days))});
}

bool FleetEvidence::ValidKey(uint64_t key) {
  const KeyFields f = UnpackKey(key);
  constexpr uint64_t kMaxChanges = VisitHistory::kMaxCapacity;
  return f.timed <= kMaxChanges && f.short_changes + f.long_changes <= kMaxChanges &&
         (key & 0xff000000ull) == 0 && f.quiet_bin < kDayBins && f.short_bin < kDayBins &&
         f.long_bin < kDayBins;
}

PooledEvidence FleetEvidence::CellEvidence(uint64_t key) {
  const KeyFields f = UnpackKey(key);
  PooledEvidence evidence;
  evidence.timed_changes = static_cast<double>(f.timed);
  evidence.short_changes = static_cast<double>(f.short_changes);
  evidence.long_changes = static_cast<double>(f.long_changes);
  evidence.quiet_days = BinDays(static_cast<int>(f.quiet_bin));
  evidence.short_mean_days = BinDays(static_cast<int>(f.short_bin));
  evidence.long_mean_days = BinDays(static_cast<int>(f.long_bin));
  return evidence;
}

void FleetEvidence::Update(const VisitHistory& history, double pages,
                           double committed_visits_per_day) {
  if (history.empty()) return;
  const uint64_t key = KeyOf(PooledEvidence::Of(history));
  Cell& cell = cells_[key];
  cell.pages += pages;
  if (committed_visits_per_day >= 0) {
    cell.committed_pages += pages;
    cell.committed_visits_per_day += pages * committed_visits_per_day;
  }
  page_count_ += pages;
  // Removing the last page of a cell leaves rounding dust; drop the cell instead.
  if (cell.pages < 1e-9) cells_.erase(key);
}

void FleetEvidence::Add(const VisitHistory& history, double pages,
                        double committed_visits_per_day) {
  Update(history, pages, committed_visits_per_day);
}

void FleetEvidence::Remove(const VisitHistory& history, double pages,
                           double committed_visits_per_day) {
  Update(history, -pages, committed_visits_per_day);
}

void FleetEvidence::Merge(const FleetEvidence& other) {
  for (const auto& [key, cell] : other.cells_) {
    Cell& mine = cells_[key];
    mine.pages += cell.pages;
    mine.committed_pages += cell.committed_pages;
    mine.committed_visits_per_day += cell.committed_visits_per_day;
  }
  page_count_ += other.page_count_;
}

std::vector<FleetEvidence::CellPosterior> FleetEvidence::Posteriors(
    const RatePrior& prior) const {
  std::vector<CellPosterior> out;
  out.reserve(cells_.size());
  std::array<double, RatePrior::kPoints> log_l{};
  // In key order, so that sums over the cells do not depend on the hash map's layout.
  for (const CellEntry& cell : cells()) {
    if (!(cell.pages > 0)) continue;
    CellPosterior& entry = out.emplace_back();
    entry.pages = cell.pages;
    entry.committed_pages = cell.committed_pages;
    entry.committed_visits_per_day = cell.committed_visits_per_day;
    LogLikelihoodOnGrid(CellEvidence(cell.key), log_l);
    if (!PosteriorOnGrid(log_l, prior.weights(), entry.posterior)) entry.posterior = prior.weights();
  }
  return out;
}

RatePrior FleetEvidence::Fit(const RatePrior& start, const FitOptions& options) const {
  if (!(page_count_ > 0) || cells_.empty()) return start;
  struct Row {
    double pages;
    std::array<double, RatePrior::kPoints> log_l;
  };
  std::vector<Row> rows;
  rows.reserve(cells_.size());
  // In key order, so that the sums do not depend on the hash map's layout.
  for (const CellEntry& cell : cells()) {
    if (!(cell.pages > 0)) continue;
    Row row{cell.pages, {}};
    LogLikelihoodOnGrid(CellEvidence(cell.key), row.log_l);
    rows.push_back(row);
  }
  std::array<double, RatePrior::kPoints> weights = start.weights();
  std::array<double, RatePrior::kPoints> posterior{};
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    std::array<double, RatePrior::kPoints> next{};
    double total = 0;
    for (const Row& row : rows) {
      if (!PosteriorOnGrid(row.log_l, weights, posterior)) continue;
      for (int k = 0; k < RatePrior::kPoints; ++k) next[k] += row.pages * posterior[k];
      total += row.pages;
    }
    if (!(total > 0)) break;
    for (int k = 0; k < RatePrior::kPoints; ++k) {
      weights[k] = (1.0 - options.flat_share) * next[k] / total +
                   options.flat_share / RatePrior::kPoints;
    }
    if (options.smoothing > 0) {
      // The ends keep what they would pass outside the grid.
      std::array<double, RatePrior::kPoints> smoothed{};
      for (int k = 0; k < RatePrior::kPoints; ++k) {
        const double left = k > 0 ? weights[k - 1] : weights[k];
        const double right = k + 1 < RatePrior::kPoints ? weights[k + 1] : weights[k];
        smoothed[k] = (1 - 2 * options.smoothing) * weights[k] + options.smoothing * (left + right);
      }
      weights = smoothed;
    }
  }
  return RatePrior(weights);
}

}  // namespace crawler::recrawl
