// Dedup: the content index (DESIGN.md §3 "dedup"): exact payload digests and 64-bit SimHash
// fingerprints. Check() answers, for each fetched page, "is this content new, an exact copy of
// something already seen, or a near-copy (SimHash within k bits)?" and records new content, so
// the first copy wins and later copies point at it (WARC revisit records for exact copies; links
// of duplicates are not followed twice).
//
// Near-duplicates use Manku, Jain & Das Sarma (WWW 2007): split the 64 bits into k + 1 blocks;
// two fingerprints within k bits agree exactly on at least one block (pigeonhole), so each
// fingerprint is indexed once per block and a lookup scans only the fingerprints sharing a
// block with it. With k = 3: four 16-bit blocks. This is the simple correct index; a sharded
// permuted-table version replaces it when the content index is distributed.
//
// Storage: a KvStore (column families "dedup.exact" and "dedup.simhash"; key layout in
// docs/storage-format.md), so the index survives restarts and a resumed crawl still recognises
// content fetched before the restart. A batch costs one MultiGet of its exact keys, one prefix
// cursor Seek-ed to each block of each fingerprint (not a cursor per block: on RocksDB creating
// one costs a snapshot and a cursor per file) and one atomic write.
//
// Thread-safety: Check and Forget are thread-safe; a batch is checked and recorded atomically
// with respect to other batches (so two copies in flight at once cannot both be "first").
#ifndef CRAWLER_SERVICES_DEDUP_DEDUP_H_
#define CRAWLER_SERVICES_DEDUP_DEDUP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/simhash.h"
#include "services/common/kv/kv_store.h"

namespace crawler::dedup {

struct DedupOptions {
  // Maximum Hamming distance for a near-duplicate. At most 3 with the four-block index (Manku et
  // al. found k = 3 right for 64-bit SimHash over 8 billion pages). 0 disables near-duplicate
  // detection (exact digests only).
  int near_duplicate_bits = 3;
  absl::Status Validate() const;
};

struct ContentQuery {
  std::string url;
  fingerprint::ContentKey content_key;            // exact payload digest
  std::optional<fingerprint::SimHash64> simhash;  // absent: no text to compare (not HTML, empty)
  absl::Time fetch_time = absl::InfinitePast();
  std::string warc_record_id;  // of this capture, if written (a later revisit refers to it)
  std::string payload_digest;  // "sha1:..." as in WARC-Payload-Digest
};

// The first capture of some content.
struct Original {
  std::string url;
  absl::Time fetch_time = absl::InfinitePast();
  std::string warc_record_id;
  std::string payload_digest;
};

enum class Verdict { kUnique, kExactDuplicate, kNearDuplicate };

struct ContentVerdict {
  Verdict verdict = Verdict::kUnique;
  std::optional<Original> original;  // set for duplicates
  int distance_bits = 0;             // near-duplicates: Hamming distance to the original
};

class Dedup {
 public:
  static std::vector<kv::ColumnFamilySpec> ColumnFamilies();
  // REQUIRES: `store` declares ColumnFamilies() and outlives the Dedup.
  static absl::StatusOr<std::unique_ptr<Dedup>> Open(const DedupOptions& options,
                                                     kv::KvStore& store);

  // One verdict per query, in order. Unique content is recorded (so a later query in the same
  // batch can be its duplicate). An exact duplicate of a URL's own earlier capture is reported
  // as kExactDuplicate with original.url == url: a revisit.
  absl::StatusOr<std::vector<ContentVerdict>> Check(const std::vector<ContentQuery>& queries);

  // Withdraws content that Check recorded for captures whose WARC records could not be written
  // (a full disk): a later copy would otherwise become a revisit of a record that is nowhere.
  // An entry goes only if it still names the query's warc_record_id (another capture may have
  // been recorded since); its SimHash keys go with it. Returns how many entries went.
  absl::StatusOr<size_t> Forget(const std::vector<ContentQuery>& queries);

 private:
  Dedup(const DedupOptions& options, kv::KvStore& store) : options_(options), store_(store) {}
  absl::StatusOr<std::optional<Original>> LookupExact(const fingerprint::ContentKey& key) const;
  // The exact keys of `queries` (into `exact_keys`) and the encoded Originals stored under them,
  // in one MultiGet.
  absl::StatusOr<std::vector<std::optional<std::string>>> StoredOriginals(
      const std::vector<ContentQuery>& queries, std::vector<std::string>& exact_keys) const;

  const DedupOptions options_;
  kv::KvStore& store_;
  absl::Mutex mu_;  // serialises Check batches (check-then-record must be atomic)
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_DEDUP_H_
