#include "tools/banditsim/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/bandit/random.h"

namespace crawler::banditsim {
namespace {

// SplitMix64's finaliser: derives independent seeds for (base seed, set type, seed index, use).
uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t StreamSeed(uint64_t seed, uint64_t type, uint64_t index, uint64_t use) {
  return Mix64(Mix64(Mix64(seed) ^ type) + index) ^ Mix64(use);
}

constexpr uint64_t kSitesUse = 1;
constexpr uint64_t kPolicyUse = 2;

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Links per seed of one set type: [seed][0] oracle, [seed][1 + p] policy p.
using SetResults = std::vector<std::vector<int64_t>>;

absl::Status RunSeed(const ExperimentConfig& config, size_t type_index, int seed_index,
                     std::vector<int64_t>& out) {
  std::vector<Site> sites = config.replay;
  if (sites.empty()) {
    bandit::Random random(StreamSeed(config.seed, type_index, seed_index, kSitesUse));
    absl::StatusOr<std::vector<SiteSpec>> specs =
        DrawSiteSpecs(config.set_types[type_index], config.sites, random);
    if (!specs.ok()) return specs.status();
    for (const SiteSpec& spec : *specs) sites.push_back(BuildSite(spec, config.duplicates, random));
  }
  out.assign(config.policies.size() + 1, 0);
  out[0] = OracleLinks(sites, config.budget);
  for (size_t p = 0; p < config.policies.size(); ++p) {
    absl::StatusOr<std::unique_ptr<bandit::Policy>> policy =
        bandit::MakePolicy(config.policies[p], config.sites, config.budget, config.policy_options,
                           StreamSeed(config.seed, type_index, seed_index, kPolicyUse + p));
    if (!policy.ok()) return policy.status();
    out[p + 1] = RunPolicy(sites, **policy, config.budget);
  }
  return absl::OkStatus();
}

double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const size_t low = static_cast<size_t>(position);
  const size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (position - static_cast<double>(low)) * (values[high] - values[low]);
}

Summary Summarise(const std::string& set_type, const std::string& policy, const SetResults& r,
                  size_t column) {
  Summary s{.set_type = set_type, .policy = policy, .seeds = static_cast<int>(r.size())};
  std::vector<double> links;
  double ratio_sum = 0;
  for (const std::vector<int64_t>& row : r) {
    links.push_back(static_cast<double>(row[column]));
    ratio_sum += row[0] > 0 ? static_cast<double>(row[column]) / static_cast<double>(row[0]) : 1;
  }
  double sum = 0;
  for (const double x : links) sum += x;
  s.mean_links = sum / static_cast<double>(links.size());
  double squares = 0;
  for (const double x : links) squares += (x - s.mean_links) * (x - s.mean_links);
  s.sd_links = links.size() > 1 ? std::sqrt(squares / static_cast<double>(links.size() - 1)) : 0;
  s.p10_links = Quantile(links, 0.1);
  s.p90_links = Quantile(links, 0.9);
  s.mean_ratio_to_oracle = ratio_sum / static_cast<double>(links.size());
  return s;
}

}  // namespace

int64_t RunPolicy(const std::vector<Site>& sites, bandit::Policy& policy, int64_t budget) {
  bandit::CheckOrDie(policy.arm_count() == static_cast<int>(sites.size()),
                     "RunPolicy: one arm per site");
  std::vector<int64_t> fetched(sites.size(), 0);
  int64_t links = 0;
  for (int64_t step = 0; step < budget; ++step) {
    const int arm = policy.Choose();
    if (arm < 0) break;
    const Site& site = sites[arm];
    const int32_t reward = site.new_links[fetched[arm]++];
    links += reward;
    policy.Observe(arm, reward);
    if (fetched[arm] == static_cast<int64_t>(site.new_links.size())) policy.Retire(arm);
  }
  return links;
}

int64_t OracleLinks(const std::vector<Site>& sites, int64_t budget) {
  // best[b]: most links from the sites so far with at most b pages.
  std::vector<int64_t> best(budget + 1, 0);
  std::vector<int64_t> next(budget + 1, 0);
  std::vector<int64_t> prefix;
  for (const Site& site : sites) {
    const int64_t limit = std::min<int64_t>(budget, site.new_links.size());
    prefix.assign(limit + 1, 0);
    for (int64_t n = 1; n <= limit; ++n) prefix[n] = prefix[n - 1] + site.new_links[n - 1];
    for (int64_t b = 0; b <= budget; ++b) {
      int64_t value = best[b];
      const int64_t top = std::min(limit, b);
      for (int64_t n = 1; n <= top; ++n) value = std::max(value, best[b - n] + prefix[n]);
      next[b] = value;
    }
    best.swap(next);
  }
  return best[budget];
}

absl::Status ValidateExperiment(const ExperimentConfig& config) {
  if (config.sites < 1 || config.budget < 1 || config.seeds < 1) {
    return absl::InvalidArgumentError("sites, budget and seeds must be >= 1");
  }
  if (config.threads < 1) return absl::InvalidArgumentError("threads must be >= 1");
  if (config.set_types.empty() || config.policies.empty()) {
    return absl::InvalidArgumentError("at least one set type and one policy");
  }
  if (!config.replay.empty() &&
      (config.set_types != std::vector<std::string>{"replay"} ||
       config.sites != static_cast<int>(config.replay.size()))) {
    return absl::InvalidArgumentError("a replay runs set type \"replay\" over its own sites");
  }
  for (const std::string& type : config.set_types) {
    if (config.replay.empty() && !Contains(SetTypeNames(), type)) {
      return absl::InvalidArgumentError(absl::StrCat("unknown site set type \"", type, "\""));
    }
  }
  for (const std::string& policy : config.policies) {
    absl::StatusOr<std::unique_ptr<bandit::Policy>> made =
        bandit::MakePolicy(policy, config.sites, config.budget, config.policy_options, 0);
    if (!made.ok()) return made.status();
  }
  if (!(config.duplicates.occurrences_per_link >= 1) || !(config.duplicates.zipf >= 0)) {
    return absl::InvalidArgumentError("occurrences per link >= 1 and zipf >= 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Summary>> RunExperiment(const ExperimentConfig& config) {
  if (absl::Status s = ValidateExperiment(config); !s.ok()) return s;
  std::vector<Summary> summaries;
  for (size_t t = 0; t < config.set_types.size(); ++t) {
    SetResults results(config.seeds);
    std::vector<absl::Status> statuses(config.seeds);
    std::vector<std::thread> workers;
    const int count = std::min(config.threads, config.seeds);
    for (int w = 0; w < count; ++w) {
      workers.emplace_back([&, w] {
        for (int s = w; s < config.seeds; s += count) {
          statuses[s] = RunSeed(config, t, s, results[s]);
        }
      });
    }
    for (std::thread& worker : workers) worker.join();
    for (const absl::Status& status : statuses) {
      if (!status.ok()) return status;
    }
    summaries.push_back(Summarise(config.set_types[t], "oracle", results, 0));
    for (size_t p = 0; p < config.policies.size(); ++p) {
      summaries.push_back(Summarise(config.set_types[t], config.policies[p], results, p + 1));
    }
  }
  return summaries;
}

std::string FormatTable(const ExperimentConfig& config, const std::vector<Summary>& summaries) {
  std::string out = absl::StrFormat(
      "banditsim: K=%d sites, N=%d pages, %d seeds per set type, seed %d, "
      "%.3g occurrences per link, zipf %.3g\n",
      config.sites, config.budget, config.seeds, config.seed,
      config.duplicates.occurrences_per_link, config.duplicates.zipf);
  // Best published rule per set type, for the vs_best_R column.
  std::map<std::string, double> best_published;
  for (const Summary& s : summaries) {
    if (s.policy == "r1" || s.policy == "r2" || s.policy == "r3") {
      best_published[s.set_type] = std::max(best_published[s.set_type], s.mean_links);
    }
  }
  absl::StrAppendFormat(&out, "%-11s %-15s %9s %8s %8s %8s %9s %9s\n", "set", "policy", "links",
                        "sd", "p10", "p90", "/oracle", "/best_R");
  std::map<std::string, std::pair<double, double>> totals;  // policy -> (links, ratio) sums
  std::vector<std::string> order;
  for (const Summary& s : summaries) {
    const auto it = best_published.find(s.set_type);
    const std::string vs_best = it != best_published.end() && it->second > 0
                                    ? absl::StrFormat("%9.3f", s.mean_links / it->second)
                                    : absl::StrFormat("%9s", "-");
    absl::StrAppendFormat(&out, "%-11s %-15s %9.1f %8.1f %8.1f %8.1f %9.3f %s\n", s.set_type,
                          s.policy, s.mean_links, s.sd_links, s.p10_links, s.p90_links,
                          s.mean_ratio_to_oracle, vs_best);
    if (!totals.contains(s.policy)) order.push_back(s.policy);
    totals[s.policy].first += s.mean_links;
    totals[s.policy].second += s.mean_ratio_to_oracle;
  }
  const double types = static_cast<double>(config.set_types.size());
  for (const std::string& policy : order) {
    absl::StrAppendFormat(&out, "%-11s %-15s %9.1f %8s %8s %8s %9.3f\n", "average", policy,
                          totals[policy].first / types, "", "", "", totals[policy].second / types);
  }
  return out;
}

absl::Status WriteCsv(const std::string& path, const std::vector<Summary>& summaries) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  std::fputs("set,policy,seeds,mean_links,sd_links,p10_links,p90_links,ratio_to_oracle\n", file);
  for (const Summary& s : summaries) {
    std::fputs(
        absl::StrFormat("%s,%s,%d,%.2f,%.2f,%.2f,%.2f,%.4f\n", s.set_type, s.policy, s.seeds,
                        s.mean_links, s.sd_links, s.p10_links, s.p90_links, s.mean_ratio_to_oracle)
            .c_str(),
        file);
  }
  if (std::fclose(file) != 0) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace crawler::banditsim
