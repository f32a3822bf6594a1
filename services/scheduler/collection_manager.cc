// The collections' records and their state machine: create, update, pause, resume, delete, add
// seeds, and the fetchers' reports. The control loop is collection_sync.cc, the statistics and
// explanations collection_queries.cc.
#include "services/scheduler/collection_manager.h"

#include <xxhash.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/routed_frontier_client.h"
#include "services/scheduler/collection_manager_internal.h"

namespace crawler::scheduler {
namespace {

// A collection name is a directory name on every partition and a WARC file prefix.
absl::Status ValidateName(const std::string& name) {
  const auto ok_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  };
  if (name.empty() || name.size() > 63 || !ok_char(name[0]) || name[0] == '_' ||
      name[0] == '-' || !std::all_of(name.begin(), name.end(), ok_char)) {
    return absl::InvalidArgumentError(
        "collection.name: must be 1-63 characters of a-z, 0-9, '_' and '-', starting with a "
        "letter or digit");
  }
  return absl::OkStatus();
}

// A collection as the Admin API shows it: with the number of its seeds.
CollectionInfo Shown(const StoredCollection& stored) {
  CollectionInfo info = stored.info;
  info.seed_count = info.collection.seeds.size();
  return info;
}

}  // namespace

absl::Status CollectionNotFound(const std::string& name) {
  return absl::NotFoundError(absl::StrCat("collection '", name, "' not found"));
}

std::vector<kv::ColumnFamilySpec> CollectionManager::ColumnFamilies() {
  return {{.name = kCollectionsFamily}, {.name = FetcherReports::kFamily}};
}

CollectionManager::CollectionManager(const CollectionManagerOptions& options, kv::KvStore& store,
                                     PartitionFleet& fleet, const RecordCodec& codec,
                                     const Clock& clock, std::unique_ptr<FetcherReports> reports)
    : options_(options),
      store_(store),
      fleet_(fleet),
      codec_(codec),
      clock_(clock),
      reports_(std::move(reports)) {}

CollectionManager::~CollectionManager() = default;

absl::StatusOr<std::unique_ptr<CollectionManager>> CollectionManager::Open(
    const CollectionManagerOptions& options, kv::KvStore& store, PartitionFleet& fleet,
    const RecordCodec& codec, const Clock& clock) {
  for (const kv::ColumnFamilySpec& cf : ColumnFamilies()) {
    if (!store.HasColumnFamily(cf.name)) {
      return absl::FailedPreconditionError(absl::StrCat("store lacks column family ", cf.name));
    }
  }
  if (fleet.size() == 0) return absl::InvalidArgumentError("no frontier partition");
  absl::StatusOr<std::unique_ptr<FetcherReports>> reports =
      FetcherReports::Open(store, codec, options.max_incarnations_per_partition);
  if (!reports.ok()) return reports.status();
  std::unique_ptr<CollectionManager> manager(
      new CollectionManager(options, store, fleet, codec, clock, *std::move(reports)));
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
      store.NewIterator(kCollectionsFamily, "", "");
  if (!it.ok()) return it.status();
  absl::MutexLock lock(&manager->mu_);
  for ((*it)->Seek(""); (*it)->Valid(); (*it)->Next()) {
    const std::string key((*it)->key());
    absl::StatusOr<StoredCollection> stored = codec.DecodeCollection((*it)->value());
    if (absl::IsDataLoss(stored.status())) {
      return absl::DataLossError(absl::StrCat("corrupt collection record ", key));
    }
    absl::StatusOr<std::shared_ptr<Entry>> entry =
        stored.ok() ? manager->Build(*std::move(stored))
                    : absl::StatusOr<std::shared_ptr<Entry>>(stored.status());
    if (!entry.ok()) {
      return absl::DataLossError(
          absl::StrCat("collection record ", key, " no longer builds: ", entry.status().message()));
    }
    manager->entries_[key] = *std::move(entry);
  }
  if (!(*it)->status().ok()) return (*it)->status();
  return manager;
}

absl::StatusOr<std::shared_ptr<CollectionManager::Entry>> CollectionManager::Build(
    StoredCollection stored) const {
  auto entry = std::make_shared<Entry>();
  entry->collection = stored.info.collection;
  const collections::Collection& collection = entry->collection;
  absl::StatusOr<std::unique_ptr<Scheduler>> core = Scheduler::Create(collection, {});
  if (!core.ok()) return core.status();
  entry->core = *std::move(core);
  std::vector<frontier::FrontierClient*> partitions;
  for (uint32_t k = 0; k < fleet_.size(); ++k) {
    partitions.push_back(&fleet_.Partition(k, collection.name));
  }
  absl::StatusOr<std::unique_ptr<frontier::RoutedFrontierClient>> router =
      frontier::RoutedFrontierClient::Create({.popular_cache_entries = 0}, partitions, 0);
  if (!router.ok()) return router.status();
  entry->router = *std::move(router);
  if (collection.revisit.options.enabled) {
    frontier::RoutedFrontierClient* r = entry->router.get();
    const std::string name = collection.name;
    entry->tuner = std::make_unique<RevisitTuner>(
        options_.tuner, *entry->core, partitions,
        [r] {
          absl::StatusOr<frontier::FrontierStats> stats = r->Stats();
          return stats.ok() ? stats->seen_urls : 0;
        },
        [log = options_.log.ForCollection(name)](const absl::Status& s) {
          log.Warning("re-tuning failed: ", s.message());
        });
  }
  if (collection.focus.enabled()) {
    Entry* e = entry.get();
    const std::string name = collection.name;
    entry->focus_tuner = std::make_unique<FocusBudgetTuner>(
        options_.focus_tuner, collection.limits.max_pages, partitions,
        [this, e](uint32_t k, uint64_t max_pages) {
          return fleet_.Open(k, e->collection, max_pages, e->generation);
        },
        [log = options_.log.ForCollection(name)](const absl::Status& s) {
          log.Warning("splitting the page budget failed: ", s.message());
        });
  }
  entry->generation = CollectionGeneration(stored.info.create_time);
  entry->fetcher_definition = collection;
  // A fetcher only builds the scope from seeds; sitemap seeds are among ScopeSeeds().
  entry->fetcher_definition.seeds = entry->core->ScopeSeeds();
  entry->fetcher_definition.sitemap_seeds.clear();
  // The version is a digest of the definition's bytes as the record holds them.
  const std::string bytes =
      codec_.EncodeCollection({.info = {.collection = entry->fetcher_definition}});
  entry->fetcher_version = XXH64(bytes.data(), bytes.size(), /*seed=*/0);
  entry->stored = std::move(stored);
  return entry;
}

absl::Status CollectionManager::Persist(const StoredCollection& stored) {
  kv::WriteBatch batch;
  batch.Put(kCollectionsFamily, stored.info.collection.name, codec_.EncodeCollection(stored));
  return store_.Write(batch);
}

std::vector<std::pair<std::string, RevisitTuning>> CollectionManager::LatestTunings() const {
  std::vector<std::shared_ptr<Entry>> tuned;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, entry] : entries_) {
      if (entry->tuner != nullptr && !entry->stored.deleting) tuned.push_back(entry);
    }
  }
  std::vector<std::pair<std::string, RevisitTuning>> out;
  for (const std::shared_ptr<Entry>& entry : tuned) {
    if (std::optional<RevisitTuning> t = entry->tuner->latest(); t.has_value()) {
      out.emplace_back(entry->collection.name, *std::move(t));
    }
  }
  return out;
}

absl::StatusOr<std::shared_ptr<CollectionManager::Entry>> CollectionManager::Find(
    const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(name);
  if (it == entries_.end() || it->second->stored.deleting) return CollectionNotFound(name);
  return it->second;
}

absl::Status CollectionManager::FeedPendingSeeds(Entry& entry, const SeedFeedOptions& options) {
  if (absl::Status s = entry.core->FeedSeeds(*entry.router, options).status(); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  StoredCollection changed = entry.stored;
  changed.seeds_pending = false;
  if (absl::Status s = Persist(changed); !s.ok()) return s;
  entry.stored = std::move(changed);
  return absl::OkStatus();
}

absl::StatusOr<CollectionInfo> CollectionManager::Create(collections::Collection collection) {
  if (absl::Status s = ValidateName(collection.name); !s.ok()) return s;
  collection.ApplyFocus();
  if (absl::Status s = collection.Validate(); !s.ok()) return s;
  StoredCollection stored;
  stored.info.collection = std::move(collection);
  stored.info.state = CollectionState::kActive;
  stored.info.create_time = clock_.Now();
  stored.info.update_time = stored.info.create_time;
  stored.seeds_pending = true;
  const std::string name = stored.info.collection.name;
  const size_t seeds = stored.info.collection.seeds.size();
  absl::StatusOr<std::shared_ptr<Entry>> entry = Build(std::move(stored));
  if (!entry.ok()) return entry.status();
  std::vector<std::string> out_of_scope;
  if ((*entry)->core->SeedsInScope(&out_of_scope) == 0) {
    // It would finish at once with nothing fetched.
    const size_t shown = std::min<size_t>(out_of_scope.size(), 3);
    out_of_scope.resize(shown);
    return absl::InvalidArgumentError(
        absl::StrCat("collection.seeds: none is in the collection's scope: ",
                     absl::StrJoin(out_of_scope, "; "), seeds > shown ? "; ..." : ""));
  }
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(name);
    if (it != entries_.end()) {
      if (it->second->stored.deleting) {
        return absl::FailedPreconditionError(
            absl::StrCat("collection '", name, "' is still being deleted; try again shortly"));
      }
      return absl::AlreadyExistsError(absl::StrCat("collection '", name, "' already exists"));
    }
    if (absl::Status s = Persist((*entry)->stored); !s.ok()) return s;
    entries_[name] = *entry;
  }
  options_.log.ForCollection(name).Info("created (", seeds, " seeds)");
  // The seeds are durable in the record; reaching the partitions now is a courtesy that Tick
  // repeats until it succeeds.
  Entry& e = **entry;
  if (OpenEverywhere(e).ok()) {
    e.opened_everywhere = true;
    e.last_open = clock_.Now();
    (void)FeedPendingSeeds(e, options_.feed);
  }
  absl::MutexLock lock(&mu_);
  return Shown(e.stored);
}

absl::StatusOr<CollectionInfo> CollectionManager::Update(const std::string& name,
                                                         const Change& change) {
  absl::StatusOr<std::shared_ptr<Entry>> old = Find(name);
  if (!old.ok()) return old.status();
  StoredCollection stored;
  {
    absl::MutexLock lock(&mu_);
    stored = (*old)->stored;
  }
  absl::StatusOr<collections::Collection> collection = change(stored.info.collection);
  if (!collection.ok()) return collection.status();
  collection->name = stored.info.collection.name;
  collection->seeds = stored.info.collection.seeds;
  collection->ApplyFocus();
  if (absl::Status s = collection->Validate(); !s.ok()) return s;
  stored.info.collection = *std::move(collection);
  stored.info.update_time = clock_.Now();
  absl::StatusOr<std::shared_ptr<Entry>> entry = Build(std::move(stored));
  if (!entry.ok()) return entry.status();
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(name);
    if (it == entries_.end() || it->second != *old) {
      return absl::AbortedError(
          absl::StrCat("collection '", name, "' changed meanwhile; try again"));
    }
    // The state may have moved since the copy (pause, finish): keep the current one.
    (*entry)->stored.info.state = it->second->stored.info.state;
    (*entry)->stored.seeds_pending = it->second->stored.seeds_pending;
    if (absl::Status s = Persist((*entry)->stored); !s.ok()) return s;
    it->second = *entry;
  }
  if (OpenEverywhere(**entry).ok()) {
    (*entry)->opened_everywhere = true;
    (*entry)->last_open = clock_.Now();
  }
  options_.log.ForCollection(name).Info("updated");
  absl::MutexLock lock(&mu_);
  return Shown((*entry)->stored);
}

absl::StatusOr<CollectionInfo> CollectionManager::Get(const std::string& name) const {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  absl::MutexLock lock(&mu_);
  return Shown((*entry)->stored);
}

absl::StatusOr<std::pair<std::vector<CollectionInfo>, std::string>> CollectionManager::List(
    int page_size, const std::string& page_token) const {
  if (page_size < 0 || page_size > 1000) {
    return absl::InvalidArgumentError("page_size: must be in [0, 1000]");
  }
  const size_t limit = page_size == 0 ? 100 : static_cast<size_t>(page_size);
  std::vector<CollectionInfo> page;
  std::string next;
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.upper_bound(page_token); it != entries_.end(); ++it) {
    if (it->second->stored.deleting) continue;
    if (page.size() == limit) {
      next = page.back().collection.name;
      break;
    }
    CollectionInfo& info = page.emplace_back(it->second->stored.info);
    info.seed_count = info.collection.seeds.size();
    info.collection.seeds.clear();
  }
  return std::make_pair(std::move(page), std::move(next));
}

absl::StatusOr<CollectionInfo> CollectionManager::SetState(const std::string& name,
                                                           std::vector<CollectionState> from,
                                                           CollectionState to) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  absl::MutexLock lock(&mu_);
  StoredCollection& stored = (*entry)->stored;
  const CollectionState state = stored.info.state;
  if (state == to) return Shown(stored);
  if (std::find(from.begin(), from.end(), state) == from.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("collection '", name, "' is ", std::string(CollectionStateName(state)),
                     ", not ", std::string(CollectionStateName(from.front()))));
  }
  StoredCollection changed = stored;
  changed.info.state = to;
  changed.info.update_time = clock_.Now();
  if (absl::Status s = Persist(changed); !s.ok()) return s;
  stored = std::move(changed);
  options_.log.ForCollection(name).Info(CollectionStateName(to));
  return Shown(stored);
}

absl::StatusOr<CollectionInfo> CollectionManager::Pause(const std::string& name) {
  return SetState(name, {CollectionState::kActive, CollectionState::kFinished},
                  CollectionState::kPaused);
}

absl::StatusOr<CollectionInfo> CollectionManager::Resume(const std::string& name) {
  // A resumed collection that has nothing left is found FINISHED again by the next Tick.
  return SetState(name, {CollectionState::kPaused}, CollectionState::kActive);
}

absl::Status CollectionManager::Delete(const std::string& name) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  {
    absl::MutexLock lock(&mu_);
    StoredCollection changed = (*entry)->stored;
    changed.deleting = true;
    if (absl::Status s = Persist(changed); !s.ok()) return s;
    (*entry)->stored = std::move(changed);
  }
  options_.log.ForCollection(name).Info("deleted");
  SyncOne(*entry, clock_.Now());  // drops it on the partitions now if they answer
  return absl::OkStatus();
}

absl::StatusOr<SeedReport> CollectionManager::AddSeeds(const std::string& name,
                                                       const std::vector<std::string>& seeds,
                                                       bool sitemaps) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  Entry& e = **entry;
  const Scheduler::SeedKind kind =
      sitemaps ? Scheduler::SeedKind::kSitemap : Scheduler::SeedKind::kPage;
  absl::StatusOr<SeedReport> report = e.core->AddSeeds(*e.router, seeds, options_.feed, kind);
  if (!report.ok() && report.status().code() == absl::StatusCode::kNotFound) {
    // A partition that lost the collection (restarted from an empty disk): open it again.
    if (absl::Status s = OpenEverywhere(e); !s.ok()) return s;
    report = e.core->AddSeeds(*e.router, seeds, options_.feed, kind);
  }
  if (!report.ok()) return report.status();
  if (report->queued > 0) {
    absl::MutexLock lock(&mu_);
    if (e.stored.info.state == CollectionState::kFinished && !e.stored.deleting) {
      StoredCollection changed = e.stored;
      changed.info.state = CollectionState::kActive;
      if (Persist(changed).ok()) e.stored = std::move(changed);
    }
  }
  return report;
}

absl::StatusOr<std::vector<FetcherCollection>> CollectionManager::TakeReport(
    const FetcherReport& report) {
  if (absl::Status s = reports_->Take(report, fleet_.size()); !s.ok()) return s;
  std::map<std::string, uint64_t, std::less<>> held;
  for (const HeldDefinition& h : report.held) held[h.name] = h.version;
  std::vector<FetcherCollection> live;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, entry] : entries_) {
    if (entry->stored.deleting) continue;
    FetcherCollection& c = live.emplace_back();
    c.name = name;
    c.state = entry->stored.info.state;
    c.create_time = entry->stored.info.create_time;
    c.definition_version = entry->fetcher_version;
    auto it = held.find(name);
    if (it == held.end() || it->second != entry->fetcher_version) {
      c.definition = entry->fetcher_definition;
    }
  }
  return live;
}

}  // namespace crawler::scheduler
