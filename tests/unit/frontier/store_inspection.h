// StoreInspection: reads a frontier's column families directly, so tests can check where every
// URL is on disk independently of the Frontier's own counters.
#ifndef CRAWLER_TESTS_UNIT_FRONTIER_STORE_INSPECTION_H_
#define CRAWLER_TESTS_UNIT_FRONTIER_STORE_INSPECTION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "services/common/kv/kv_store.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

struct StoreInspection {
  std::vector<std::string> queued;   // URLs in frontier.queue, in key order (leased included)
  std::vector<std::string> leased;   // URLs in frontier.leases (lease marks, or entries moved there by older versions)
  std::vector<std::string> waiting;  // URLs in frontier.due
  std::map<std::string, UrlRecord> records;
  std::map<std::string, storage::HostRecord> hosts;
  // Sums over `hosts`: what the host records say the queue holds, and how much of it is leased.
  uint64_t hosts_queued = 0;
  uint64_t hosts_leased = 0;
  // frontier.meta's count of URLs out on lease; nullopt when the store has none.
  std::optional<uint64_t> leases_out;
};

inline StoreInspection Inspect(const kv::KvStore& store) {
  StoreInspection out;
  auto scan = [&store](std::string_view cf, auto&& visit) {
    absl::StatusOr<std::unique_ptr<kv::KvIterator>> it = store.NewIterator(cf, "", "");
    ASSERT_TRUE(it.ok()) << it.status();
    for (; (*it)->Valid(); (*it)->Next()) visit((*it)->key(), (*it)->value());
    ASSERT_TRUE((*it)->status().ok());
  };
  scan(storage::kQueueFamily, [&](std::string_view, std::string_view value) {
    absl::StatusOr<storage::QueueEntry> entry = storage::DecodeQueueValue(value);
    ASSERT_TRUE(entry.ok()) << entry.status();
    out.queued.push_back(entry->url);
  });
  scan(storage::kLeasesFamily, [&](std::string_view, std::string_view value) {
    absl::StatusOr<storage::LeaseRecord> lease = storage::DecodeLeaseRecord(value);
    ASSERT_TRUE(lease.ok()) << lease.status();
    out.leased.push_back(lease->url);
  });
  scan(storage::kDueFamily, [&](std::string_view key, std::string_view) {
    absl::StatusOr<storage::DueKeyParts> parts = storage::DecodeDueKey(key);
    ASSERT_TRUE(parts.ok()) << parts.status();
    out.waiting.emplace_back(parts->url);
  });
  scan(storage::kUrlsFamily, [&](std::string_view key, std::string_view value) {
    absl::StatusOr<UrlRecord> record = storage::DecodeUrlRecord(value);
    ASSERT_TRUE(record.ok()) << record.status();
    out.records.emplace(std::string(key), *record);
  });
  scan(storage::kHostsFamily, [&](std::string_view key, std::string_view value) {
    absl::StatusOr<storage::HostRecord> host = storage::DecodeHostRecord(value);
    ASSERT_TRUE(host.ok()) << host.status();
    out.hosts_queued += host->queued;
    out.hosts_leased += host->leased;
    out.hosts.emplace(std::string(key), *host);
  });
  scan(storage::kMetaFamily, [&](std::string_view key, std::string_view value) {
    if (key != storage::kMetaLeasesOutKey) return;
    absl::StatusOr<uint64_t> count = storage::DecodeFixed64(value);
    ASSERT_TRUE(count.ok()) << count.status();
    out.leases_out = *count;
  });
  return out;
}

}  // namespace crawler::frontier

#endif  // CRAWLER_TESTS_UNIT_FRONTIER_STORE_INSPECTION_H_
