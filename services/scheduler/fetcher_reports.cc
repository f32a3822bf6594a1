#include "services/scheduler/fetcher_reports.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace crawler::scheduler {
namespace {

// The incarnation under which a partition's retired incarnations' counters are summed.
constexpr char kRetired[] = "~retired";

std::string ReportKey(uint32_t partition, const std::string& incarnation) {
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%08x/", partition);
  return absl::StrCat(prefix, incarnation);
}

// Adds `from`'s counters to `into`, collection by collection (gauges are not carried over).
void Fold(const FetcherReport& from, FetcherReport& into) {
  for (const FetcherCollectionStats& c : from.collections) {
    FetcherCollectionStats* sum = nullptr;
    for (FetcherCollectionStats& existing : into.collections) {
      if (existing.collection == c.collection && existing.generation == c.generation) {
        sum = &existing;
      }
    }
    if (sum == nullptr) {
      sum = &into.collections.emplace_back();
      sum->collection = c.collection;
      sum->generation = c.generation;
    }
    for (const auto& [outcome, count] : c.outcomes) sum->outcomes[outcome] += count;
    sum->robots_denied += c.robots_denied;
    sum->requests_started += c.requests_started;
    sum->leases_abandoned += c.leases_abandoned;
    sum->urls_routed += c.urls_routed;
    sum->urls_suppressed += c.urls_suppressed;
    sum->duplicates += c.duplicates;
    sum->dedup_unavailable += c.dedup_unavailable;
    sum->pages_rendered += c.pages_rendered;
    sum->renders_cut += c.renders_cut;
    if (sum->urls_sent.size() < c.urls_sent.size()) sum->urls_sent.resize(c.urls_sent.size());
    for (size_t j = 0; j < c.urls_sent.size(); ++j) sum->urls_sent[j] += c.urls_sent[j];
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<FetcherReports>> FetcherReports::Open(
    kv::KvStore& store, const RecordCodec& codec, size_t max_incarnations_per_partition) {
  std::unique_ptr<FetcherReports> reports(
      new FetcherReports(store, codec, max_incarnations_per_partition));
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it = store.NewIterator(kFamily, "", "");
  if (!it.ok()) return it.status();
  absl::MutexLock lock(&reports->mu_);
  for ((*it)->Seek(""); (*it)->Valid(); (*it)->Next()) {
    absl::StatusOr<FetcherReport> report = codec.DecodeReport((*it)->value());
    if (!report.ok()) {
      return absl::DataLossError(
          absl::StrCat("corrupt fetcher report ", std::string((*it)->key())));
    }
    Key key{report->partition, report->incarnation};
    reports->reports_[std::move(key)] = *std::move(report);
  }
  if (!(*it)->status().ok()) return (*it)->status();
  return reports;
}

absl::Status FetcherReports::Take(const FetcherReport& report, uint32_t partition_count) {
  if (report.incarnation.empty()) {
    return absl::InvalidArgumentError("incarnation: must not be empty");
  }
  if (report.partition >= partition_count) {
    // A fetcher started ahead of a reshard that will use it (docs/services.md): it retries.
    return absl::InvalidArgumentError(absl::StrCat(
        "partition: ", report.partition, " is outside the partition layout (", partition_count,
        " partitions); this fetcher is used once the scheduler's `partitions` includes it"));
  }
  absl::MutexLock lock(&mu_);
  kv::WriteBatch batch;
  batch.Put(kFamily, ReportKey(report.partition, report.incarnation), codec_.EncodeReport(report));
  // Keep the newest incarnations of this partition; the older ones' counters are folded into
  // the partition's retired record, so the sums stay whole.
  std::vector<std::pair<absl::Time, std::string>> mine;
  for (const auto& [key, r] : reports_) {
    if (key.first != report.partition || key.second == report.incarnation ||
        key.second == kRetired) {
      continue;
    }
    mine.emplace_back(r.start_time, key.second);
  }
  std::vector<std::string> dropped;
  FetcherReport retired;
  if (mine.size() + 1 > max_incarnations_) {
    auto it = reports_.find({report.partition, kRetired});
    if (it != reports_.end()) retired = it->second;
    retired.partition = report.partition;
    retired.incarnation = kRetired;
    std::sort(mine.begin(), mine.end());
    const size_t excess = mine.size() + 1 - max_incarnations_;
    for (size_t i = 0; i < excess; ++i) {
      batch.Delete(kFamily, ReportKey(report.partition, mine[i].second));
      Fold(reports_.at({report.partition, mine[i].second}), retired);
      dropped.push_back(mine[i].second);
    }
    batch.Put(kFamily, ReportKey(report.partition, kRetired), codec_.EncodeReport(retired));
  }
  if (absl::Status s = store_.Write(batch); !s.ok()) return s;
  for (const std::string& incarnation : dropped) reports_.erase({report.partition, incarnation});
  if (!dropped.empty()) reports_[{report.partition, kRetired}] = std::move(retired);
  reports_[{report.partition, report.incarnation}] = report;
  return absl::OkStatus();
}

absl::Status FetcherReports::Forget(const std::string& collection, kv::WriteBatch batch) {
  absl::MutexLock lock(&mu_);
  std::map<Key, FetcherReport> stripped;
  for (const auto& [key, report] : reports_) {
    FetcherReport without = report;
    std::erase_if(without.collections,
                  [&](const FetcherCollectionStats& c) { return c.collection == collection; });
    if (without.collections.size() == report.collections.size()) continue;
    batch.Put(kFamily, ReportKey(key.first, key.second), codec_.EncodeReport(without));
    stripped[key] = std::move(without);
  }
  if (absl::Status s = store_.Write(batch); !s.ok()) return s;
  for (auto& [key, report] : stripped) reports_[key] = std::move(report);
  return absl::OkStatus();
}

void FetcherReports::AddTo(const std::string& collection, uint64_t generation,
                           CollectionStats& stats) const {
  absl::MutexLock lock(&mu_);
  for (const auto& [key, report] : reports_) {
    for (const FetcherCollectionStats& c : report.collections) {
      if (c.collection != collection) continue;
      // Counters of an earlier collection of this name (deleted and created again).
      if (c.generation != 0 && generation != 0 && c.generation != generation) continue;
      for (const auto& [outcome, count] : c.outcomes) stats.outcomes[outcome] += count;
      stats.robots_denied += c.robots_denied;
      stats.duplicates += c.duplicates;
      stats.urls_suppressed += c.urls_suppressed;
      stats.pages_rendered += c.pages_rendered;
      stats.renders_cut += c.renders_cut;
      for (size_t j = 0; j < c.urls_sent.size(); ++j) {
        if (j != report.partition) stats.urls_exchanged += c.urls_sent[j];
      }
    }
  }
}

}  // namespace crawler::scheduler
