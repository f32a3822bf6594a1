#include "tools/crawlsim/report.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/recrawl/allocation_solver.h"
#include "lib/recrawl/freshness.h"

namespace crawler::crawlsim {
namespace {

using recrawl::VisitOrder;

double WeightOf(const SimulationConfig& config, size_t i) {
  return config.weights.empty() ? 1.0 : config.weights[i];
}

// Freshness of the oracle run, if there is one.
double OracleFreshness(const std::vector<PolicyRun>& runs) {
  for (const PolicyRun& run : runs) {
    if (run.policy == "oracle") return run.freshness;
  }
  return 0;
}

absl::Status Finish(std::ofstream& out, const std::string& path) {
  out.flush();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write \"", path, "\""));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClosedForms> ComputeClosedForms(const SimulationConfig& config) {
  const size_t n = config.rates_per_day.size();
  std::vector<recrawl::WeightedRate> pages(n);
  double total_rate = 0;
  double total_weight = 0;
  for (size_t i = 0; i < n; ++i) {
    pages[i] = {config.rates_per_day[i], WeightOf(config, i)};
    total_rate += config.rates_per_day[i];
    total_weight += WeightOf(config, i);
  }
  const recrawl::AllocationSolver solver;
  absl::StatusOr<recrawl::Allocation> allocation =
      solver.Solve(pages, config.budget_visits_per_day);
  if (!allocation.ok()) return allocation.status();
  ClosedForms closed;
  closed.mu = allocation->mu;
  closed.optimum_visits_per_day.resize(n);
  const double uniform = config.budget_visits_per_day / static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    const double rate = config.rates_per_day[i];
    const double w = WeightOf(config, i) / total_weight;
    const double optimum = solver.VisitsPerDay(rate, WeightOf(config, i), *allocation);
    closed.optimum_visits_per_day[i] = optimum;
    closed.optimum_freshness += w * recrawl::ExpectedFreshness(VisitOrder::kFixed, rate, optimum);
    closed.uniform_freshness += w * recrawl::ExpectedFreshness(VisitOrder::kFixed, rate, uniform);
    const double proportional =
        total_rate > 0 ? config.budget_visits_per_day * rate / total_rate : uniform;
    closed.proportional_freshness +=
        w * recrawl::ExpectedFreshness(VisitOrder::kFixed, rate, proportional);
  }
  return closed;
}

std::string FormatTable(const std::string& description, const ClosedForms& closed,
                        const std::vector<PolicyRun>& runs) {
  std::string out = description + "\n";
  absl::StrAppendFormat(&out,
                        "closed form, fixed order, true rates: optimum %.4f  uniform %.4f  "
                        "proportional %.4f\n\n",
                        closed.optimum_freshness, closed.uniform_freshness,
                        closed.proportional_freshness);
  const double oracle = OracleFreshness(runs);
  absl::StrAppendFormat(&out, "%-16s %10s %10s %12s %10s %14s %8s\n", "policy", "freshness",
                        "age_days", "visits/day", "vs_oracle", "requested/day", "cpu_s");
  for (const PolicyRun& run : runs) {
    const std::string ratio = oracle > 0 ? absl::StrFormat("%.3f", run.freshness / oracle) : "-";
    absl::StrAppendFormat(&out, "%-16s %10.4f %10.4f %12.1f %10s %14.1f %8.1f\n", run.policy,
                          run.freshness, run.age_days, run.visits_per_day, ratio,
                          run.requested_visits_per_day, run.cpu_seconds);
  }
  return out;
}

absl::Status WriteSummaryCsv(const std::string& path, const SimulationConfig& config,
                             const std::vector<PolicyRun>& runs) {
  std::ofstream out(path);
  out << "policy,freshness,age,visits_per_day,freshness_vs_oracle,visits,"
         "requested_visits_per_day,warmup_days,days,cpu_seconds\n";
  const double oracle = OracleFreshness(runs);
  for (const PolicyRun& run : runs) {
    out << absl::StrFormat("%s,%.6f,%.6f,%.3f,%s,%d,%.3f,%g,%g,%.3f\n", run.policy,
                           run.freshness, run.age_days, run.visits_per_day,
                           oracle > 0 ? absl::StrFormat("%.6f", run.freshness / oracle) : "",
                           run.visits, run.requested_visits_per_day, config.warmup_days,
                           config.days, run.cpu_seconds);
  }
  return Finish(out, path);
}

absl::Status WriteSeriesCsv(const std::string& path, const SimulationConfig& config,
                            const std::vector<PolicyRun>& runs) {
  std::ofstream out(path);
  out << "day,policy,freshness,age\n";
  for (const PolicyRun& run : runs) {
    for (size_t b = 0; b < run.freshness_by_bucket.size(); ++b) {
      out << absl::StrFormat("%g,%s,%.6f,%.6f\n", static_cast<double>(b) * config.bucket_days,
                             run.policy, run.freshness_by_bucket[b], run.age_by_bucket[b]);
    }
  }
  return Finish(out, path);
}

absl::Status WriteAllocationCsv(const std::string& path, const SimulationConfig& config,
                                const ClosedForms& closed, const std::vector<PolicyRun>& runs,
                                int sample) {
  std::ofstream out(path);
  out << "page,rate_per_day,weight,optimum_visits_per_day";
  for (const PolicyRun& run : runs) {
    out << "," << run.policy << "_visits_per_day," << run.policy << "_estimate";
  }
  out << "\n";
  const size_t n = config.rates_per_day.size();
  const size_t rows = sample <= 0 ? 0 : std::min(n, static_cast<size_t>(sample));
  const double window = config.days - config.warmup_days;
  for (size_t row = 0; row < rows; ++row) {
    const size_t i = row * n / rows;
    out << absl::StrFormat("%d,%.6g,%.6g,%.6g", i, config.rates_per_day[i], WeightOf(config, i),
                           closed.optimum_visits_per_day[i]);
    for (const PolicyRun& run : runs) {
      out << absl::StrFormat(",%.6g,%.6g", run.page_visits[i] / window,
                             run.page_rate_estimate[i]);
    }
    out << "\n";
  }
  return Finish(out, path);
}

}  // namespace crawler::crawlsim
