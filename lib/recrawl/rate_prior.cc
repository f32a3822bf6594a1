#include "lib/recrawl/rate_prior.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

namespace crawler::recrawl {
namespace {

// Evidence cells: change-free days and untimed intervals on a log grid of 10 bins per decade over
// [kMinDays, kMinDays * 10^8) days; bin 0 holds 0 (and anything below kMinDays).
constexpr double kMinDays = 1e-3;
constexpr int kDayBinsPerDecade = 10;
constexpr int kDayBins = 8 * kDayBinsPerDecade + 1;

int DayBin(double days) {
  if (!(days >= kMinDays)) return 0;
  const int bin = 1 + static_cast<int>(std::floor(std::log10(days / kMinDays) * kDayBinsPerDecade));
  return std::min(bin, kDayBins - 1);
}

// ln L of `pages` identical pages' worth of evidence at each grid rate: a ln(lambda) -
// lambda b + k ln(1 - e^{-lambda c}).
void CellLogLikelihood(double a, double b, double k, double c, std::array<double, RatePrior::kPoints>& out) {
  for (int p = 0; p < RatePrior::kPoints; ++p) {
    const double lambda = RatePrior::PointRate(p);
    double log_l = -lambda * b;
    if (a > 0) log_l += a * std::log(lambda);
    if (k > 0) log_l += k * std::log(-std::expm1(-lambda * c));
    out[p] = log_l;
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

double RatePrior::PointRate(int k) {
  return kMinRate * std::pow(10.0, static_cast<double>(k) / kPointsPerDecade);
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

uint64_t FleetEvidence::KeyOf(const ChangeEvidence& evidence, double* untimed_mean_days) {
  double untimed_days = 0;
  for (int i = 0; i < evidence.untimed_count; ++i) untimed_days += evidence.untimed_days[i];
  *untimed_mean_days = evidence.untimed_count > 0 ? untimed_days / evidence.untimed_count : 0.0;
  const uint64_t timed = static_cast<uint64_t>(evidence.timed_changes);
  const uint64_t untimed = static_cast<uint64_t>(evidence.untimed_count);
  return (timed << 32) | (untimed << 16) |
         (static_cast<uint64_t>(DayBin(evidence.quiet_days)) << 8) |
         static_cast<uint64_t>(DayBin(*untimed_mean_days));
}

void FleetEvidence::Update(const VisitHistory& history, double pages) {
  if (history.empty()) return;
  const ChangeEvidence evidence = EvidenceOf(history);
  double untimed_mean_days = 0;
  const uint64_t key = KeyOf(evidence, &untimed_mean_days);
  Cell& cell = cells_[key];
  cell.pages += pages;
  cell.quiet_days_sum += pages * evidence.quiet_days;
  cell.untimed_mean_days_sum += pages * untimed_mean_days;
  page_count_ += pages;
  // Removing the last page of a cell leaves rounding dust; drop the cell instead.
  if (cell.pages < 1e-9) cells_.erase(key);
}

void FleetEvidence::Add(const VisitHistory& history, double pages) { Update(history, pages); }

void FleetEvidence::Remove(const VisitHistory& history, double pages) {
  Update(history, -pages);
}

void FleetEvidence::Merge(const FleetEvidence& other) {
  for (const auto& [key, cell] : other.cells_) {
    Cell& mine = cells_[key];
    mine.pages += cell.pages;
    mine.quiet_days_sum += cell.quiet_days_sum;
    mine.untimed_mean_days_sum += cell.untimed_mean_days_sum;
  }
  page_count_ += other.page_count_;
}

RatePrior FleetEvidence::Fit(const RatePrior& start, const FitOptions& options) const {
  if (!(page_count_ > 0) || cells_.empty()) return start;
  struct Row {
    double pages;
    std::array<double, RatePrior::kPoints> log_l;
  };
  std::vector<Row> rows;
  rows.reserve(cells_.size());
  for (const auto& [key, cell] : cells_) {
    if (!(cell.pages > 0)) continue;
    Row row{cell.pages, {}};
    const double timed = static_cast<double>(key >> 32);
    const double untimed = static_cast<double>((key >> 16) & 0xffff);
    CellLogLikelihood(timed, cell.quiet_days_sum / cell.pages, untimed,
                      cell.untimed_mean_days_sum / cell.pages, row.log_l);
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
  }
  return RatePrior(weights);
}

}  // namespace crawler::recrawl
