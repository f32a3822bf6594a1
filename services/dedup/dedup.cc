#include "services/dedup/dedup.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "services/common/kv/write_batch.h"

namespace crawler::dedup {
namespace {

// On-disk format (docs/storage-format.md, "dedup"). Changing it requires a version bump.
constexpr std::string_view kExactFamily = "dedup.exact";
constexpr std::string_view kSimHashFamily = "dedup.simhash";
constexpr std::string_view kLinksFamily = "dedup.links";
constexpr uint8_t kOriginalVersion = 1;
constexpr int kBlocks = 4;                 // 16-bit blocks: supports near_duplicate_bits <= 3
constexpr size_t kSimHashPrefixBytes = 3;  // block index + block value

void PutFixed(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t GetFixed(std::string_view in, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(in[pos + i]);
  return v;
}

std::string ExactKey(const fingerprint::ContentKey& key) {
  const std::array<uint8_t, 16> bytes = key.ToBytes();
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

uint16_t Block(fingerprint::SimHash64 h, int i) {
  return static_cast<uint16_t>(h.bits() >> (16 * (kBlocks - 1 - i)));
}

std::string SimHashPrefix(int block_index, uint16_t block) {
  std::string key;
  PutFixed(key, static_cast<uint64_t>(block_index), 1);
  PutFixed(key, block, 2);
  return key;
}

std::string SimHashKey(int block_index, fingerprint::SimHash64 h,
                       const fingerprint::ContentKey& content) {
  std::string key = SimHashPrefix(block_index, Block(h, block_index));
  PutFixed(key, h.bits(), 8);
  key += ExactKey(content);
  return key;
}

std::string EncodeOriginal(const Original& o) {
  std::string out;
  PutFixed(out, kOriginalVersion, 1);
  PutFixed(out, static_cast<uint64_t>(absl::ToUnixMicros(o.fetch_time)), 8);
  for (const std::string* s : {&o.url, &o.warc_record_id, &o.payload_digest}) {
    PutFixed(out, s->size(), 4);
    out += *s;
  }
  return out;
}

absl::StatusOr<Original> DecodeOriginal(std::string_view in) {
  if (in.size() < 9 || static_cast<uint8_t>(in[0]) != kOriginalVersion) {
    return absl::DataLossError("dedup.exact: unknown record version");
  }
  Original o;
  o.fetch_time = absl::FromUnixMicros(static_cast<int64_t>(GetFixed(in, 1, 8)));
  size_t pos = 9;
  for (std::string* s : {&o.url, &o.warc_record_id, &o.payload_digest}) {
    if (pos + 4 > in.size()) return absl::DataLossError("dedup.exact: truncated record");
    const uint64_t len = GetFixed(in, pos, 4);
    pos += 4;
    if (len > in.size() - pos) return absl::DataLossError("dedup.exact: truncated record");
    s->assign(in.substr(pos, len));
    pos += len;
  }
  return o;
}

}  // namespace

absl::Status DedupOptions::Validate() const {
  if (near_duplicate_bits < 0 || near_duplicate_bits > kBlocks - 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("near_duplicate_bits must be in [0, ", kBlocks - 1, "]"));
  }
  return absl::OkStatus();
}

std::vector<kv::ColumnFamilySpec> Dedup::ColumnFamilies() {
  return {{.name = std::string(kExactFamily)},
          {.name = std::string(kSimHashFamily), .scan_prefix_bytes = kSimHashPrefixBytes},
          {.name = std::string(kLinksFamily)}};
}

absl::StatusOr<std::unique_ptr<Dedup>> Dedup::Open(const DedupOptions& options,
                                                   kv::KvStore& store) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  for (const kv::ColumnFamilySpec& cf : ColumnFamilies()) {
    if (!store.HasColumnFamily(cf.name)) {
      return absl::InvalidArgumentError(absl::StrCat("store lacks column family ", cf.name));
    }
  }
  return std::unique_ptr<Dedup>(new Dedup(options, store));
}

absl::StatusOr<std::optional<Original>> Dedup::LookupExact(
    const fingerprint::ContentKey& key) const {
  absl::StatusOr<std::string> value = store_.Get(kExactFamily, ExactKey(key));
  if (absl::IsNotFound(value.status())) return std::nullopt;
  if (!value.ok()) return value.status();
  absl::StatusOr<Original> original = DecodeOriginal(*value);
  if (!original.ok()) return original.status();
  return *std::move(original);
}

absl::StatusOr<std::vector<std::optional<std::string>>> Dedup::StoredOriginals(
    const std::vector<ContentQuery>& queries, std::vector<std::string>& exact_keys) const {
  exact_keys.clear();
  exact_keys.reserve(queries.size());
  for (const ContentQuery& q : queries) exact_keys.push_back(ExactKey(q.content_key));
  return store_.MultiGet(kExactFamily, exact_keys);
}

absl::StatusOr<std::vector<ContentVerdict>> Dedup::Check(const std::vector<ContentQuery>& queries) {
  const int k = options_.near_duplicate_bits;
  std::vector<ContentVerdict> verdicts;
  verdicts.reserve(queries.size());

  // The stored records of every query's exact key, in one MultiGet. Content that is new earlier
  // in this batch is in batch_exact, which takes precedence.
  std::vector<std::string> exact_keys;
  absl::StatusOr<std::vector<std::optional<std::string>>> stored =
      StoredOriginals(queries, exact_keys);
  if (!stored.ok()) return stored.status();

  absl::flat_hash_map<fingerprint::ContentKey, Original> batch_exact;
  batch_exact.reserve(queries.size());
  std::vector<std::pair<fingerprint::SimHash64, fingerprint::ContentKey>> batch_simhash;
  // One cursor for every block scan of the batch (created on first use): a RocksDB iterator per
  // scan costs a snapshot and a cursor per file, far more than a Seek.
  std::unique_ptr<kv::KvIterator> simhash_scan;

  for (size_t qi = 0; qi < queries.size(); ++qi) {
    const ContentQuery& q = queries[qi];
    ContentVerdict verdict;
    std::optional<Original> exact;
    if (auto it = batch_exact.find(q.content_key); it != batch_exact.end()) {
      exact = it->second;
    } else if ((*stored)[qi].has_value()) {
      absl::StatusOr<Original> original = DecodeOriginal(*(*stored)[qi]);
      if (!original.ok()) return original.status();
      exact = *std::move(original);
    }
    if (exact.has_value()) {
      verdict.verdict = Verdict::kExactDuplicate;
      verdict.original = *std::move(exact);
      verdicts.push_back(std::move(verdict));
      continue;
    }

    if (q.simhash.has_value() && k > 0) {
      std::optional<fingerprint::ContentKey> best;
      int best_distance = k + 1;
      auto consider = [&](fingerprint::SimHash64 h, const fingerprint::ContentKey& key) {
        const int d = fingerprint::HammingDistance(h, *q.simhash);
        if (d < best_distance) {
          best_distance = d;
          best = key;
        }
      };
      for (const auto& [h, key] : batch_simhash) consider(h, key);
      if (simhash_scan == nullptr) {
        absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
            store_.NewPrefixIterator(kSimHashFamily);
        if (!it.ok()) return it.status();
        simhash_scan = *std::move(it);
      }
      for (int i = 0; i < kBlocks; ++i) {
        const uint16_t block = Block(*q.simhash, i);
        const char prefix[kSimHashPrefixBytes] = {
            static_cast<char>(i), static_cast<char>(block >> 8), static_cast<char>(block & 0xFF)};
        for (simhash_scan->Seek(std::string_view(prefix, sizeof(prefix))); simhash_scan->Valid();
             simhash_scan->Next()) {
          const std::string_view key = simhash_scan->key();
          if (key.size() != kSimHashPrefixBytes + 8 + 16) continue;
          std::array<uint8_t, 16> content{};
          for (int b = 0; b < 16; ++b) content[b] = static_cast<uint8_t>(key[11 + b]);
          consider(fingerprint::SimHash64(GetFixed(key, 3, 8)),
                   fingerprint::ContentKey::FromBytes(content));
        }
        if (absl::Status s = simhash_scan->status(); !s.ok()) return s;
      }
      if (best.has_value()) {
        absl::StatusOr<std::optional<Original>> near;
        if (auto it = batch_exact.find(*best); it != batch_exact.end()) {
          near = it->second;
        } else {
          near = LookupExact(*best);
        }
        if (!near.ok()) return near.status();
        // A page whose own earlier capture changed a little is not a copy of another page.
        if (near->has_value() && (*near)->url != q.url) {
          verdict.verdict = Verdict::kNearDuplicate;
          verdict.original = **near;
          verdict.distance_bits = best_distance;
          verdicts.push_back(std::move(verdict));
          continue;
        }
      }
    }

    // New content: the original of its copies later in this batch.
    batch_exact.emplace(q.content_key, Original{.url = q.url,
                                                .fetch_time = q.fetch_time,
                                                .warc_record_id = q.warc_record_id,
                                                .payload_digest = q.payload_digest});
    if (q.simhash.has_value() && k > 0) batch_simhash.emplace_back(*q.simhash, q.content_key);
    verdicts.push_back(std::move(verdict));
  }
  return verdicts;
}

absl::StatusOr<size_t> Dedup::Record(const std::vector<ContentQuery>& queries) {
  absl::MutexLock lock(&mu_);
  const int k = options_.near_duplicate_bits;
  std::vector<std::string> exact_keys;
  absl::StatusOr<std::vector<std::optional<std::string>>> stored =
      StoredOriginals(queries, exact_keys);
  if (!stored.ok()) return stored.status();

  // Put into the write batch in key order: the memtable's skip list then finds each insert
  // position near the previous one instead of from the top.
  std::vector<std::pair<std::string, std::string>> exact_puts;
  std::vector<std::string> simhash_puts;
  absl::flat_hash_set<std::string_view> recorded;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    const ContentQuery& q = queries[qi];
    if ((*stored)[qi].has_value() || !recorded.insert(exact_keys[qi]).second) continue;
    exact_puts.emplace_back(exact_keys[qi], EncodeOriginal({.url = q.url,
                                                            .fetch_time = q.fetch_time,
                                                            .warc_record_id = q.warc_record_id,
                                                            .payload_digest = q.payload_digest}));
    if (q.simhash.has_value() && k > 0) {
      for (int i = 0; i < kBlocks; ++i) {
        simhash_puts.push_back(SimHashKey(i, *q.simhash, q.content_key));
      }
    }
  }
  if (exact_puts.empty()) return 0;
  std::sort(exact_puts.begin(), exact_puts.end());
  std::sort(simhash_puts.begin(), simhash_puts.end());
  kv::WriteBatch batch;
  for (const auto& [key, value] : exact_puts) batch.Put(kExactFamily, key, value);
  for (const std::string& key : simhash_puts) batch.Put(kSimHashFamily, key, "");
  if (absl::Status s = store_.Write(batch); !s.ok()) return s;
  return exact_puts.size();
}

absl::StatusOr<std::vector<bool>> Dedup::MarkLinksSeen(std::string_view collection,
                                                       const std::vector<std::string>& keys) {
  if (collection.empty() || collection.size() > kMaxLinkCollectionBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("collection: 1 to ", kMaxLinkCollectionBytes, " bytes"));
  }
  // Key: u8 collection length, the collection, the link key (docs/storage-format.md).
  std::string prefix;
  PutFixed(prefix, collection.size(), 1);
  prefix.append(collection);
  std::vector<std::string> stored_keys;
  stored_keys.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].empty() || keys[i].size() > kMaxLinkKeyBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("keys[", i, "]: 1 to ", kMaxLinkKeyBytes, " bytes"));
    }
    stored_keys.push_back(prefix + keys[i]);
  }
  std::vector<bool> fresh(keys.size(), false);
  if (keys.empty()) return fresh;
  absl::MutexLock lock(&links_mu_);
  absl::StatusOr<std::vector<std::optional<std::string>>> stored =
      store_.MultiGet(kLinksFamily, stored_keys);
  if (!stored.ok()) return stored.status();
  std::vector<std::string_view> puts;
  absl::flat_hash_set<std::string_view> marked;
  for (size_t i = 0; i < keys.size(); ++i) {
    if ((*stored)[i].has_value() || !marked.insert(stored_keys[i]).second) continue;
    fresh[i] = true;
    puts.push_back(stored_keys[i]);
  }
  if (puts.empty()) return fresh;
  std::sort(puts.begin(), puts.end());
  kv::WriteBatch batch;
  for (std::string_view key : puts) batch.Put(kLinksFamily, key, "");
  if (absl::Status s = store_.Write(batch); !s.ok()) return s;
  return fresh;
}

}  // namespace crawler::dedup
