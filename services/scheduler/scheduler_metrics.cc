#include "services/scheduler/scheduler_metrics.h"

#include <optional>

namespace crawler::scheduler {

namespace {

// One gauge family with a sample per collection whose tuning has the figure; none without any.
// (Named for the first figures, ratios; any optional figure of a tuning fits.)
void AppendRatio(const std::vector<CollectionTuning>& tunings, std::string name, std::string help,
                 std::optional<double> RevisitTuning::*figure, metrics::SnapshotFamilies& out) {
  std::optional<metrics::SnapshotFamily> family;
  for (const CollectionTuning& t : tunings) {
    const std::optional<double>& value = t.tuning.*figure;
    if (!value.has_value()) continue;
    if (!family.has_value()) family.emplace(out.Gauge(name, help));
    family->Add({{"collection", t.collection}}, *value);
  }
}

}  // namespace

void AppendRevisitMetrics(const std::vector<CollectionTuning>& tunings,
                          metrics::SnapshotFamilies& out) {
  AppendRatio(tunings, "crawler_scheduler_estimated_freshness_ratio",
              "Mean freshness the re-visit allocation expects, from the latest tuning.",
              &RevisitTuning::expected_freshness, out);
  AppendRatio(tunings, "crawler_scheduler_revisit_spend_ratio",
              "Re-visits per day the allocation plans, divided by the collection's budget.",
              &RevisitTuning::planned_spend_ratio, out);
  AppendRatio(tunings, "crawler_scheduler_revisit_prior_mean_rate_per_day",
              "Mean change rate (per day) of the prior fitted to the fleet's visit histories; "
              "absent while the estimators use the Gamma prior centred on the fleet.",
              &RevisitTuning::prior_mean_rate_per_day, out);
}

}  // namespace crawler::scheduler
