#include "services/frontier/grpc/frontier_host.h"

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "crawler/v1/frontier.pb.h"
#include "services/common/atomic_file.h"
#include "services/frontier/grpc/frontier_convert.h"

namespace crawler::frontier {
namespace {

namespace fs = std::filesystem;

constexpr char kCollectionsDir[] = "collections";
constexpr char kSettingsFile[] = "collection.binpb";
constexpr char kStoreDir[] = "store";

absl::Status Prefixed(const std::string& prefix, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

absl::Status WriteSettings(const fs::path& dir, const CollectionSettings& settings,
                           const partition::PartitionLayout& layout) {
  const v1::OpenCollectionRequest request =
      ToOpenCollectionRequest(OpenCollectionArgs::With(settings, layout));
  return WriteFileAtomically(dir / kSettingsFile, request.SerializeAsString());
}

absl::StatusOr<OpenCollectionArgs> ReadSettings(const fs::path& dir) {
  const fs::path path = dir / kSettingsFile;
  absl::StatusOr<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  v1::OpenCollectionRequest request;
  if (!request.ParseFromString(*bytes)) {
    return absl::DataLossError(absl::StrCat(path.string(), " is not a collection's settings"));
  }
  absl::StatusOr<OpenCollectionArgs> args = FromOpenCollectionRequest(request);
  if (!args.ok()) return Prefixed(absl::StrCat(path.string(), ": "), args.status());
  return args;
}

}  // namespace

FrontierHost::FrontierHost(const FrontierHostOptions& options, const Clock& clock)
    : options_(options), clock_(clock) {}

FrontierHost::~FrontierHost() {
  absl::MutexLock lock(&mu_);
  for (auto& [name, collection] : collections_) Close(collection);
}

absl::StatusOr<std::unique_ptr<FrontierHost>> FrontierHost::Open(const FrontierHostOptions& options,
                                                                 const Clock& clock) {
  if (options.data_dir.empty()) return absl::InvalidArgumentError("data_dir: required");
  FrontierOptions base = options.base;
  base.partition_index = options.partition_index;
  base.partition_count = options.partition_count;
  if (absl::Status s = ValidateFrontierOptions(base); !s.ok()) return s;

  const fs::path root = fs::path(options.data_dir) / kCollectionsDir;
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", root.string(), ": ", ec.message()));
  }
  std::unique_ptr<FrontierHost> host(new FrontierHost(options, clock));
  for (const fs::directory_entry& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    // Not a collection's directory, or one whose first OpenCollection died before its settings
    // were written: the scheduler pushes that collection again.
    std::error_code probe;
    if (!entry.is_directory(probe) || !ValidateCollectionName(name).ok() ||
        !fs::exists(entry.path() / kSettingsFile, probe)) {
      continue;
    }
    const std::string context = absl::StrCat("collection ", name, ": ");
    absl::StatusOr<OpenCollectionArgs> stored = ReadSettings(entry.path());
    if (!stored.ok()) return Prefixed(context, stored.status());
    if (stored->collection.name != name) {
      return absl::DataLossError(
          absl::StrCat(context, "its settings name collection ", stored->collection.name));
    }
    // The layout the scheduler last gave, whatever count this server was started with.
    if (absl::Status s = partition::ValidateLayout(stored->Layout(), options.partition_index);
        !s.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(context, "stored for ",
                                                        stored->Layout().Describe(), ": ",
                                                        s.message()));
    }
    absl::StatusOr<Collection> collection = host->OpenCore(stored->collection, stored->Layout());
    if (!collection.ok()) return Prefixed(context, collection.status());
    absl::MutexLock lock(&host->mu_);
    host->collections_.emplace(name, *std::move(collection));
  }
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot list ", root.string(), ": ", ec.message()));
  }
  return host;
}

std::string FrontierHost::CollectionDir(std::string_view name) const {
  return (fs::path(options_.data_dir) / kCollectionsDir / std::string(name)).string();
}

absl::StatusOr<FrontierHost::Collection> FrontierHost::OpenCore(
    const CollectionSettings& settings, const partition::PartitionLayout& layout) const {
  kv::RocksDbKvStoreOptions store_options = options_.store;
  store_options.path = (fs::path(CollectionDir(settings.name)) / kStoreDir).string();
  store_options.create_if_missing = true;
  absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store =
      kv::RocksDbKvStore::Open(store_options, Frontier::ColumnFamilies());
  if (!store.ok()) return store.status();
  std::shared_ptr<kv::RocksDbKvStore> shared_store = *std::move(store);
  absl::StatusOr<std::unique_ptr<Frontier>> core = Frontier::Open(
      WithCollection(options_.base, settings, options_.partition_index, layout), *shared_store,
      clock_);
  if (!core.ok()) return core.status();
  for (const std::string& warning : (*core)->OpenWarnings()) {
    options_.log.ForCollection(settings.name).Warning(warning);
  }
  auto closed = std::make_shared<absl::Notification>();
  // The last handle closes the core, then its store, then tells Close.
  std::shared_ptr<Frontier> handle(
      core->release(), [store = std::move(shared_store), closed](Frontier* frontier) mutable {
        delete frontier;
        store.reset();
        closed->Notify();
      });
  return Collection{.settings = settings,
                    .layout = layout,
                    .core = std::move(handle),
                    .closed = std::move(closed)};
}

void FrontierHost::Close(Collection& collection) {
  if (collection.core == nullptr) return;
  collection.core.reset();
  collection.closed->WaitForNotification();
}

absl::StatusOr<bool> FrontierHost::OpenCollection(const CollectionSettings& collection,
                                                  const partition::PartitionLayout& layout) {
  if (absl::Status s = ValidateCollectionName(collection.name); !s.ok()) return s;
  if (absl::Status s = partition::ValidateLayout(layout, options_.partition_index); !s.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "partition_count: the scheduler routes by ", layout.Describe(),
        "; this frontier serves partition ", options_.partition_index, ": ", s.message()));
  }
  absl::MutexLock lock(&mu_);
  const fs::path dir = CollectionDir(collection.name);
  auto it = collections_.find(collection.name);
  if (it != collections_.end() && layout.epoch < it->second.layout.epoch) {
    return absl::FailedPreconditionError(absl::StrCat(
        "partition layout ", layout.epoch, " (", layout.Describe(), ") is older than layout ",
        it->second.layout.epoch, " (", it->second.layout.Describe(), ") held here"));
  }
  if (it != collections_.end() && it->second.settings == collection) {
    if (it->second.layout == layout) return false;
    // A reshard's step: the core routes by the new layout from now on, its queues untouched.
    if (absl::Status s = WriteSettings(dir, collection, layout); !s.ok()) return s;
    if (absl::Status s = it->second.core->SetLayout(layout); !s.ok()) {
      (void)WriteSettings(dir, collection, it->second.layout);
      return s;
    }
    it->second.layout = layout;
    return true;
  }
  if (it != collections_.end() && it->second.settings.generation != 0 &&
      collection.generation != 0 && it->second.settings.generation != collection.generation) {
    // Deleted and created again while this partition missed the drop: the new collection
    // starts from an empty store, never from the old one's URLs and leases.
    Close(it->second);
    collections_.erase(it);
    it = collections_.end();
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (ec) {
      return absl::UnavailableError(
          absl::StrCat("cannot delete ", dir.string(), ": ", ec.message()));
    }
  }
  if (it != collections_.end() && collection.focus.enabled && collection.max_pages.has_value()) {
    // A focused collection's page budget moves every few seconds (the scheduler's split by
    // reward; 0 for a partition that is to fetch nothing more): applied in place, since
    // reopening would restart the bandit's game.
    CollectionSettings same_budget = it->second.settings;
    same_budget.max_pages = collection.max_pages;
    if (same_budget == collection) {
      if (absl::Status s = WriteSettings(dir, collection, layout); !s.ok()) return s;
      if (absl::Status s = it->second.core->SetPageBudget(*collection.max_pages); !s.ok()) {
        return s;
      }
      if (absl::Status s = it->second.core->SetLayout(layout); !s.ok()) return s;
      it->second.settings = collection;
      it->second.layout = layout;
      return true;
    }
  }
  if (absl::Status s = ValidateFrontierOptions(
          WithCollection(options_.base, collection, options_.partition_index, layout));
      !s.ok()) {
    return s;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot create ", dir.string(), ": ", ec.message()));
  }
  // Settings first: once they are on disk a restart opens the collection with them, and a
  // failed write changes nothing.
  if (absl::Status s = WriteSettings(dir, collection, layout); !s.ok()) return s;

  if (it == collections_.end()) {
    absl::StatusOr<Collection> opened = OpenCore(collection, layout);
    if (!opened.ok()) {
      fs::remove_all(dir, ec);
      return opened.status();
    }
    collections_.emplace(collection.name, *std::move(opened));
    return true;
  }
  Collection& current = it->second;
  Close(current);
  absl::StatusOr<Collection> reopened = OpenCore(collection, layout);
  if (reopened.ok()) {
    current = *std::move(reopened);
    return true;
  }
  // Back to the settings it ran with; if even that fails, the collection is gone from this
  // server until the next OpenCollection.
  absl::Status restored = WriteSettings(dir, current.settings, current.layout);
  absl::StatusOr<Collection> previous = OpenCore(current.settings, current.layout);
  if (restored.ok() && previous.ok()) {
    current = *std::move(previous);
  } else {
    collections_.erase(it);
  }
  return reopened.status();
}

absl::StatusOr<bool> FrontierHost::DropCollection(std::string_view name) {
  if (absl::Status s = ValidateCollectionName(name); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  bool dropped = false;
  if (auto it = collections_.find(name); it != collections_.end()) {
    Close(it->second);
    collections_.erase(it);
    dropped = true;
  }
  // Also a directory left by an OpenCollection that failed half-way.
  const std::string dir = CollectionDir(name);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot delete ", dir, ": ", ec.message()));
  return dropped;
}

std::shared_ptr<Frontier> FrontierHost::Find(std::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = collections_.find(name);
  return it == collections_.end() ? nullptr : it->second.core;
}

FrontierHost::Held FrontierHost::FindHeld(std::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = collections_.find(name);
  if (it == collections_.end()) return {};
  return {.core = it->second.core, .generation = it->second.settings.generation};
}

absl::StatusOr<CollectionSettings> FrontierHost::Settings(std::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = collections_.find(name);
  if (it == collections_.end()) {
    return absl::NotFoundError(
        absl::StrCat("collection ", std::string(name), " is not on this frontier"));
  }
  return it->second.settings;
}

std::vector<std::string> FrontierHost::Names() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  names.reserve(collections_.size());
  for (const auto& [name, collection] : collections_) names.push_back(name);
  return names;
}

std::vector<std::shared_ptr<Frontier>> FrontierHost::Cores() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<Frontier>> cores;
  cores.reserve(collections_.size());
  for (const auto& [name, collection] : collections_) cores.push_back(collection.core);
  return cores;
}

}  // namespace crawler::frontier
