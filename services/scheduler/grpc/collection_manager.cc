#include "services/scheduler/grpc/collection_manager.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

#include <xxhash.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/field_mask_util.h"
#include "lib/partition/partition.h"
#include "services/common/grpc/proto_convert.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/grpc/frontier_convert.h"
#include "services/frontier/routed_frontier_client.h"
#include "services/scheduler/grpc/collection_convert.h"

namespace crawler::scheduler {
namespace {

constexpr char kCollectionsFamily[] = "collections";
// Key: partition as 8 hex digits, '/', incarnation. Value: the last ReportFetcherStatsRequest.
constexpr char kReportsFamily[] = "fetcher_reports";
constexpr size_t kMaxExplainUrls = 100;

// The incarnation under which a partition's retired incarnations' counters are summed.
constexpr char kRetired[] = "~retired";

// Adds `from`'s counters to `into`, collection by collection (gauges are not carried over).
void Fold(const v1::ReportFetcherStatsRequest& from, v1::ReportFetcherStatsRequest& into) {
  for (const v1::FetcherCollectionStats& c : from.collections()) {
    v1::FetcherCollectionStats* sum = nullptr;
    for (v1::FetcherCollectionStats& existing : *into.mutable_collections()) {
      if (existing.collection() == c.collection() && existing.generation() == c.generation()) {
        sum = &existing;
      }
    }
    if (sum == nullptr) {
      sum = into.add_collections();
      sum->set_collection(c.collection());
      sum->set_generation(c.generation());
    }
    for (const v1::OutcomeCount& o : c.outcomes()) {
      v1::OutcomeCount* count = nullptr;
      for (v1::OutcomeCount& existing : *sum->mutable_outcomes()) {
        if (existing.outcome() == o.outcome()) count = &existing;
      }
      if (count == nullptr) {
        count = sum->add_outcomes();
        count->set_outcome(o.outcome());
      }
      count->set_count(count->count() + o.count());
    }
    sum->set_robots_denied(sum->robots_denied() + c.robots_denied());
    sum->set_requests_started(sum->requests_started() + c.requests_started());
    sum->set_leases_abandoned(sum->leases_abandoned() + c.leases_abandoned());
    sum->set_urls_routed(sum->urls_routed() + c.urls_routed());
    sum->set_urls_suppressed(sum->urls_suppressed() + c.urls_suppressed());
    sum->set_duplicates(sum->duplicates() + c.duplicates());
    sum->set_dedup_unavailable(sum->dedup_unavailable() + c.dedup_unavailable());
    for (int j = 0; j < c.urls_sent_size(); ++j) {
      while (sum->urls_sent_size() <= j) sum->add_urls_sent(0);
      sum->set_urls_sent(j, sum->urls_sent(j) + c.urls_sent(j));
    }
  }
}

std::string ReportKey(uint32_t partition, const std::string& incarnation) {
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%08x/", partition);
  return absl::StrCat(prefix, incarnation);
}

absl::Status NotFound(const std::string& name) {
  return absl::NotFoundError(absl::StrCat("collection '", name, "' not found"));
}

// A collection name is a directory name on every partition and a WARC file prefix.
absl::Status ValidateName(const std::string& name) {
  const auto ok_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  };
  if (name.empty() || name.size() > 63 || !ok_char(name[0]) || name[0] == '_' ||
      name[0] == '-' || !std::all_of(name.begin(), name.end(), ok_char)) {
    return grpc_common::InvalidField(
        "collection.name", "must be 1-63 characters of a-z, 0-9, '_' and '-', starting with a "
                           "letter or digit");
  }
  return absl::OkStatus();
}

// A collection as the admin API shows it.
v1::CollectionInfo Shown(const v1::StoredCollection& stored) {
  v1::CollectionInfo info = stored.info();
  info.set_seed_count(info.collection().seeds_size());
  return info;
}

std::string StateName(v1::CollectionState state) {
  switch (state) {
    case v1::COLLECTION_STATE_ACTIVE: return "active";
    case v1::COLLECTION_STATE_PAUSED: return "paused";
    case v1::COLLECTION_STATE_FINISHED: return "finished";
    default: return "unspecified";
  }
}

}  // namespace

struct CollectionManager::Entry {
  v1::StoredCollection stored;  // the manager's mu_ guards it
  Collection collection;        // decoded from stored.info().collection()
  uint64_t generation = 0;      // GenerationOf(its create_time)
  // The definition as fetchers get it (seeds: only those its scope needs) and its digest.
  v1::Collection fetcher_definition;
  uint64_t fetcher_version = 0;
  std::unique_ptr<Scheduler> core;
  // Seeds go through a router without the popular-URL cache: a seed is always sent.
  std::unique_ptr<frontier::RoutedFrontierClient> router;
  std::unique_ptr<RevisitTuner> tuner;  // re-visiting collections only
  // Focused collections only: the page budget's split over the partitions, pushed by Open.
  std::unique_ptr<FocusBudgetTuner> focus_tuner;
  // Only on the Tick thread.
  absl::Time last_open = absl::InfinitePast();
  bool opened_everywhere = false;
};

std::vector<kv::ColumnFamilySpec> CollectionManager::ColumnFamilies() {
  return {{.name = kCollectionsFamily}, {.name = kReportsFamily}};
}

CollectionManager::CollectionManager(const CollectionManagerOptions& options,
                                     kv::KvStore& store, PartitionFleet& fleet,
                                     const Clock& clock)
    : options_(options), store_(store), fleet_(fleet), clock_(clock) {}

CollectionManager::~CollectionManager() = default;

absl::StatusOr<std::unique_ptr<CollectionManager>> CollectionManager::Open(
    const CollectionManagerOptions& options, kv::KvStore& store, PartitionFleet& fleet,
    const Clock& clock) {
  for (const kv::ColumnFamilySpec& cf : ColumnFamilies()) {
    if (!store.HasColumnFamily(cf.name)) {
      return absl::FailedPreconditionError(absl::StrCat("store lacks column family ", cf.name));
    }
  }
  if (fleet.size() == 0) return absl::InvalidArgumentError("no frontier partition");
  std::unique_ptr<CollectionManager> manager(new CollectionManager(options, store, fleet, clock));
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it = store.NewIterator(kCollectionsFamily, "", "");
  if (!it.ok()) return it.status();
  absl::MutexLock lock(&manager->mu_);
  for ((*it)->Seek(""); (*it)->Valid(); (*it)->Next()) {
    v1::StoredCollection stored;
    if (!stored.ParseFromArray((*it)->value().data(), static_cast<int>((*it)->value().size()))) {
      return absl::DataLossError(absl::StrCat("corrupt collection record ", std::string((*it)->key())));
    }
    absl::StatusOr<std::shared_ptr<Entry>> entry = manager->Build(std::move(stored));
    if (!entry.ok()) {
      return absl::DataLossError(absl::StrCat("collection record ", std::string((*it)->key()),
                                              " no longer builds: ", entry.status().message()));
    }
    manager->entries_[std::string((*it)->key())] = *std::move(entry);
  }
  if (!(*it)->status().ok()) return (*it)->status();
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> reports = store.NewIterator(kReportsFamily, "", "");
  if (!reports.ok()) return reports.status();
  for ((*reports)->Seek(""); (*reports)->Valid(); (*reports)->Next()) {
    v1::ReportFetcherStatsRequest report;
    if (!report.ParseFromArray((*reports)->value().data(),
                               static_cast<int>((*reports)->value().size()))) {
      return absl::DataLossError(absl::StrCat("corrupt fetcher report ", std::string((*reports)->key())));
    }
    manager->reports_[{report.partition(), report.incarnation()}] = std::move(report);
  }
  if (!(*reports)->status().ok()) return (*reports)->status();
  return manager;
}

absl::StatusOr<std::shared_ptr<CollectionManager::Entry>> CollectionManager::Build(
    v1::StoredCollection stored) const {
  absl::StatusOr<Collection> collection = FromProto(stored.info().collection(), "collection");
  if (!collection.ok()) return collection.status();
  auto entry = std::make_shared<Entry>();
  absl::StatusOr<std::unique_ptr<Scheduler>> core = Scheduler::Create(*collection, {});
  if (!core.ok()) return core.status();
  entry->core = *std::move(core);
  std::vector<frontier::FrontierClient*> partitions;
  for (uint32_t k = 0; k < fleet_.size(); ++k) {
    partitions.push_back(&fleet_.Partition(k, collection->name));
  }
  absl::StatusOr<std::unique_ptr<frontier::RoutedFrontierClient>> router =
      frontier::RoutedFrontierClient::Create({.popular_cache_entries = 0}, partitions, 0);
  if (!router.ok()) return router.status();
  entry->router = *std::move(router);
  if (collection->revisit.options.enabled) {
    frontier::RoutedFrontierClient* r = entry->router.get();
    const std::string name = collection->name;
    entry->tuner = std::make_unique<RevisitTuner>(
        options_.tuner, *entry->core, partitions,
        [r] {
          absl::StatusOr<frontier::FrontierStats> stats = r->Stats();
          return stats.ok() ? stats->seen_urls : 0;
        },
        [name](const absl::Status& s) {
          std::fprintf(stderr, "scheduler: re-tuning collection %s failed: %s\n", name.c_str(),
                       std::string(s.message()).c_str());
        });
  }
  if (collection->focus.enabled()) {
    Entry* e = entry.get();
    const std::string name = collection->name;
    entry->focus_tuner = std::make_unique<FocusBudgetTuner>(
        options_.focus_tuner, collection->limits.max_pages, partitions,
        [this, e](uint32_t k, uint64_t max_pages) {
          return fleet_.Open(k, e->collection, max_pages, e->generation);
        },
        [name](const absl::Status& s) {
          std::fprintf(stderr, "scheduler: splitting the page budget of collection %s failed: %s\n",
                       name.c_str(), std::string(s.message()).c_str());
        });
  }
  entry->collection = *std::move(collection);
  entry->generation = GenerationOf(stored.info().create_time());
  entry->fetcher_definition = stored.info().collection();
  entry->fetcher_definition.clear_seeds();
  for (std::string& seed : entry->core->ScopeSeeds()) {
    entry->fetcher_definition.add_seeds(std::move(seed));
  }
  const std::string bytes = entry->fetcher_definition.SerializeAsString();
  entry->fetcher_version = XXH64(bytes.data(), bytes.size(), /*seed=*/0);
  entry->stored = std::move(stored);
  return entry;
}

absl::Status CollectionManager::Persist(const v1::StoredCollection& stored) {
  kv::WriteBatch batch;
  batch.Put(kCollectionsFamily, stored.info().collection().name(), stored.SerializeAsString());
  return store_.Write(batch);
}

std::vector<std::pair<std::string, RevisitTuning>> CollectionManager::LatestTunings() const {
  std::vector<std::shared_ptr<Entry>> tuned;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, entry] : entries_) {
      if (entry->tuner != nullptr && !entry->stored.deleting()) tuned.push_back(entry);
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
  if (it == entries_.end() || it->second->stored.deleting()) return NotFound(name);
  return it->second;
}

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

absl::StatusOr<v1::CollectionInfo> CollectionManager::Create(const v1::Collection& proto) {
  if (absl::Status s = ValidateName(proto.name()); !s.ok()) return s;
  absl::StatusOr<Collection> collection = FromProto(proto, "collection");
  if (!collection.ok()) return collection.status();
  collection->ApplyFocus();
  if (absl::Status s = collection->Validate(); !s.ok()) return s;
  v1::StoredCollection stored;
  v1::CollectionInfo& info = *stored.mutable_info();
  *info.mutable_collection() = ToProto(*collection);
  info.set_state(v1::COLLECTION_STATE_ACTIVE);
  *info.mutable_create_time() = grpc_common::TimeToProto(clock_.Now());
  *info.mutable_update_time() = info.create_time();
  stored.set_seeds_pending(true);
  absl::StatusOr<std::shared_ptr<Entry>> entry = Build(stored);
  if (!entry.ok()) return entry.status();
  std::vector<std::string> out_of_scope;
  if ((*entry)->core->SeedsInScope(&out_of_scope) == 0) {
    // It would finish at once with nothing fetched.
    out_of_scope.resize(std::min<size_t>(out_of_scope.size(), 3));
    return grpc_common::InvalidField(
        "collection.seeds", absl::StrCat("none is in the collection's scope: ",
                                         absl::StrJoin(out_of_scope, "; "),
                                         collection->seeds.size() > 3 ? "; ..." : ""));
  }
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(collection->name);
    if (it != entries_.end()) {
      if (it->second->stored.deleting()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "collection '", collection->name, "' is still being deleted; try again shortly"));
      }
      return absl::AlreadyExistsError(
          absl::StrCat("collection '", collection->name, "' already exists"));
    }
    if (absl::Status s = Persist(stored); !s.ok()) return s;
    entries_[collection->name] = *entry;
  }
  std::fprintf(stderr, "scheduler: collection %s created (%zu seeds)\n",
               collection->name.c_str(), collection->seeds.size());
  // The seeds are durable in the record; reaching the partitions now is a courtesy that Tick
  // repeats until it succeeds.
  Entry& e = **entry;
  if (OpenEverywhere(e).ok()) {
    e.opened_everywhere = true;
    e.last_open = clock_.Now();
    absl::StatusOr<SeedReport> fed = e.core->FeedSeeds(*e.router, options_.feed);
    if (fed.ok()) {
      absl::MutexLock lock(&mu_);
      e.stored.set_seeds_pending(false);
      if (absl::Status s = Persist(e.stored); !s.ok()) e.stored.set_seeds_pending(true);
    }
  }
  absl::MutexLock lock(&mu_);
  return Shown(e.stored);
}

absl::StatusOr<v1::CollectionInfo> CollectionManager::Update(
    const v1::Collection& proto, const google::protobuf::FieldMask& mask) {
  absl::StatusOr<std::shared_ptr<Entry>> old = Find(proto.name());
  if (!old.ok()) return old.status();
  v1::StoredCollection stored;
  {
    absl::MutexLock lock(&mu_);
    stored = (*old)->stored;
  }
  v1::Collection merged = stored.info().collection();
  if (mask.paths_size() == 0) {
    v1::Collection replacement = proto;
    *replacement.mutable_seeds() = merged.seeds();
    merged = std::move(replacement);
  } else {
    for (const std::string& path : mask.paths()) {
      if (path == "name" || path == "seeds") {
        return grpc_common::InvalidField(
            "update_mask", absl::StrCat("'", path, "' cannot change (seeds: use AddSeeds)"));
      }
    }
    if (!google::protobuf::util::FieldMaskUtil::IsValidFieldMask<v1::Collection>(mask)) {
      return grpc_common::InvalidField("update_mask", "names a field Collection does not have");
    }
    google::protobuf::util::FieldMaskUtil::MergeOptions merge;
    merge.set_replace_message_fields(true);
    merge.set_replace_repeated_fields(true);
    google::protobuf::util::FieldMaskUtil::MergeMessageTo(proto, mask, merge, &merged);
  }
  absl::StatusOr<Collection> collection = FromProto(merged, "collection");
  if (!collection.ok()) return collection.status();
  collection->ApplyFocus();
  if (absl::Status s = collection->Validate(); !s.ok()) return s;
  *stored.mutable_info()->mutable_collection() = ToProto(*collection);
  *stored.mutable_info()->mutable_update_time() = grpc_common::TimeToProto(clock_.Now());
  absl::StatusOr<std::shared_ptr<Entry>> entry = Build(stored);
  if (!entry.ok()) return entry.status();
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(proto.name());
    if (it == entries_.end() || it->second != *old) {
      return absl::AbortedError(
          absl::StrCat("collection '", proto.name(), "' changed meanwhile; try again"));
    }
    // The state may have moved since the copy (pause, finish): keep the current one.
    (*entry)->stored.mutable_info()->set_state(it->second->stored.info().state());
    (*entry)->stored.set_seeds_pending(it->second->stored.seeds_pending());
    if (absl::Status s = Persist((*entry)->stored); !s.ok()) return s;
    it->second = *entry;
  }
  if (OpenEverywhere(**entry).ok()) {
    (*entry)->opened_everywhere = true;
    (*entry)->last_open = clock_.Now();
  }
  std::fprintf(stderr, "scheduler: collection %s updated\n", proto.name().c_str());
  absl::MutexLock lock(&mu_);
  return Shown((*entry)->stored);
}

absl::StatusOr<v1::CollectionInfo> CollectionManager::Get(const std::string& name) const {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  absl::MutexLock lock(&mu_);
  return Shown((*entry)->stored);
}

absl::StatusOr<std::pair<std::vector<v1::CollectionInfo>, std::string>> CollectionManager::List(
    int page_size, const std::string& page_token) const {
  if (page_size < 0 || page_size > 1000) {
    return grpc_common::InvalidField("page_size", "must be in [0, 1000]");
  }
  const size_t limit = page_size == 0 ? 100 : static_cast<size_t>(page_size);
  std::vector<v1::CollectionInfo> page;
  std::string next;
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.upper_bound(page_token); it != entries_.end(); ++it) {
    if (it->second->stored.deleting()) continue;
    if (page.size() == limit) {
      next = page.back().collection().name();
      break;
    }
    v1::CollectionInfo& info = page.emplace_back(it->second->stored.info());
    info.set_seed_count(info.collection().seeds_size());
    info.mutable_collection()->clear_seeds();
  }
  return std::make_pair(std::move(page), std::move(next));
}

absl::StatusOr<v1::CollectionInfo> CollectionManager::SetState(const std::string& name,
                                                               v1::CollectionState from1,
                                                               v1::CollectionState from2,
                                                               v1::CollectionState to) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  absl::MutexLock lock(&mu_);
  v1::StoredCollection& stored = (*entry)->stored;
  const v1::CollectionState state = stored.info().state();
  if (state == to) return Shown(stored);
  if (state != from1 && state != from2) {
    return absl::FailedPreconditionError(absl::StrCat("collection '", name, "' is ",
                                                      StateName(state), ", not ",
                                                      StateName(from1)));
  }
  v1::StoredCollection changed = stored;
  changed.mutable_info()->set_state(to);
  *changed.mutable_info()->mutable_update_time() = grpc_common::TimeToProto(clock_.Now());
  if (absl::Status s = Persist(changed); !s.ok()) return s;
  stored = std::move(changed);
  std::fprintf(stderr, "scheduler: collection %s %s\n", name.c_str(), StateName(to).c_str());
  return Shown(stored);
}

absl::StatusOr<v1::CollectionInfo> CollectionManager::Pause(const std::string& name) {
  return SetState(name, v1::COLLECTION_STATE_ACTIVE, v1::COLLECTION_STATE_FINISHED,
                  v1::COLLECTION_STATE_PAUSED);
}

absl::StatusOr<v1::CollectionInfo> CollectionManager::Resume(const std::string& name) {
  // A resumed collection that has nothing left is found FINISHED again by the next Tick.
  return SetState(name, v1::COLLECTION_STATE_PAUSED, v1::COLLECTION_STATE_PAUSED,
                  v1::COLLECTION_STATE_ACTIVE);
}

absl::Status CollectionManager::Delete(const std::string& name) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  {
    absl::MutexLock lock(&mu_);
    v1::StoredCollection changed = (*entry)->stored;
    changed.set_deleting(true);
    if (absl::Status s = Persist(changed); !s.ok()) return s;
    (*entry)->stored = std::move(changed);
  }
  std::fprintf(stderr, "scheduler: collection %s deleted\n", name.c_str());
  SyncOne(*entry, clock_.Now());  // drops it on the partitions now if they answer
  return absl::OkStatus();
}

absl::StatusOr<SeedReport> CollectionManager::AddSeeds(const std::string& name,
                                                       const std::vector<std::string>& seeds) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  Entry& e = **entry;
  absl::StatusOr<SeedReport> report = e.core->AddSeeds(*e.router, seeds, options_.feed);
  if (!report.ok() && report.status().code() == absl::StatusCode::kNotFound) {
    // A partition that lost the collection (restarted from an empty disk): open it again.
    if (absl::Status s = OpenEverywhere(e); !s.ok()) return s;
    report = e.core->AddSeeds(*e.router, seeds, options_.feed);
  }
  if (!report.ok()) return report.status();
  if (report->queued > 0) {
    absl::MutexLock lock(&mu_);
    if (e.stored.info().state() == v1::COLLECTION_STATE_FINISHED && !e.stored.deleting()) {
      v1::StoredCollection changed = e.stored;
      changed.mutable_info()->set_state(v1::COLLECTION_STATE_ACTIVE);
      if (Persist(changed).ok()) e.stored = std::move(changed);
    }
  }
  return report;
}

absl::StatusOr<v1::CollectionStats> CollectionManager::Stats(const std::string& name) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  v1::CollectionStats out;
  out.set_name(name);
  *out.mutable_as_of() = grpc_common::TimeToProto(clock_.Now());
  out.set_partitions_total(fleet_.size());
  bool exhausted = true;
  for (uint32_t k = 0; k < fleet_.size(); ++k) {
    absl::StatusOr<frontier::FrontierStats> s = fleet_.Partition(k, name).Stats();
    if (!s.ok()) {
      exhausted = false;
      continue;
    }
    out.set_partitions_reporting(out.partitions_reporting() + 1);
    out.set_pages(out.pages() + s->pages_completed);
    out.set_queued_urls(out.queued_urls() + s->queued_urls);
    out.set_waiting_urls(out.waiting_urls() + s->waiting_urls);
    out.set_in_flight_urls(out.in_flight_urls() + s->in_flight_urls);
    out.set_seen_urls(out.seen_urls() + s->seen_urls);
    out.set_hosts(out.hosts() + s->hosts);
    out.set_revisits_waited(out.revisits_waited() + s->revisits_waited);
    out.set_revisit_wait_seconds(out.revisit_wait_seconds() + s->revisit_wait_seconds);
    out.set_revisit_budget_visits_per_day(out.revisit_budget_visits_per_day() +
                                          s->revisit_budget_visits_per_day);
    out.set_revisits_completed(out.revisits_completed() + s->revisits_completed);
    out.set_revisit_spend_visits_per_day(out.revisit_spend_visits_per_day() +
                                         s->revisit_spend_visits_per_day);
    out.set_focus_pulls(out.focus_pulls() + s->focus_pulls);
    out.set_focus_reward(out.focus_reward() + s->focus_reward);
    exhausted = exhausted && s->exhausted;
  }
  out.set_exhausted(exhausted);
  if ((*entry)->focus_tuner != nullptr && (*entry)->focus_tuner->tunings() > 0) {
    for (const uint64_t budget : (*entry)->focus_tuner->budgets()) {
      out.add_focus_page_budgets(budget);
    }
  }
  std::map<int, uint64_t> outcomes;
  absl::MutexLock lock(&mu_);
  for (const auto& [key, report] : reports_) {
    for (const v1::FetcherCollectionStats& c : report.collections()) {
      if (c.collection() != name) continue;
      // Counters of an earlier collection of this name (deleted and created again).
      if (c.generation() != 0 && c.generation() != (*entry)->generation) continue;
      for (const v1::OutcomeCount& o : c.outcomes()) outcomes[o.outcome()] += o.count();
      out.set_robots_denied(out.robots_denied() + c.robots_denied());
      out.set_duplicates(out.duplicates() + c.duplicates());
      out.set_urls_suppressed(out.urls_suppressed() + c.urls_suppressed());
      for (int j = 0; j < c.urls_sent_size(); ++j) {
        if (static_cast<uint32_t>(j) != report.partition()) {
          out.set_urls_exchanged(out.urls_exchanged() + c.urls_sent(j));
        }
      }
    }
  }
  for (const auto& [outcome, count] : outcomes) {
    v1::OutcomeCount* o = out.add_outcomes();
    o->set_outcome(static_cast<v1::OutcomeClass>(outcome));
    o->set_count(count);
  }
  return out;
}

absl::StatusOr<v1::ExplainUrlResponse> CollectionManager::Explain(
    const std::string& name, const std::vector<std::string>& urls) {
  if (urls.size() > kMaxExplainUrls) {
    return grpc_common::InvalidField("urls", absl::StrCat("at most ", kMaxExplainUrls, " URLs"));
  }
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  Entry& e = **entry;
  v1::ExplainUrlResponse response;
  std::vector<std::string> canonical;
  std::vector<v1::UrlExplanation*> parsed;
  for (const std::string& url : urls) {
    v1::UrlExplanation* x = response.add_explanations();
    x->set_url(url);
    absl::StatusOr<Scheduler::Judged> judged = e.core->Judge(url, 0);
    if (!judged.ok()) {
      x->set_error(std::string(judged.status().message()));
      continue;
    }
    x->set_canonical_url(judged->canonical.str());
    x->set_scope_verdict(ToProto(judged->verdict));
    x->set_partition(partition::Partition(judged->host_key, fleet_.size()));
    canonical.push_back(judged->canonical.str());
    parsed.push_back(x);
  }
  if (canonical.empty()) return response;
  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> records =
      e.router->LookupUrls(canonical);
  if (!records.ok()) return records.status();
  for (size_t i = 0; i < parsed.size() && i < records->size(); ++i) {
    const std::optional<frontier::UrlRecord>& record = (*records)[i];
    if (!record.has_value()) continue;
    parsed[i]->set_found(true);
    *parsed[i]->mutable_record() = frontier::ToProto(*record);
    // The verdict at the depth the URL was found at.
    absl::StatusOr<Scheduler::Judged> at_depth = e.core->Judge(parsed[i]->url(), record->depth);
    if (at_depth.ok()) parsed[i]->set_scope_verdict(ToProto(at_depth->verdict));
  }
  return response;
}

absl::StatusOr<std::vector<v1::FetcherCollection>> CollectionManager::FetcherReport(
    const v1::ReportFetcherStatsRequest& report) {
  if (report.incarnation().empty()) {
    return grpc_common::InvalidField("incarnation", "must not be empty");
  }
  if (report.partition() >= fleet_.size()) {
    return grpc_common::InvalidField(
        "partition", absl::StrCat(report.partition(), " is not below the partition count ",
                                  fleet_.size()));
  }
  absl::MutexLock lock(&mu_);
  kv::WriteBatch batch;
  batch.Put(kReportsFamily, ReportKey(report.partition(), report.incarnation()),
            report.SerializeAsString());
  // Keep the newest incarnations of this partition; the older ones' counters are folded into
  // the partition's retired record, so the sums stay whole.
  std::vector<std::pair<absl::Time, std::string>> mine;
  for (const auto& [key, r] : reports_) {
    if (key.first != report.partition() || key.second == report.incarnation() ||
        key.second == kRetired) {
      continue;
    }
    mine.emplace_back(grpc_common::TimeFromProto(r.start_time(), "start_time")
                          .value_or(absl::InfinitePast()),
                      key.second);
  }
  std::vector<std::string> dropped;
  v1::ReportFetcherStatsRequest retired;
  if (mine.size() + 1 > options_.max_incarnations_per_partition) {
    auto it = reports_.find({report.partition(), kRetired});
    if (it != reports_.end()) retired = it->second;
    retired.set_partition(report.partition());
    retired.set_incarnation(kRetired);
    std::sort(mine.begin(), mine.end());
    const size_t excess = mine.size() + 1 - options_.max_incarnations_per_partition;
    for (size_t i = 0; i < excess; ++i) {
      batch.Delete(kReportsFamily, ReportKey(report.partition(), mine[i].second));
      Fold(reports_.at({report.partition(), mine[i].second}), retired);
      dropped.push_back(mine[i].second);
    }
    batch.Put(kReportsFamily, ReportKey(report.partition(), kRetired),
              retired.SerializeAsString());
  }
  if (absl::Status s = store_.Write(batch); !s.ok()) return s;
  for (const std::string& incarnation : dropped) reports_.erase({report.partition(), incarnation});
  if (!dropped.empty()) reports_[{report.partition(), kRetired}] = std::move(retired);
  reports_[{report.partition(), report.incarnation()}] = report;
  std::map<std::string, uint64_t, std::less<>> held;
  for (const v1::HeldDefinition& h : report.held()) held[h.name()] = h.version();
  std::vector<v1::FetcherCollection> live;
  for (const auto& [name, entry] : entries_) {
    if (entry->stored.deleting()) continue;
    v1::FetcherCollection& c = live.emplace_back();
    c.set_name(name);
    c.set_state(entry->stored.info().state());
    *c.mutable_create_time() = entry->stored.info().create_time();
    c.set_definition_version(entry->fetcher_version);
    auto it = held.find(name);
    if (it == held.end() || it->second != entry->fetcher_version) {
      *c.mutable_definition() = entry->fetcher_definition;
    }
  }
  return live;
}

void CollectionManager::Tick(absl::Time now) {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, entry] : entries_) entries.push_back(entry);
  }
  for (const std::shared_ptr<Entry>& entry : entries) SyncOne(entry, now);
}

void CollectionManager::SyncOne(const std::shared_ptr<Entry>& entry, absl::Time now) {
  Entry& e = *entry;
  const std::string& name = e.collection.name;
  bool deleting, seeds_pending;
  v1::CollectionState state;
  {
    absl::MutexLock lock(&mu_);
    deleting = e.stored.deleting();
    seeds_pending = e.stored.seeds_pending();
    state = e.stored.info().state();
  }
  if (deleting) {
    bool all = true;
    for (uint32_t k = 0; k < fleet_.size(); ++k) all = fleet_.Drop(k, name).ok() && all;
    if (!all) return;
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(name);
    if (it == entries_.end() || it->second != entry) return;
    kv::WriteBatch batch;
    batch.Delete(kCollectionsFamily, name);
    // The fetchers' counters of the collection go with it: a collection created later under
    // the same name starts from zero.
    std::map<std::pair<uint32_t, std::string>, v1::ReportFetcherStatsRequest> stripped;
    for (const auto& [key, report] : reports_) {
      v1::ReportFetcherStatsRequest without = report;
      without.clear_collections();
      for (const v1::FetcherCollectionStats& c : report.collections()) {
        if (c.collection() != name) *without.add_collections() = c;
      }
      if (without.collections_size() == report.collections_size()) continue;
      batch.Put(kReportsFamily, ReportKey(key.first, key.second), without.SerializeAsString());
      stripped[key] = std::move(without);
    }
    if (!store_.Write(batch).ok()) return;
    entries_.erase(it);
    for (auto& [key, report] : stripped) reports_[key] = std::move(report);
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
    if (!e.core->FeedSeeds(*e.router, once).ok()) return;
    absl::MutexLock lock(&mu_);
    v1::StoredCollection changed = e.stored;
    changed.set_seeds_pending(false);
    if (Persist(changed).ok()) e.stored = std::move(changed);
    return;
  }
  if (e.tuner != nullptr) {
    e.tuner->Tick(now);
    return;
  }
  if (e.focus_tuner != nullptr && state == v1::COLLECTION_STATE_ACTIVE) e.focus_tuner->Tick(now);
  if (state == v1::COLLECTION_STATE_ACTIVE) {
    absl::StatusOr<bool> exhausted = e.router->IsExhausted();
    // A focused partition that spent its budget is exhausted while another may have pages left
    // and no work: split again before calling the collection finished.
    if (exhausted.ok() && *exhausted && e.focus_tuner != nullptr &&
        e.focus_tuner->TuneNow(now).ok()) {
      exhausted = e.router->IsExhausted();
    }
    if (exhausted.ok() && *exhausted) {
      (void)SetState(name, v1::COLLECTION_STATE_ACTIVE, v1::COLLECTION_STATE_ACTIVE,
                     v1::COLLECTION_STATE_FINISHED);
    }
  }
}

}  // namespace crawler::scheduler
