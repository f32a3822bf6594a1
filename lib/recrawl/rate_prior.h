// Empirical-Bayes estimation of change rates (docs/architecture.md §7). A page visited a few times
// at intervals near its expected change time tells little about its own rate; the fleet's pages
// together tell a lot about how rates are spread. RatePrior is that spread: a discrete
// distribution over a fixed log grid of rates, fitted to the fleet's visit histories by maximum
// marginal likelihood (EM for the mixing weights of a nonparametric mixture, "g-modelling";
// Laird 1978), and each page's estimate is its posterior log-mean under it. Unlike a prior centred
// on the fleet's changes per day of observation (the naive estimator, low when pages change
// faster than they are visited), the fitted prior accounts for the censoring of every interval.
//
// FleetEvidence is the fleet aggregate the fit needs: the number of pages with each
// PooledEvidence (a cell). Callers keep it in step with the pages the way they keep a
// RateHistogram: Remove a page's previous history, Add its new one.
//
// Thread-safety: RatePrior is immutable after construction; FleetEvidence is thread-compatible.
#ifndef CRAWLER_LIB_RECRAWL_RATE_PRIOR_H_
#define CRAWLER_LIB_RECRAWL_RATE_PRIOR_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lib/recrawl/change_rate_estimator.h"
#include "lib/recrawl/visit_history.h"

namespace crawler::recrawl {

// A history's evidence as the fleet's cells keep it: ChangeEvidence with the untimed intervals
// (changed visits without a usable Last-Modified) pooled at their mean in two groups, those
// shorter than half the longest and the rest, and every length of time (change-free days, the
// groups' means) rounded to the centre of its bin on a log grid of 10 bins per decade (within
// 12%). The two groups keep what a short interval among long ones says (a page seen changed
// after a short wait is fast), which one mean over all of them would blur. A cell is one value
// of this form, so the posterior allocation, which decides every page on it, gives each page
// exactly the decision the fleet's solve counted for its cell.
struct PooledEvidence {
  double timed_changes = 0;
  double quiet_days = 0;
  double short_changes = 0;
  double short_mean_days = 0;
  double long_changes = 0;
  double long_mean_days = 0;

  static PooledEvidence Of(const ChangeEvidence& evidence);
  static PooledEvidence Of(const VisitHistory& history) { return Of(EvidenceOf(history)); }
  // ln L(lambda) = timed ln(lambda) - lambda quiet + sum over the groups of
  // changes ln(1 - e^{-lambda mean}), for lambda > 0.
  double LogLikelihood(double lambda) const;
};

class RatePrior {
 public:
  // Support: kPointsPerDecade points per decade over [kMinRate, kMaxRate] changes per day (once
  // in 27 years to about ten times a second: a collection of live pages, or a test web that
  // changes in seconds, is on the grid as much as a nightly one). A page slower or faster than
  // the grid is estimated at the nearest end, which makes no scheduling difference at any
  // budget the crawler is run with.
  static constexpr double kMinRate = 1e-4;
  static constexpr double kMaxRate = 1e6;
  static constexpr int kPointsPerDecade = 10;
  static constexpr int kPoints = 10 * kPointsPerDecade + 1;

  // The rate of grid point k, changes per day.
  static double PointRate(int k);

  // The given Gamma prior, discretised on the grid (the starting point of a fit).
  static RatePrior FromGamma(const GammaPrior& gamma);

  // REQUIRES: weights >= 0, not all 0; they are normalised.
  explicit RatePrior(const std::array<double, kPoints>& weights);

  // exp(E[ln lambda | evidence]): the posterior log-mean rate, changes per day, in
  // [kMinRate, kMaxRate]. Not the posterior mean: a page seen changed at every visit has a
  // likelihood that is flat above ~1 / interval, so its mean is set by whatever mass the prior
  // happens to keep in that unidentified tail, and an estimate pushed there is abandoned by the
  // optimal policy (f = 0) and never corrected. The log-mean moves much less; in crawlsim it
  // beat the mean, the harmonic mean and the mode (docs/recrawl.md §9).
  double PosteriorRate(const ChangeEvidence& evidence) const;
  double PosteriorRate(const VisitHistory& history) const {
    return PosteriorRate(EvidenceOf(history));
  }

  // What a re-visit decision needs from the posterior in one pass: the log-mean rate
  // (PosteriorRate()) and the posterior probability that the rate exceeds `rate_threshold`.
  struct Summary {
    double rate_per_day = 0;
    double probability_above = 0;
  };
  Summary PosteriorSummary(const ChangeEvidence& evidence, double rate_threshold) const;

  // The posterior probability of every grid point; the prior itself if the evidence rules out
  // every point.
  std::array<double, kPoints> Posterior(const ChangeEvidence& evidence) const;
  std::array<double, kPoints> Posterior(const PooledEvidence& evidence) const;

  // Mean of the prior, changes per day.
  double Mean() const;

  // Probability of grid point k.
  double weight(int k) const { return weights_[k]; }
  const std::array<double, kPoints>& weights() const { return weights_; }

  // The prior with these weights as they travel in RPCs (weights()): kInvalidArgument unless
  // there are exactly kPoints of them, each finite and >= 0, not all 0. Defined in
  // rate_prior_encoding.cc.
  static absl::StatusOr<RatePrior> FromWeights(absl::Span<const double> weights);

 private:
  std::array<double, kPoints> weights_{};
};

class FleetEvidence {
 public:
  // A page's evidence enters as one count (times `pages`). Empty histories are ignored: they
  // carry no information about rates.
  // `committed_visits_per_day`: what the page's last re-visit decision committed it to
  // (CommittedVisitsPerDay() of its PolicyState), < 0 when unknown. A page is reconsidered only
  // at its next visit, so the fleet's commitments lag behind what the current multiplier
  // would decide; the posterior allocation corrects its target by that lag (PosteriorAllocation).
  void Add(const VisitHistory& history, double pages = 1.0,
           double committed_visits_per_day = -1);
  // Undoes an earlier Add of the same history and commitment.
  void Remove(const VisitHistory& history, double pages = 1.0,
              double committed_visits_per_day = -1);
  void Merge(const FleetEvidence& other);

  // Pages with a non-empty history.
  double page_count() const { return page_count_; }
  size_t cell_count() const { return cells_.size(); }

  struct FitOptions {
    // EM iterations. EM raises the marginal likelihood at every step; 200 from a flat start
    // converges to ~1e-4 in the weights, 20 suffice when warm-started from the previous fit.
    int iterations = 200;
    // Share of a flat distribution mixed into the result, so that no rate the data have not yet
    // ruled out gets probability 0 (EM cannot revive a point once it is 0) and a page with
    // unusual evidence is not forced onto the fleet's few support points.
    double flat_share = 1e-3;
    // EMS smoothing (Silverman, Jones, Wilson & Nychka 1990): after every EM step each grid
    // point passes this share of its weight to each neighbour, against the spikes of the
    // maximum-likelihood prior. Off: with the posterior decision and the two-group pooled
    // evidence it did not help in crawlsim, and where the evidence cannot place the rates (pages
    // changed at every visit) it keeps moving the prior, so decisions made at earlier visits
    // drift from the ones the solve counts and the budget goes unspent (docs/recrawl.md §9).
    double smoothing = 0;
  };
  // The maximum-marginal-likelihood prior, started from `start`. `start` itself when there is no
  // evidence.
  RatePrior Fit(const RatePrior& start, const FitOptions& options) const;

  // Each cell's pages and the posterior under `prior` of the cell's evidence: what the posterior
  // allocation solves over.
  struct CellPosterior {
    double pages = 0;
    // Of those, the pages whose commitment is known, and the sum of their commitments.
    double committed_pages = 0;
    double committed_visits_per_day = 0;
    std::array<double, RatePrior::kPoints> posterior{};
  };
  std::vector<CellPosterior> Posteriors(const RatePrior& prior) const;

  // Storage and RPCs (rate_prior_encoding.cc). One evidence cell: its key (the binned evidence)
  // and its sums.
  struct CellEntry {
    uint64_t key = 0;
    double pages = 0;
    double committed_pages = 0;
    double committed_visits_per_day = 0;

    friend bool operator==(const CellEntry&, const CellEntry&) = default;
  };
  // Every cell, in key order.
  std::vector<CellEntry> cells() const;
  // A compact, versioned form (version 2): byte 0 = 2; page_count as IEEE-754 binary64
  // little-endian; a varint count of cells; per cell, in increasing key order, a varint key (the
  // PooledEvidence's counts and bins) and its pages, committed pages and committed visits per
  // day as binary64. About 30 bytes a cell. Decode() rejects another version (kUnimplemented:
  // version 1 pooled all untimed intervals in one group and cannot be split; callers rebuild it
  // from the histories) and truncated, trailing, unordered, negative or non-finite values,
  // empty cells, more committed pages than pages, change counts above
  // VisitHistory::kMaxCapacity and bins off the grid (kDataLoss).
  std::string Encode() const;
  static absl::StatusOr<FleetEvidence> Decode(std::string_view bytes);
  // Same cells and page count (exact floating-point comparison: for tests of Encode/Decode and
  // RPCs).
  friend bool operator==(const FleetEvidence& a, const FleetEvidence& b);

 private:
  static uint64_t KeyOf(const PooledEvidence& evidence);
  // The key's counts and bins are in range (Decode()).
  static bool ValidKey(uint64_t key);
  // A cell's evidence, from its key.
  static PooledEvidence CellEvidence(uint64_t key);
  struct Cell {
    double pages = 0;
    double committed_pages = 0;
    double committed_visits_per_day = 0;
  };
  void Update(const VisitHistory& history, double pages, double committed_visits_per_day);

  absl::flat_hash_map<uint64_t, Cell> cells_;
  double page_count_ = 0;
};

}  // namespace crawler::recrawl

#endif  // CRAWLER_LIB_RECRAWL_RATE_PRIOR_H_
