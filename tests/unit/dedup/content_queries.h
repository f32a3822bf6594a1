// Test queries for the content index: Q(url, payload[, simhash]) with every field set, so
// round trips (through the core, the converters or the wire) compare every field.
#ifndef CRAWLER_TESTS_UNIT_DEDUP_CONTENT_QUERIES_H_
#define CRAWLER_TESTS_UNIT_DEDUP_CONTENT_QUERIES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/simhash.h"
#include "services/dedup/dedup_api.h"

namespace crawler::dedup::testing {

// The fetch time of every Q (sub-second, so time conversions are checked too).
inline absl::Time QueryTime() { return absl::FromUnixSeconds(1000) + absl::Milliseconds(250); }

inline ContentQuery Q(const std::string& url, const std::string& payload,
                      std::optional<uint64_t> simhash = std::nullopt) {
  ContentQuery q;
  q.url = url;
  q.content_key = fingerprint::ComputeContentKey(payload);
  if (simhash.has_value()) q.simhash = fingerprint::SimHash64(*simhash);
  q.fetch_time = QueryTime();
  q.warc_record_id = "<urn:uuid:" + url + ">";
  q.payload_digest = "sha1:" + url;
  return q;
}

}  // namespace crawler::dedup::testing

#endif  // CRAWLER_TESTS_UNIT_DEDUP_CONTENT_QUERIES_H_
