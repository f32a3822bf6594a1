// The simulator's outputs: the closed-form reference values for the simulated pages, the
// summary table printed to stdout, and the CSV files scripts and plots read. Column sets are a
// contract (scripts/recrawl-report.sh, docs/recrawl.md): add columns at the end, never rename.
//
//   --csv             policy,freshness,age,visits_per_day,freshness_vs_oracle,visits,
//                     requested_visits_per_day,warmup_days,days,cpu_seconds
//   --series-csv      day,policy,freshness,age            (one row per policy and time bucket)
//   --allocation-csv  page,rate_per_day,weight,optimum_visits_per_day, then for each policy
//                     <policy>_visits_per_day,<policy>_estimate   (a sample of pages)
//
// Thread-safety: pure functions (the writers touch only their file).
#ifndef CRAWLER_TOOLS_CRAWLSIM_REPORT_H_
#define CRAWLER_TOOLS_CRAWLSIM_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/crawlsim/simulator.h"

namespace crawler::crawlsim {

// Fixed-order closed forms (lib/recrawl/freshness.h) for the config's true rates and weights.
struct ClosedForms {
  double optimum_freshness = 0;
  double uniform_freshness = 0;
  double proportional_freshness = 0;
  double mu = 0;
  std::vector<double> optimum_visits_per_day;  // f*_i
};
absl::StatusOr<ClosedForms> ComputeClosedForms(const SimulationConfig& config);

// The header line describing the run, then one row per policy.
std::string FormatTable(const std::string& description, const ClosedForms& closed,
                        const std::vector<PolicyRun>& runs);

absl::Status WriteSummaryCsv(const std::string& path, const SimulationConfig& config,
                             const std::vector<PolicyRun>& runs);
absl::Status WriteSeriesCsv(const std::string& path, const SimulationConfig& config,
                            const std::vector<PolicyRun>& runs);
// Writes `sample` pages spread evenly over the index range (all if fewer).
absl::Status WriteAllocationCsv(const std::string& path, const SimulationConfig& config,
                                const ClosedForms& closed, const std::vector<PolicyRun>& runs,
                                int sample);

}  // namespace crawler::crawlsim

#endif  // CRAWLER_TOOLS_CRAWLSIM_REPORT_H_
