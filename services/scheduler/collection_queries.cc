// CollectionManager's queries: a collection's statistics and why URLs are (or are not) in it.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/partition/layout.h"
#include "services/scheduler/collection_manager.h"
#include "services/scheduler/collection_manager_internal.h"

namespace crawler::scheduler {
namespace {

constexpr size_t kMaxExplainUrls = 100;

// Adds partition `s`'s figures to `out`.
void AddPartition(const frontier::FrontierStats& s, CollectionStats& out) {
  out.partitions_reporting += 1;
  out.pages += s.pages_completed;
  out.queued_urls += s.queued_urls;
  out.waiting_urls += s.waiting_urls;
  out.in_flight_urls += s.in_flight_urls;
  out.seen_urls += s.seen_urls;
  out.hosts += s.hosts;
  out.revisits_waited += s.revisits_waited;
  out.revisit_wait_seconds += s.revisit_wait_seconds;
  out.revisit_budget_visits_per_day += s.revisit_budget_visits_per_day;
  out.revisits_completed += s.revisits_completed;
  out.revisit_spend_visits_per_day += s.revisit_spend_visits_per_day;
  out.focus_pulls += s.focus_pulls;
  out.focus_reward += s.focus_reward;
}

}  // namespace

absl::StatusOr<CollectionStats> CollectionManager::Stats(const std::string& name) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  CollectionStats out;
  out.name = name;
  out.as_of = clock_.Now();
  out.partitions_total = fleet_.size();
  bool exhausted = true;
  for (uint32_t k = 0; k < fleet_.size(); ++k) {
    absl::StatusOr<frontier::FrontierStats> s = fleet_.Partition(k, name).Stats();
    if (!s.ok()) {
      exhausted = false;
      continue;
    }
    AddPartition(*s, out);
    exhausted = exhausted && s->exhausted;
  }
  out.exhausted = exhausted;
  if ((*entry)->focus_tuner != nullptr && (*entry)->focus_tuner->tunings() > 0) {
    out.focus_page_budgets = (*entry)->focus_tuner->budgets();
  }
  reports_->AddTo(name, (*entry)->generation, out);
  return out;
}

absl::StatusOr<std::vector<UrlExplanation>> CollectionManager::Explain(
    const std::string& name, const std::vector<std::string>& urls) {
  if (urls.size() > kMaxExplainUrls) {
    return absl::InvalidArgumentError(absl::StrCat("urls: at most ", kMaxExplainUrls, " URLs"));
  }
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  Entry& e = **entry;
  std::vector<UrlExplanation> out;
  std::vector<std::string> canonical;
  std::vector<size_t> parsed;  // indexes into `out` of the URLs that parse
  std::map<std::string, std::optional<frontier::HostSummary>> hosts;
  for (const std::string& url : urls) {
    UrlExplanation& x = out.emplace_back();
    x.url = url;
    absl::StatusOr<Scheduler::Judged> judged = e.core->Judge(url, 0);
    if (!judged.ok()) {
      x.error = std::string(judged.status().message());
      continue;
    }
    x.canonical_url = judged->canonical.str();
    x.scope_verdict = judged->verdict;
    x.partition = fleet_.layout().Owner(judged->host_key);
    // The host's controls, if its partition knows it (a host never seen has none); asked
    // once per host of the request.
    auto [known, inserted] = hosts.try_emplace(judged->host_key);
    if (inserted) {
      absl::StatusOr<frontier::HostDetail> host =
          fleet_.HostControl(x.partition, name).GetHost(judged->host_key);
      if (host.ok()) known->second = std::move(host->summary);
    }
    x.host = known->second;
    canonical.push_back(judged->canonical.str());
    parsed.push_back(out.size() - 1);
  }
  if (canonical.empty()) return out;
  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> records =
      e.router->LookupUrls(canonical);
  if (!records.ok()) return records.status();
  for (size_t i = 0; i < parsed.size() && i < records->size(); ++i) {
    std::optional<frontier::UrlRecord>& record = (*records)[i];
    if (!record.has_value()) continue;
    UrlExplanation& x = out[parsed[i]];
    // The verdict at the depth the URL was found at.
    absl::StatusOr<Scheduler::Judged> at_depth = e.core->Judge(x.url, record->depth);
    if (at_depth.ok()) x.scope_verdict = at_depth->verdict;
    x.record = std::move(record);
  }
  return out;
}

}  // namespace crawler::scheduler
