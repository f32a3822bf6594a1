// The frontier's on-disk format: column family names, key layouts and value encodings.
// docs/storage-format.md describes the same bytes for people; keep the two in step.
//
// THIS IS AN ON-DISK FORMAT. Data written by one version is read by the next: never change the
// meaning or encoding of an existing field or key. Values may gain fields appended at the end
// (readers default missing trailing fields and ignore unknown trailing bytes); anything else
// needs kFormatVersion bumped and a migration.
//
// Integers in keys are big-endian so that bytewise key order is numeric order. Integers in
// values are LEB128 varints (signed ones zigzag-encoded) and strings are varint length + bytes.
// A time in a value is a varint: 0 for "never" (InfinitePast), else zigzag(microseconds since
// the Unix epoch) + 1; a time in a key is 8 bytes big-endian unsigned microseconds.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_SERVICES_FRONTIER_STORAGE_FORMAT_H_
#define CRAWLER_SERVICES_FRONTIER_STORAGE_FORMAT_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/kv/kv_store.h"
#include "services/frontier/host_api.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier::storage {

inline constexpr uint32_t kFormatVersion = 1;

// Column families.
inline constexpr std::string_view kMetaFamily = "frontier.meta";
inline constexpr std::string_view kHostsFamily = "frontier.hosts";
inline constexpr std::string_view kUrlsFamily = "frontier.urls";
inline constexpr std::string_view kQueueFamily = "frontier.queue";
inline constexpr std::string_view kLeasesFamily = "frontier.leases";
inline constexpr std::string_view kDueFamily = "frontier.due";

// The families above with their scan prefixes (the queue is scanned one host at a time) and
// block sizes.
std::vector<kv::ColumnFamilySpec> ColumnFamilies();

// Keys of frontier.meta; values are 8-byte big-endian unsigned integers unless noted.
inline constexpr std::string_view kMetaFormatVersionKey = "format_version";
inline constexpr std::string_view kMetaNextHostIdKey = "next_host_id";
inline constexpr std::string_view kMetaNextLeaseIdKey = "next_lease_id";
// URLs out on lease: written in every batch that changes how many, so a restart knows how many
// leases of the previous process it voids (the host records' `leased` may be older). Stores of
// earlier versions lack it; their host records' `leased` are then summed.
inline constexpr std::string_view kMetaLeasesOutKey = "leases_out";
// recrawl::RateHistogram::Encode() of the re-visit rate estimates (rate_histogram.h).
inline constexpr std::string_view kMetaRevisitRatesKey = "revisit_rates";
// recrawl::FleetEvidence::Encode() of the re-visit histories (rate_prior.h); present only
// while the collection's prior is "fitted" (deleted at an open with "fleet-mean", so that a
// later "fitted" open rebuilds it from the URL records instead of trusting a stale copy).
inline constexpr std::string_view kMetaRevisitEvidenceKey = "revisit_evidence";
// Changes seen and days observed by all re-visits: two IEEE-754 binary64, little-endian.
inline constexpr std::string_view kMetaRevisitObservationsKey = "revisit_observations";
std::string EncodeRevisitObservations(double changes_seen, double days_observed);
// Resharding (docs/architecture.md §4): keys of frontier.meta under two prefixes.
// - kMetaMovingPrefix + host key, empty value: the host is moving to another partition (no
//   leases, no due promotions, arrivals held) until its old owner forgets it.
// - kMetaHeldPrefix + 8-byte big-endian sequence: a URL that arrived for a host another
//   partition owns or will own, kept until the mover delivers it there. Value: HeldUrl.
inline constexpr std::string_view kMetaMovingPrefix = "moving/";
inline constexpr std::string_view kMetaHeldPrefix = "held/";
std::string MovingKey(std::string_view host_key);
std::string HeldKey(uint64_t seq);
absl::StatusOr<uint64_t> DecodeHeldKey(std::string_view key);
// A held URL: version (1) | canonical URL | host key | depth | priority (byte) |
// discovered_from (strings are varint length + bytes), then, only for a sitemap or a page a
// sitemap listed with hints, the sitemap section: level (byte) | lastmod (time) | changefreq
// (byte) | priority in thousandths (svarint), as in the URL record.
struct HeldUrl {
  std::string canonical_url;
  std::string host_key;
  uint32_t depth = 0;
  uint8_t priority = 0;
  std::string discovered_from;
  uint8_t sitemap_level = 0;
  SitemapHints sitemap;

  friend bool operator==(const HeldUrl&, const HeldUrl&) = default;
};
std::string EncodeHeldUrl(const HeldUrl& url);
absl::StatusOr<HeldUrl> DecodeHeldUrl(std::string_view value);

absl::StatusOr<std::pair<double, double>> DecodeRevisitObservations(std::string_view value);

inline constexpr size_t kMaxHostKeyBytes = 255;

std::string EncodeFixed64(uint64_t value);
absl::StatusOr<uint64_t> DecodeFixed64(std::string_view bytes);

// Microseconds since the epoch; the infinite times saturate to the int64 extremes.
int64_t TimeToMicros(absl::Time t);
absl::Time MicrosToTime(int64_t micros);

// ---- frontier.queue ----------------------------------------------------------------------
// Key: host_id (8) | band (1) | depth (4) | seq (8), big-endian; 21 bytes. band = 255 - priority
// so higher priority sorts first; then depth (breadth-first), then insertion order.
// Value: version (1) | flags (1) | canonical URL (rest).

struct QueuePos {
  uint8_t band = 0;
  uint32_t depth = 0;
  uint64_t seq = 0;
  friend auto operator<=>(const QueuePos&, const QueuePos&) = default;
};
inline constexpr size_t kQueueHostPrefixBytes = 8;
inline constexpr size_t kQueueKeyBytes = 21;
inline constexpr uint8_t kQueueFlagHasHistory = 0x01;  // the URL record holds a past outcome
// Bits 1-2: the URL's sitemap level (UrlRecord::sitemap_level, 0 for a page), so that a lease
// says "read this as a sitemap" without reading the URL record.
inline constexpr uint8_t kQueueFlagSitemapShift = 1;
inline constexpr uint8_t kQueueFlagSitemapMask = 0x06;
inline uint8_t QueueFlagsOfSitemapLevel(uint8_t level) {
  return static_cast<uint8_t>((level << kQueueFlagSitemapShift) & kQueueFlagSitemapMask);
}
inline uint8_t SitemapLevelOfQueueFlags(uint8_t flags) {
  return static_cast<uint8_t>((flags & kQueueFlagSitemapMask) >> kQueueFlagSitemapShift);
}

uint8_t BandOfPriority(uint8_t priority);
uint8_t PriorityOfBand(uint8_t band);
std::string QueueHostPrefix(uint64_t host_id);
std::string QueueKey(uint64_t host_id, const QueuePos& pos);
struct QueueKeyParts {
  uint64_t host_id = 0;
  QueuePos pos;
};
absl::StatusOr<QueueKeyParts> DecodeQueueKey(std::string_view key);

struct QueueEntry {
  uint8_t flags = 0;
  std::string url;
};
std::string EncodeQueueValue(uint8_t flags, std::string_view url);
absl::StatusOr<QueueEntry> DecodeQueueValue(std::string_view value);

// ---- frontier.leases ---------------------------------------------------------------------
// Key: lease id, 8 bytes big-endian. Value: LeaseRecord, in one of two versions:
// - version 1, written by older versions only, which moved a leased URL out of its queue into
//   this family; a restart puts every one back into its queue.
// - version 2, a lease mark: the URL's queue entry stays (HostRecord::leased counts it); the
//   mark is written in the Lease batch and deleted in the batch that completes, releases or
//   expires the lease, so a restart knows which queued URLs were out on lease and until when
//   (FrontierOptions::restored_lease_grace). Written only when that grace is > 0. Versions
//   that do not know it drop the mark as unreadable, and the URL is leased again at once.

struct LeaseRecord {
  uint64_t host_id = 0;
  QueuePos pos;
  uint8_t flags = 0;
  absl::Time deadline = absl::InfinitePast();
  std::string url;
  // Version 2: the queue entry is still in place (a mark); version 1: the entry was moved here.
  bool in_queue = false;
};
std::string LeaseKey(uint64_t lease_id);
absl::StatusOr<uint64_t> DecodeLeaseKey(std::string_view key);
std::string EncodeLeaseRecord(const LeaseRecord& record);
absl::StatusOr<LeaseRecord> DecodeLeaseRecord(std::string_view value);

// ---- frontier.due ------------------------------------------------------------------------
// Key: due time (8, big-endian unsigned microseconds since the epoch, clamped at 0) | canonical
// URL. Value: version (1) | host_id (varint). Time order lets Lease read only what is due.

std::string DueKeyPrefix(absl::Time due);  // the 8-byte time part: a range bound
std::string DueKey(absl::Time due, std::string_view url);
struct DueKeyParts {
  absl::Time due;
  std::string_view url;  // a view into the decoded key
};
absl::StatusOr<DueKeyParts> DecodeDueKey(std::string_view key);
std::string EncodeDueValue(uint64_t host_id);
absl::StatusOr<uint64_t> DecodeDueValue(std::string_view value);

// ---- frontier.hosts ----------------------------------------------------------------------
// Key: host key bytes (as given to AddUrls, at most kMaxHostKeyBytes). Value: HostRecord. One
// record per host ever seen; its counters are updated in the same batch as the queue, due and
// lease entries they count, so a restart rebuilds the in-memory host table from this family
// alone. A record is not rewritten for what only a lease changes (`leased`, a cursor moved
// forward, a politeness hint not in the future: HostTable::RecordChanged), which waits for the
// host's next write; a restart voids the leases anyway, and frontier.meta's kMetaLeasesOutKey
// counts them.

struct HostRecord {
  uint64_t host_id = 0;
  uint64_t next_seq = 0;                           // sequence number for the host's next new URL
  uint64_t queued = 0;                             // entries in frontier.queue (leased included)
  uint64_t waiting = 0;                            // entries in frontier.due
  uint64_t seen = 0;                               // URL records created
  uint64_t pages = 0;                              // final outcomes that count as pages
  absl::Time next_allowed = absl::InfinitePast();  // politeness hint
  // Of `queued`, entries out on lease when the record was written; leases taken or ended since
  // without another change to the host are not counted. A restart keeps the cursor of a record
  // that counts none (every entry leased since lies at or after it). Appended to the record
  // later: records of older versions lack it and read as 0.
  uint64_t leased = 0;
  // A lower bound of the host's queue keys not on lease: the next scan of the queue starts
  // there instead of at its first key, past the deleted entries of URLs already fetched
  // (which RocksDB keeps as tombstones until a compaction drops them). Appended later, and
  // written only when it is not the queue's start: a record without it starts at the first key.
  QueuePos cursor;
  // Attempts that ended in a network error, a 5xx or a 429, and the operator's controls of the
  // host. Appended later, after the cursor (then written even at the queue's start), and only
  // when either is set: records without them read as 0 and default controls.
  uint64_t errors = 0;
  HostControls controls;

  friend bool operator==(const HostRecord&, const HostRecord&) = default;
};
std::string EncodeHostRecord(const HostRecord& record);
absl::StatusOr<HostRecord> DecodeHostRecord(std::string_view value);

// ---- frontier.urls -----------------------------------------------------------------------
// Key: canonical URL bytes. Value: UrlRecord (see docs/storage-format.md for the field order).
// The family doubles as the seen-set: a key exists iff the URL was ever accepted.

std::string EncodeUrlRecord(const UrlRecord& record);
absl::StatusOr<UrlRecord> DecodeUrlRecord(std::string_view value);

}  // namespace crawler::frontier::storage

#endif  // CRAWLER_SERVICES_FRONTIER_STORAGE_FORMAT_H_
