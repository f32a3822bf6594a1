// Dedup: the content index (docs/architecture.md §3 "dedup"): exact payload digests and 64-bit
// SimHash fingerprints. Check() answers, for each fetched page, "is this content new, an exact copy
// of something already seen, or a near-copy (SimHash within k bits)?"; Record() makes new content
// known once its capture is archived, so the first archived copy wins and later copies point at
// it (WARC revisit records for exact copies; links of duplicates are not followed twice).
//
// Checking and recording are two steps because a revisit record must never refer to a record
// that is not in the archive: content recorded at check time and then lost (the process killed
// before the WARC write, a full disk) turned the page's own re-fetch, and every later copy, into
// revisits of nothing. The price is a narrow race: two copies checked before either is recorded
// are both archived in full.
//
// Near-duplicates use Manku, Jain & Das Sarma (WWW 2007): split the 64 bits into k + 1 blocks;
// two fingerprints within k bits agree exactly on at least one block (pigeonhole), so each
// fingerprint is indexed once per block and a lookup scans only the fingerprints sharing a
// block with it. With k = 3: four 16-bit blocks. This is the simple correct index; a sharded
// permuted-table version replaces it when the content index is distributed.
//
// Storage: a KvStore (column families "dedup.exact" and "dedup.simhash"; key layout in
// docs/storage-format.md), so the index survives restarts and a resumed crawl still recognises
// content fetched before the restart. A Check batch costs one MultiGet of its exact keys and
// one prefix cursor Seek-ed to each block of each fingerprint (not a cursor per block: on
// RocksDB creating one costs a snapshot and a cursor per file); a Record batch one MultiGet and
// one atomic write.
//
// Beside the content index, the links seen per collection (MarkLinksSeen, column family
// "dedup.links"): a focused collection counts each external link once across every fetcher
// (docs/focused.md), so the set must be global, and this is the global index already.
//
// Thread-safety: Check and Record are thread-safe; a Record batch is atomic with respect to
// other Record batches (the first to record some content keeps it). MarkLinksSeen is
// thread-safe and atomic with respect to other MarkLinksSeen calls (of two calls marking one
// key, exactly one finds it fresh).
#ifndef CRAWLER_SERVICES_DEDUP_DEDUP_H_
#define CRAWLER_SERVICES_DEDUP_DEDUP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/simhash.h"
#include "services/common/kv/kv_store.h"
#include "services/dedup/dedup_api.h"

namespace crawler::dedup {

struct DedupOptions {
  // Maximum Hamming distance for a near-duplicate. At most 3 with the four-block index (Manku et
  // al. found k = 3 right for 64-bit SimHash over 8 billion pages). 0 disables near-duplicate
  // detection (exact digests only).
  int near_duplicate_bits = 3;
  absl::Status Validate() const;
};

class Dedup {
 public:
  static std::vector<kv::ColumnFamilySpec> ColumnFamilies();
  // REQUIRES: `store` declares ColumnFamilies() and outlives the Dedup.
  static absl::StatusOr<std::unique_ptr<Dedup>> Open(const DedupOptions& options,
                                                     kv::KvStore& store);

  // One verdict per query, in order, against the recorded content and the queries before it in
  // the batch (a later query can be the duplicate of an earlier unique one). Records nothing.
  // An exact duplicate of a URL's own earlier capture is reported as kExactDuplicate with
  // original.url == url: a revisit.
  absl::StatusOr<std::vector<ContentVerdict>> Check(const std::vector<ContentQuery>& queries);

  // Records the queries' content as originals: the kUnique ones of a Check, after their WARC
  // records are written (or at once for captures not archived, which have no warc_record_id).
  // Content recorded already, by an earlier batch or earlier in this one, keeps its original.
  // Returns how many were recorded.
  absl::StatusOr<size_t> Record(const std::vector<ContentQuery>& queries);

  // Marks `keys` (link targets) as seen by `collection` and returns, per key in order, whether
  // it was fresh: not seen by the collection before (by an earlier call, or earlier in this
  // one). One MultiGet and one atomic write per call. kInvalidArgument for an empty or
  // over-long collection (> kMaxLinkCollectionBytes) or key (empty, > kMaxLinkKeyBytes).
  static constexpr size_t kMaxLinkCollectionBytes = 255;
  static constexpr size_t kMaxLinkKeyBytes = 8192;
  absl::StatusOr<std::vector<bool>> MarkLinksSeen(std::string_view collection,
                                                  const std::vector<std::string>& keys);

 private:
  Dedup(const DedupOptions& options, kv::KvStore& store) : options_(options), store_(store) {}
  absl::StatusOr<std::optional<Original>> LookupExact(const fingerprint::ContentKey& key) const;
  // The exact keys of `queries` (into `exact_keys`) and the encoded Originals stored under them,
  // in one MultiGet.
  absl::StatusOr<std::vector<std::optional<std::string>>> StoredOriginals(
      const std::vector<ContentQuery>& queries, std::vector<std::string>& exact_keys) const;

  const DedupOptions options_;
  kv::KvStore& store_;
  absl::Mutex mu_;  // serialises Record batches (check-then-insert must be atomic)
  absl::Mutex links_mu_;  // serialises MarkLinksSeen calls, likewise
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_DEDUP_H_
