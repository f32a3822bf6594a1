#include "services/scheduler/resharder.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/partition/partition.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/host_move_client.h"

namespace crawler::scheduler {
namespace {

constexpr char kFamily[] = "partitions";
constexpr char kStatusKey[] = "reshard";

int64_t Micros(absl::Time t) { return t == absl::InfinitePast() ? 0 : absl::ToUnixMicros(t); }
absl::Time FromMicros(int64_t us) { return us == 0 ? absl::InfinitePast() : absl::FromUnixMicros(us); }

// One line of space-separated integers: a version, then the fields in this order.
std::string Encode(const ReshardStatus& s) {
  return absl::StrCat("1 ", s.layout.epoch, " ", s.layout.count, " ", s.layout.reshard_to, " ",
                      s.layout.resharded_from, " ", s.from, " ", s.to, " ", Micros(s.started),
                      " ", Micros(s.flipped), " ", Micros(s.finished), " ", s.hosts_moved, " ",
                      s.urls_moved, " ", s.held_delivered);
}

absl::StatusOr<ReshardStatus> Decode(const std::string& value) {
  const std::vector<std::string> parts = absl::StrSplit(value, ' ');
  std::vector<int64_t> n;
  for (const std::string& part : parts) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(part, &v)) break;
    n.push_back(v);
  }
  if (n.size() != 13 || n[0] != 1 || n[2] < 1) {
    return absl::DataLossError(absl::StrCat("the partition layout record is corrupt: ", value));
  }
  ReshardStatus s;
  s.layout = {.epoch = static_cast<uint64_t>(n[1]),
              .count = static_cast<uint32_t>(n[2]),
              .reshard_to = static_cast<uint32_t>(n[3]),
              .resharded_from = static_cast<uint32_t>(n[4])};
  s.from = static_cast<uint32_t>(n[5]);
  s.to = static_cast<uint32_t>(n[6]);
  s.started = FromMicros(n[7]);
  s.flipped = FromMicros(n[8]);
  s.finished = FromMicros(n[9]);
  s.hosts_moved = static_cast<uint64_t>(n[10]);
  s.urls_moved = static_cast<uint64_t>(n[11]);
  s.held_delivered = static_cast<uint64_t>(n[12]);
  if (absl::Status valid = partition::ValidateLayout(s.layout); !valid.ok()) {
    return absl::DataLossError(absl::StrCat("the partition layout record: ", valid.message()));
  }
  return s;
}

ReshardStatus::Phase PhaseOf(const partition::PartitionLayout& layout) {
  if (layout.moving()) return ReshardStatus::Phase::kMoving;
  if (layout.resharded_from != 0) return ReshardStatus::Phase::kSettling;
  return ReshardStatus::Phase::kSteady;
}

}  // namespace

const char* PhaseName(ReshardStatus::Phase phase) {
  switch (phase) {
    case ReshardStatus::Phase::kSteady:
      return "steady";
    case ReshardStatus::Phase::kMoving:
      return "moving";
    case ReshardStatus::Phase::kSettling:
      return "settling";
    case ReshardStatus::Phase::kBlocked:
      return "blocked";
  }
  return "unknown";
}

std::vector<kv::ColumnFamilySpec> Resharder::ColumnFamilies() { return {{.name = kFamily}}; }

absl::StatusOr<ReshardStatus> Resharder::Load(kv::KvStore& store, uint32_t partitions) {
  absl::StatusOr<std::string> value = store.Get(kFamily, kStatusKey);
  if (absl::IsNotFound(value.status())) {
    ReshardStatus fresh;
    fresh.layout.count = std::max<uint32_t>(1, partitions);
    return fresh;
  }
  if (!value.ok()) return value.status();
  absl::StatusOr<ReshardStatus> status = Decode(*value);
  if (!status.ok()) return status.status();
  status->phase = PhaseOf(status->layout);
  return status;
}

Resharder::Resharder(const ResharderOptions& options, ReshardStatus loaded, kv::KvStore& store,
                     PartitionFleet& fleet, CollectionManager& manager, const Clock& clock)
    : options_(options),
      store_(store),
      fleet_(fleet),
      manager_(manager),
      clock_(clock),
      status_(std::move(loaded)) {}

absl::StatusOr<std::unique_ptr<Resharder>> Resharder::Open(const ResharderOptions& options,
                                                           ReshardStatus loaded,
                                                           kv::KvStore& store,
                                                           PartitionFleet& fleet,
                                                           CollectionManager& manager,
                                                           const Clock& clock) {
  if (options.partitions < 1 || options.partitions > 65536) {
    return absl::InvalidArgumentError("partitions must be in [1, 65536]");
  }
  if (options.hosts_per_tick < 1 || options.chunk_urls < 1) {
    return absl::InvalidArgumentError("hosts_per_tick and chunk_urls must be at least 1");
  }
  std::unique_ptr<Resharder> resharder(
      new Resharder(options, loaded, store, fleet, manager, clock));
  // The fleet routes by the stored layout first; a change of count starts at the first tick,
  // or when the reshard under way is done.
  if (absl::Status s = resharder->Commit(loaded); !s.ok()) return s;
  return resharder;
}

bool Resharder::BeginIfWanted(ReshardStatus& status, absl::Time now) {
  const partition::PartitionLayout layout = status.layout;
  if (layout.moving() || layout.resharded_from != 0 || layout.count == options_.partitions) {
    return false;
  }
  for (const CollectionManager::LiveCollection& live : manager_.LiveCollections()) {
    if (!live.focused) continue;
    const std::string reason =
        absl::StrCat("collection ", live.name, " is focused: its hosts do not move");
    if (status.phase != ReshardStatus::Phase::kBlocked) {
      options_.log.Warning("resharding to ", options_.partitions, " partitions waits: ", reason);
    }
    status.phase = ReshardStatus::Phase::kBlocked;
    status.blocked_reason = reason;
    absl::MutexLock lock(&mu_);
    status_ = status;
    return false;
  }
  ReshardStatus next;
  next.layout = {.epoch = layout.epoch + 1, .count = layout.count, .reshard_to = options_.partitions};
  next.phase = ReshardStatus::Phase::kMoving;
  next.from = layout.count;
  next.to = options_.partitions;
  next.started = now;
  options_.log.Info("resharding: ", layout.Describe(), " -> ", options_.partitions,
                    " partitions (layout ", next.layout.epoch, ")");
  if (absl::Status s = Commit(next); !s.ok()) {
    options_.log.Warning("resharding cannot start: ", s.message());
    return false;
  }
  status = next;
  return true;
}

absl::Status Resharder::Commit(const ReshardStatus& status) {
  kv::WriteBatch batch;
  batch.Put(kFamily, kStatusKey, Encode(status));
  if (absl::Status s = store_.Write(batch); !s.ok()) return s;
  if (!(fleet_.layout() == status.layout)) {
    if (absl::Status s = manager_.SetLayout(status.layout); !s.ok()) return s;
  }
  absl::MutexLock lock(&mu_);
  status_ = status;
  return absl::OkStatus();
}

ReshardStatus Resharder::Status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

absl::StatusOr<uint64_t> Resharder::MoveHost(const std::string& collection, uint32_t k,
                                             const std::string& host) {
  frontier::HostMoveClient& from = fleet_.HostMove(k, collection);
  absl::StatusOr<uint32_t> leased = from.BeginHostMove(host);
  if (!leased.ok()) return leased.status();
  if (*leased > 0) {
    return absl::UnavailableError(absl::StrCat(host, ": ", *leased, " URL(s) on lease"));
  }
  const partition::PartitionLayout layout = fleet_.layout();
  frontier::HostMoveClient& to = fleet_.HostMove(layout.NewOwner(host), collection);
  uint64_t urls = 0;
  std::string after;
  // Bounded: a chunk holds at least one URL, a host at most what its partition holds.
  for (;;) {
    absl::StatusOr<frontier::HostChunk> chunk = from.ExportHost(host, after, options_.chunk_urls);
    if (!chunk.ok()) return chunk.status();
    urls += chunk->urls.size();
    if (absl::Status s = to.ImportHost(*chunk); !s.ok() && !absl::IsAlreadyExists(s)) return s;
    if (chunk->next.empty()) break;
    after = chunk->next;
  }
  absl::StatusOr<uint64_t> forgotten = from.ForgetHost(host);
  if (!forgotten.ok()) return forgotten.status();
  return urls;
}

size_t Resharder::MoveHosts(const std::string& collection, uint32_t k, size_t budget, Pass& pass,
                            ReshardStatus& status) {
  frontier::HostMoveClient& from = fleet_.HostMove(k, collection);
  // With the tick's budget spent, the page is only read for its total.
  absl::StatusOr<frontier::HostsToMove> page = from.ListHostsToMove(0, std::max<size_t>(budget, 1));
  if (!page.ok()) {
    pass.complete = false;
    ++pass.unreachable;
    return 0;
  }
  size_t moved = 0;
  uint64_t left = page->total;
  for (const std::string& host : page->host_keys) {
    if (moved >= budget) break;
    absl::StatusOr<uint64_t> urls = MoveHost(collection, k, host);
    if (!urls.ok()) {
      // Waiting for leases, for the layout to reach a partition (its next push), or for a
      // partition that is away: tried again next tick. Anything else is said.
      if (!absl::IsUnavailable(urls.status()) && !absl::IsFailedPrecondition(urls.status()) &&
          !absl::IsNotFound(urls.status()) && !absl::IsDeadlineExceeded(urls.status())) {
        options_.log.ForCollection(collection).Warning("moving host ", host, " off partition ",
                                                       k, ": ", urls.status().message());
      }
      continue;
    }
    ++moved;
    --left;
    ++status.hosts_moved;
    status.urls_moved += *urls;
  }
  pass.hosts_left += left;
  return moved;
}

void Resharder::DeliverHeld(const std::string& collection, uint32_t k, Pass& pass,
                            ReshardStatus& status) {
  frontier::HostMoveClient& from = fleet_.HostMove(k, collection);
  const partition::PartitionLayout layout = fleet_.layout();
  uint64_t after = 0;
  // Bounded per tick: a few pages; what is left waits for the next tick.
  for (int page_number = 0; page_number < 8; ++page_number) {
    absl::StatusOr<frontier::HeldUrls> page = from.ListHeldUrls(after, options_.chunk_urls);
    if (!page.ok()) {
      pass.complete = false;
      ++pass.unreachable;
      return;
    }
    std::map<uint32_t, std::vector<frontier::UrlToAdd>> by_owner;
    std::vector<uint64_t> seqs;
    for (frontier::HeldUrl& held : page->urls) {
      by_owner[layout.NewOwner(held.url.host_key)].push_back(std::move(held.url));
      seqs.push_back(held.seq);
    }
    bool delivered = true;
    for (auto& [owner, urls] : by_owner) {
      absl::StatusOr<frontier::AddResult> added =
          fleet_.Partition(owner, collection).AddUrls(urls);
      if (!added.ok()) {
        delivered = false;
        pass.complete = false;
        break;
      }
    }
    if (delivered && !seqs.empty() && from.DeleteHeldUrls(seqs).ok()) {
      status.held_delivered += seqs.size();
      page->total -= std::min<uint64_t>(page->total, seqs.size());
    }
    if (!delivered || page->next == 0) {
      pass.held += page->total;
      return;
    }
    after = page->next;
  }
  pass.complete = false;  // more pages than a tick takes
}

void Resharder::Tick(absl::Time now) {
  ReshardStatus status = Status();
  if (status.layout.count != options_.partitions) BeginIfWanted(status, now);
  const partition::PartitionLayout layout = status.layout;
  if (!layout.moving() && layout.resharded_from == 0) return;
  const std::vector<CollectionManager::LiveCollection> collections = manager_.LiveCollections();
  if (layout.moving()) {
    for (const CollectionManager::LiveCollection& live : collections) {
      if (!live.focused) continue;
      const std::string reason =
          absl::StrCat("collection ", live.name, " is focused: its hosts do not move");
      if (status.phase != ReshardStatus::Phase::kBlocked) {
        options_.log.Warning("resharding waits: ", reason);
      }
      absl::MutexLock lock(&mu_);
      status_.phase = ReshardStatus::Phase::kBlocked;
      status_.blocked_reason = reason;
      return;
    }
  }
  Pass pass;
  size_t budget = options_.hosts_per_tick;
  for (const CollectionManager::LiveCollection& live : collections) {
    if (!live.layout_pushed) {
      // Its partitions answer by the layout they hold: not yet this one.
      pass.complete = false;
      continue;
    }
    for (uint32_t k = 0; k < layout.Span(); ++k) {
      if (layout.moving()) budget -= std::min(budget, MoveHosts(live.name, k, budget, pass, status));
      DeliverHeld(live.name, k, pass, status);
    }
  }
  status.hosts_left = pass.hosts_left;
  status.held_urls = pass.held;
  status.partitions_unreachable = pass.unreachable;
  status.phase = PhaseOf(layout);
  status.blocked_reason.clear();
  const bool clear = pass.complete && pass.hosts_left == 0 && pass.held == 0;
  ReshardStatus next = status;
  if (layout.moving() && clear) {
    next.layout = {.epoch = layout.epoch + 1,
                   .count = layout.reshard_to,
                   .resharded_from = layout.count};
    next.flipped = now;
    options_.log.Info("resharding: every host moved (", status.hosts_moved, " hosts, ",
                      status.urls_moved, " URLs); routing by ", next.layout.count,
                      " partitions (layout ", next.layout.epoch, ")");
  } else if (layout.resharded_from != 0 && clear && now - status.flipped >= options_.settle) {
    next.layout = {.epoch = layout.epoch + 1, .count = layout.count};
    next.finished = now;
    options_.log.Info("resharding done: ", next.layout.count, " partitions, ",
                      status.hosts_moved, " hosts and ", status.urls_moved, " URLs moved in ",
                      absl::FormatDuration(absl::Trunc(now - status.started, absl::Seconds(1))));
  }
  next.phase = PhaseOf(next.layout);
  if (now - last_progress_log_ >= kProgressLogInterval && layout.moving()) {
    last_progress_log_ = now;
    const double seconds = std::max(1.0, absl::ToDoubleSeconds(now - status.started));
    options_.log.Info("resharding to ", layout.reshard_to, " partitions: ", status.hosts_moved,
                      " hosts and ", status.urls_moved, " URLs moved (",
                      static_cast<uint64_t>(status.hosts_moved / seconds), " hosts/s), ",
                      pass.hosts_left, " hosts left, ", pass.held, " URLs held",
                      pass.unreachable > 0 ? absl::StrCat(", ", pass.unreachable,
                                                          " partition calls failed")
                                           : std::string());
  }
  if (next.layout == layout) {
    // Progress only: persisted so a restart keeps the counts.
    if (absl::Status s = Commit(next); !s.ok()) {
      options_.log.Warning("resharding: cannot keep its progress: ", s.message());
    }
    return;
  }
  if (absl::Status s = Commit(next); !s.ok()) {
    options_.log.Warning("resharding: cannot change the partition layout: ", s.message());
  }
}

}  // namespace crawler::scheduler
