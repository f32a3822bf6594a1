// CollectionManager's control loop (the header comment's Tick): each collection on every
// partition, its owed seeds, its end, its re-visit tuning and its focused budget split.
#include <map>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/kv/write_batch.h"
#include "services/scheduler/collection_manager.h"
#include "services/scheduler/collection_manager_internal.h"

namespace crawler::scheduler {

absl::Status CollectionManager::OpenEverywhere(Entry& entry) {
  absl::Status first = absl::OkStatus();
  // A focused collection's partitions keep the budgets of the last split.
  std::vector<uint64_t> budgets;
  if (entry.focus_tuner != nullptr) budgets = entry.focus_tuner->budgets();
  for (uint32_t k = 0; k < fleet_.size(); ++k) {
    absl::Status s = fleet_.Open(k, entry.collection,
                                 budgets.empty() ? std::nullopt : std::optional(budgets[k]),
                                 entry.generation);
    if (!s.ok() && first.ok()) {
      first = absl::Status(s.code(), absl::StrCat("partition ", k, ": ", s.message()));
    }
  }
  return first;
}

void CollectionManager::Tick(absl::Time now) {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, entry] : entries_) entries.push_back(entry);
  }
  for (const std::shared_ptr<Entry>& entry : entries) SyncOne(entry, now);
}

void CollectionManager::DropOne(const std::shared_ptr<Entry>& entry) {
  const std::string& name = entry->collection.name;
  bool all = true;
  for (uint32_t k = 0; k < fleet_.size(); ++k) all = fleet_.Drop(k, name).ok() && all;
  if (!all) return;
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(name);
  if (it == entries_.end() || it->second != entry) return;
  // The record goes with the fetchers' counters of the collection, in one write: a collection
  // created later under the same name starts from zero.
  kv::WriteBatch batch;
  batch.Delete(kCollectionsFamily, name);
  if (!reports_->Forget(name, std::move(batch)).ok()) return;
  entries_.erase(it);
}

void CollectionManager::FinishIfExhausted(Entry& e, absl::Time now) {
  absl::StatusOr<bool> exhausted = e.router->IsExhausted();
  // A focused partition that spent its budget is exhausted while another may have pages left
  // and no work: split again before calling the collection finished.
  if (exhausted.ok() && *exhausted && e.focus_tuner != nullptr &&
      e.focus_tuner->TuneNow(now).ok()) {
    exhausted = e.router->IsExhausted();
  }
  if (exhausted.ok() && *exhausted) {
    (void)SetState(e.collection.name, {CollectionState::kActive}, CollectionState::kFinished);
  }
}

void CollectionManager::SyncOne(const std::shared_ptr<Entry>& entry, absl::Time now) {
  Entry& e = *entry;
  bool deleting, seeds_pending;
  CollectionState state;
  {
    absl::MutexLock lock(&mu_);
    deleting = e.stored.deleting;
    seeds_pending = e.stored.seeds_pending;
    state = e.stored.info.state;
  }
  if (deleting) {
    DropOne(entry);
    return;
  }
  if (!e.opened_everywhere || now - e.last_open >= options_.reopen_interval) {
    // After a restart of the scheduler the first split reads what the partitions spent, so the
    // reopen does not hand out even shares again (a partition that spent more than its share
    // keeps what it spent and gets no more until the next split).
    if (e.focus_tuner != nullptr && e.focus_tuner->tunings() == 0) {
      (void)e.focus_tuner->TuneNow(now);
    }
    e.opened_everywhere = OpenEverywhere(e).ok();
    e.last_open = now;
    if (!e.opened_everywhere) return;
  }
  if (seeds_pending) {
    SeedFeedOptions once = options_.feed;
    once.retry.max_attempts = 1;
    (void)FeedPendingSeeds(e, once);
    return;
  }
  if (e.tuner != nullptr) {
    e.tuner->Tick(now);
    return;
  }
  if (state != CollectionState::kActive) return;
  if (e.focus_tuner != nullptr) e.focus_tuner->Tick(now);
  FinishIfExhausted(e, now);
}

absl::Status CollectionManager::SetLayout(const partition::PartitionLayout& layout) {
  if (absl::Status s = fleet_.SetLayout(layout); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  for (auto& [name, entry] : entries_) {
    // A new Entry over the partitions the layout spans, as an update builds one; the next
    // Tick opens it everywhere, which pushes the layout.
    absl::StatusOr<std::shared_ptr<Entry>> rebuilt = Build(entry->stored);
    if (!rebuilt.ok()) {
      options_.log.ForCollection(name).Warning("rebuilding for the partition layout failed: ",
                                               rebuilt.status().message());
      continue;
    }
    entry = *std::move(rebuilt);
  }
  return absl::OkStatus();
}

std::vector<CollectionManager::LiveCollection> CollectionManager::LiveCollections() const {
  absl::MutexLock lock(&mu_);
  std::vector<LiveCollection> live;
  for (const auto& [name, entry] : entries_) {
    if (entry->stored.deleting) continue;
    // An entry is rebuilt at every layout change: opened everywhere since, it pushed this one.
    live.push_back({.name = name,
                    .focused = entry->collection.focus.enabled(),
                    .layout_pushed = entry->opened_everywhere});
  }
  return live;
}

}  // namespace crawler::scheduler
