// Frontier::Open's recovery (docs/architecture.md §4): host headers, counters and leases rebuilt
// from the store after a restart or a crash. Split from frontier.cc only for size; the class
// contract is in frontier.h.
#include "services/frontier/frontier.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/recrawl/rate_histogram.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/frontier/frontier_internal.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

using internal::kMaxUrlsPerInternalBatch;
using internal::SaturatingSub;

// ---- recovery ----------------------------------------------------------------------------

absl::Status Frontier::CheckFormatVersionLocked() {
  absl::StatusOr<std::string> version =
      store_.Get(storage::kMetaFamily, storage::kMetaFormatVersionKey);
  if (absl::IsNotFound(version.status())) {
    kv::WriteBatch batch;
    batch.Put(storage::kMetaFamily, storage::kMetaFormatVersionKey,
              storage::EncodeFixed64(storage::kFormatVersion));
    if (absl::Status status = store_.Write(batch); !status.ok()) return status;
  } else if (!version.ok()) {
    return version.status();
  } else {
    absl::StatusOr<uint64_t> number = storage::DecodeFixed64(*version);
    if (!number.ok()) return number.status();
    if (*number != storage::kFormatVersion) {
      return absl::FailedPreconditionError(
          absl::StrCat("frontier storage format version ", *number, " is not supported (this ",
                       "binary reads version ", storage::kFormatVersion, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status Frontier::RecoverRevisitFleetLocked() {
  if (absl::StatusOr<std::string> rates =
          store_.Get(storage::kMetaFamily, storage::kMetaRevisitRatesKey);
      rates.ok()) {
    absl::StatusOr<recrawl::RateHistogram> decoded = recrawl::RateHistogram::Decode(*rates);
    if (decoded.ok()) {
      revisit_fleet_.rates = *std::move(decoded);
    } else {
      // A summary of the URL records: rebuilt from them rather than refusing to open.
      absl::StatusOr<RevisitSummaries> rebuilt = RebuildRevisitSummariesLocked();
      if (!rebuilt.ok()) return rebuilt.status();
      revisit_fleet_.rates = std::move(rebuilt->rates);
      kv::WriteBatch batch;
      batch.Put(storage::kMetaFamily, storage::kMetaRevisitRatesKey,
                revisit_fleet_.rates.Encode());
      if (absl::Status status = store_.Write(batch); !status.ok()) return status;
      open_warnings_.push_back(absl::StrCat(
          "frontier: the re-visit rate histogram did not decode (", decoded.status().message(),
          "); rebuilt from the URL records (", revisit_fleet_.rates.page_count(), " pages)"));
    }
  } else if (!absl::IsNotFound(rates.status())) {
    return rates.status();
  }
  if (absl::StatusOr<std::string> observed =
          store_.Get(storage::kMetaFamily, storage::kMetaRevisitObservationsKey);
      observed.ok()) {
    absl::StatusOr<std::pair<double, double>> decoded =
        storage::DecodeRevisitObservations(*observed);
    if (!decoded.ok()) return decoded.status();
    revisit_fleet_.changes_seen = decoded->first;
    revisit_fleet_.days_observed = decoded->second;
  } else if (!absl::IsNotFound(observed.status())) {
    return observed.status();
  }
  return RecoverRevisitEvidenceLocked();
}

absl::Status Frontier::Recover() {
  for (const kv::ColumnFamilySpec& spec : ColumnFamilies()) {
    if (!store_.HasColumnFamily(spec.name)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "store lacks column family '", spec.name, "' (open it with Frontier::ColumnFamilies())"));
    }
  }

  if (absl::Status status = CheckFormatVersionLocked(); !status.ok()) return status;

  auto read_counter = [this](std::string_view key, uint64_t absent) -> absl::StatusOr<uint64_t> {
    absl::StatusOr<std::string> value = store_.Get(storage::kMetaFamily, key);
    if (absl::IsNotFound(value.status())) return absent;
    if (!value.ok()) return value.status();
    return storage::DecodeFixed64(*value);
  };
  absl::StatusOr<uint64_t> next_host_id = read_counter(storage::kMetaNextHostIdKey, 0);
  if (!next_host_id.ok()) return next_host_id.status();
  absl::StatusOr<uint64_t> next_lease_id = read_counter(storage::kMetaNextLeaseIdKey, 1);
  if (!next_lease_id.ok()) return next_lease_id.status();
  next_lease_id_ = std::max<uint64_t>(*next_lease_id, 1);
  absl::StatusOr<uint64_t> leases_out = read_counter(storage::kMetaLeasesOutKey, kUnknownLeasesOut);
  if (!leases_out.ok()) return leases_out.status();
  leases_out_stored_ = *leases_out;
  if (absl::Status status = RecoverRevisitFleetLocked(); !status.ok()) return status;

  // Host records, then a check that their ids are exactly 0..n-1 as the counter says.
  std::vector<std::pair<storage::HostRecord, std::string>> records;
  {
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
        store_.NewIterator(storage::kHostsFamily, "", "");
    if (!it.ok()) return it.status();
    for (; (*it)->Valid(); (*it)->Next()) {
      absl::StatusOr<storage::HostRecord> record = storage::DecodeHostRecord((*it)->value());
      if (!record.ok()) return record.status();
      records.emplace_back(*record, std::string((*it)->key()));
    }
    if (absl::Status status = (*it)->status(); !status.ok()) return status;
  }
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.first.host_id < b.first.host_id; });
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].first.host_id != i) {
      return absl::DataLossError(absl::StrCat("frontier host record ", i, " is missing"));
    }
  }
  if (records.size() != *next_host_id || records.size() > std::numeric_limits<uint32_t>::max()) {
    return absl::DataLossError(absl::StrCat("frontier has ", records.size(),
                                            " host records but assigned ", *next_host_id));
  }
  // The leases of the previous process are void unless RecoverLeasesLocked restores them: their
  // URLs are queued again (their entries never left the queue), where the cursors start
  // (HostTable::FromRecord). How many there were is the meta family's count, or in a store of
  // an earlier version the sum of the host records' counts. Host records that still count
  // leases are rewritten (with none), so that their cursors hold again.
  std::vector<uint32_t> with_leases;
  uint64_t leased = 0;
  for (auto& [record, key] : records) {
    const uint32_t index = hosts_.Add(key);
    hosts_.Set(index, HostTable::FromRecord(record));
    if (!record.controls.IsDefault()) hosts_.SetControls(index, record.controls);
    if (record.leased > 0) {
      leased += std::min(record.leased, record.queued);
      with_leases.push_back(index);
    }
  }
  if (leases_out_stored_ != kUnknownLeasesOut) {
    leased = std::min(leases_out_stored_, hosts_.totals().queued);
  }
  if (!with_leases.empty()) {
    kv::WriteBatch batch;
    for (const uint32_t index : with_leases) {
      batch.Put(storage::kHostsFamily, hosts_.key(index),
                storage::EncodeHostRecord(hosts_.ToRecord(index, hosts_.state(index))));
    }
    if (absl::Status status = store_.Write(batch); !status.ok()) return status;
  }
  if (absl::Status status = RecoverReshardLocked(); !status.ok()) return status;
  return RecoverLeasesLocked(leased);
}

absl::Status Frontier::RecoverLeasesLocked(uint64_t leased) {
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
      store_.NewIterator(storage::kLeasesFamily, "", "");
  if (!it.ok()) return it.status();
  const absl::Time now = clock_.Now();
  const absl::Time restore_until = now + options_.restored_lease_grace;
  struct Restored {
    LeaseId id;
    uint32_t host;
    storage::QueuePos pos;
    std::string url;
    absl::Time until;
  };
  std::vector<Restored> restored;
  auto staging = std::make_unique<Staging>(hosts_);
  kv::WriteBatch batch;
  size_t in_batch = 0;
  const bool restoring = options_.restored_lease_grace > absl::ZeroDuration();
  for (; (*it)->Valid(); (*it)->Next()) {
    absl::StatusOr<uint64_t> lease_id = storage::DecodeLeaseKey((*it)->key());
    absl::StatusOr<storage::LeaseRecord> lease = storage::DecodeLeaseRecord((*it)->value());
    const bool known = lease_id.ok() && lease.ok() && lease->host_id < hosts_.size();
    if (known && lease->in_queue && restoring && lease->deadline > now) {
      // A mark whose deadline is ahead: the lease is restored if its queue entry is there (the
      // mark and the entry go in the same batch, so only a damaged store lacks it). Its id is
      // below the stored next lease id, written in the same Lease batch as the mark.
      absl::StatusOr<std::string> entry =
          store_.Get(storage::kQueueFamily, storage::QueueKey(lease->host_id, lease->pos));
      if (!entry.ok() && !absl::IsNotFound(entry.status())) return entry.status();
      HostState& state = staging->State(static_cast<uint32_t>(lease->host_id));
      if (entry.ok() && state.queued > 0) {
        --state.queued;
        ++state.in_flight;
        restored.push_back({*lease_id, static_cast<uint32_t>(lease->host_id), lease->pos,
                            std::move(lease->url), std::min(lease->deadline, restore_until)});
        continue;  // the mark stays until the lease ends
      }
    }
    batch.Delete(storage::kLeasesFamily, (*it)->key());
    if (!known) {
      // Nothing to put back: the URL is unknown. Dropping the entry keeps the crawl going.
      ++counters_.repairs;
    } else if (!lease->in_queue) {
      // Written by a version that moved leased URLs out of their queues: put it back.
      next_lease_id_ = std::max(next_lease_id_, *lease_id + 1);
      batch.Put(storage::kQueueFamily, storage::QueueKey(lease->host_id, lease->pos),
                storage::EncodeQueueValue(lease->flags, lease->url));
      HostState& state = staging->State(static_cast<uint32_t>(lease->host_id));
      ++state.queued;
      state.cursor = std::min(state.cursor, lease->pos);
      ++counters_.leases_recovered;
    }
    // A mark not restored: its URL is still queued and is leased again (counted in `leased`).
    if (++in_batch == kMaxUrlsPerInternalBatch) {
      if (absl::Status status = CommitLocked(batch, *staging); !status.ok()) return status;
      batch.Clear();
      staging = std::make_unique<Staging>(hosts_);
      in_batch = 0;
    }
  }
  if (absl::Status status = (*it)->status(); !status.ok()) return status;
  if (absl::Status status = CommitLocked(batch, *staging); !status.ok()) return status;
  const absl::Duration monotonic_now = clock_.MonotonicNow();
  for (Restored& r : restored) {
    leases_.Add(r.id, LeaseTable::Lease{.host = r.host,
                                        .pos = r.pos,
                                        .url = std::move(r.url),
                                        .monotonic_deadline = monotonic_now + (r.until - now),
                                        .marked = true});
  }
  counters_.leases_restored += restored.size();
  counters_.leases_recovered += SaturatingSub(leased, restored.size());
  return absl::OkStatus();
}

}  // namespace crawler::frontier
