// The content index's API types: the values that cross a process boundary between dedup and
// the fetchers (DedupClient). Plain values, so a fetcher depends on this header and lib/
// fingerprint only, not on the dedup core or its storage.
//
// Thread-safety: plain values.
#ifndef CRAWLER_SERVICES_DEDUP_DEDUP_API_H_
#define CRAWLER_SERVICES_DEDUP_DEDUP_API_H_

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/simhash.h"

namespace crawler::dedup {

struct ContentQuery {
  std::string url;
  fingerprint::ContentKey content_key;            // exact payload digest
  std::optional<fingerprint::SimHash64> simhash;  // absent: no text to compare (not HTML, empty)
  absl::Time fetch_time = absl::InfinitePast();
  std::string warc_record_id;  // of this capture, if written (a later revisit refers to it)
  std::string payload_digest;  // "sha1:..." as in WARC-Payload-Digest

  friend bool operator==(const ContentQuery&, const ContentQuery&) = default;
};

// The first capture of some content.
struct Original {
  std::string url;
  absl::Time fetch_time = absl::InfinitePast();
  std::string warc_record_id;
  std::string payload_digest;

  friend bool operator==(const Original&, const Original&) = default;
};

enum class Verdict { kUnique, kExactDuplicate, kNearDuplicate };

struct ContentVerdict {
  Verdict verdict = Verdict::kUnique;
  std::optional<Original> original;  // set for duplicates
  int distance_bits = 0;             // near-duplicates: Hamming distance to the original

  friend bool operator==(const ContentVerdict&, const ContentVerdict&) = default;
};

}  // namespace crawler::dedup

#endif  // CRAWLER_SERVICES_DEDUP_DEDUP_API_H_
