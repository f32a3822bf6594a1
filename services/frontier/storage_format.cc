#include "services/frontier/storage_format.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/encoding/varint.h"
#include "services/common/kv/kv_store.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier::storage {
namespace {

using encoding::AppendVarint64;
using encoding::ZigZagDecode;
using encoding::ZigZagEncode;

// Version byte at the start of every value but the meta counters. Bumped only with
// kFormatVersion (see the header comment).
constexpr uint8_t kRecordVersion = 1;
// A lease record whose URL stayed in its queue (storage_format.h, frontier.leases).
constexpr uint8_t kLeaseMarkVersion = 2;

void PutBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

uint64_t GetBigEndian(std::string_view in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<unsigned char>(in[i]);
  return value;
}

void PutString(std::string& out, std::string_view s) {
  AppendVarint64(s.size(), out);
  out.append(s);
}

// 0 for "never" (InfinitePast, the default of every optional time: one byte), else
// zigzag(micros) + 1.
void PutTime(std::string& out, absl::Time t) {
  const int64_t micros = TimeToMicros(t);
  AppendVarint64(micros == std::numeric_limits<int64_t>::min() ? 0 : ZigZagEncode(micros) + 1, out);
}

// Bounds-checked reader; every method returns false on truncated or malformed input.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool AtEnd() const { return in_.empty(); }

  bool Byte(uint8_t& out) {
    if (in_.empty()) return false;
    out = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return true;
  }
  bool Varint(uint64_t& out) {
    const std::optional<uint64_t> value = encoding::ConsumeVarint64(in_);
    if (!value) return false;
    out = *value;
    return true;
  }
  bool Varint32(uint32_t& out) {
    uint64_t value = 0;
    if (!Varint(value) || value > std::numeric_limits<uint32_t>::max()) return false;
    out = static_cast<uint32_t>(value);
    return true;
  }
  bool Signed(int64_t& out) {
    uint64_t value = 0;
    if (!Varint(value)) return false;
    out = ZigZagDecode(value);
    return true;
  }
  bool Time(absl::Time& out) {
    uint64_t value = 0;
    if (!Varint(value)) return false;
    out = value == 0 ? absl::InfinitePast() : MicrosToTime(ZigZagDecode(value - 1));
    return true;
  }
  bool String(std::string& out) {
    uint64_t size = 0;
    if (!Varint(size) || size > in_.size()) return false;
    out.assign(in_.substr(0, size));
    in_.remove_prefix(size);
    return true;
  }
  bool Fixed64(uint64_t& out) {
    if (in_.size() < 8) return false;
    out = GetBigEndian(in_, 8);
    in_.remove_prefix(8);
    return true;
  }
  std::string_view Rest() {
    std::string_view rest = in_;
    in_ = {};
    return rest;
  }

 private:
  std::string_view in_;
};

absl::Status Corrupt(std::string_view what) {
  return absl::DataLossError(absl::StrCat("corrupt frontier ", std::string(what)));
}

// Reads and checks the leading version byte.
absl::Status ReadVersion(Reader& reader, std::string_view what) {
  uint8_t version = 0;
  if (!reader.Byte(version) || version == 0) return Corrupt(what);
  if (version > kRecordVersion) {
    return absl::FailedPreconditionError(absl::StrCat(std::string(what), " has record version ",
                                                      version,
                                                      ", newer than this binary understands"));
  }
  return absl::OkStatus();
}

// What a sitemap said of a URL (URL records, held URLs):
// level (u8) | lastmod (time) | changefreq (u8) | priority in thousandths (svarint, -1: none).
void PutSitemapFields(std::string& value, uint8_t level, const SitemapHints& hints) {
  value.push_back(static_cast<char>(level));
  PutTime(value, hints.lastmod);
  value.push_back(static_cast<char>(hints.changefreq));
  AppendVarint64(ZigZagEncode(hints.priority_permille), value);
}

// False when the fields are cut short or out of range.
bool ReadSitemapFields(Reader& reader, uint8_t& level, SitemapHints& hints) {
  int64_t priority = 0;
  if (!reader.Byte(level) || !reader.Time(hints.lastmod) || !reader.Byte(hints.changefreq) ||
      !reader.Signed(priority) || level > kMaxSitemapLevel || hints.changefreq > 7 ||
      priority < -1 || priority > 1000) {
    return false;
  }
  hints.priority_permille = static_cast<int16_t>(priority);
  return true;
}

}  // namespace

std::vector<kv::ColumnFamilySpec> ColumnFamilies() {
  // The families that hold a URL per entry use 16 KiB blocks: a URL compresses well next to
  // its neighbours (the same host, similar paths), for a little more work per point lookup
  // that misses the cache (disk per URL: docs/benchmarks.md, bench/frontier-scale).
  constexpr size_t kUrlBlockBytes = 16 << 10;
  return {
      {std::string(kMetaFamily), 0},
      {std::string(kHostsFamily), 0},
      {std::string(kUrlsFamily), 0, kUrlBlockBytes},
      {std::string(kQueueFamily), kQueueHostPrefixBytes, kUrlBlockBytes},
      {std::string(kLeasesFamily), 0},
      {std::string(kDueFamily), 0, kUrlBlockBytes},
  };
}

std::string EncodeFixed64(uint64_t value) {
  std::string out;
  PutBigEndian(out, value, 8);
  return out;
}

absl::StatusOr<uint64_t> DecodeFixed64(std::string_view bytes) {
  if (bytes.size() != 8) return Corrupt("meta counter");
  return GetBigEndian(bytes, 8);
}

int64_t TimeToMicros(absl::Time t) {
  // absl saturates infinite times to the int64 extremes.
  return absl::ToUnixMicros(t);
}

absl::Time MicrosToTime(int64_t micros) {
  if (micros == std::numeric_limits<int64_t>::min()) return absl::InfinitePast();
  if (micros == std::numeric_limits<int64_t>::max()) return absl::InfiniteFuture();
  return absl::FromUnixMicros(micros);
}

// ---- queue -------------------------------------------------------------------------------

uint8_t BandOfPriority(uint8_t priority) { return static_cast<uint8_t>(255 - priority); }
uint8_t PriorityOfBand(uint8_t band) { return static_cast<uint8_t>(255 - band); }

std::string QueueHostPrefix(uint64_t host_id) { return EncodeFixed64(host_id); }

std::string QueueKey(uint64_t host_id, const QueuePos& pos) {
  std::string key;
  key.reserve(kQueueKeyBytes);
  PutBigEndian(key, host_id, 8);
  key.push_back(static_cast<char>(pos.band));
  PutBigEndian(key, pos.depth, 4);
  PutBigEndian(key, pos.seq, 8);
  return key;
}

absl::StatusOr<QueueKeyParts> DecodeQueueKey(std::string_view key) {
  if (key.size() != kQueueKeyBytes) return Corrupt("queue key");
  QueueKeyParts parts;
  parts.host_id = GetBigEndian(key, 8);
  parts.pos.band = static_cast<uint8_t>(key[8]);
  parts.pos.depth = static_cast<uint32_t>(GetBigEndian(key.substr(9), 4));
  parts.pos.seq = GetBigEndian(key.substr(13), 8);
  return parts;
}

std::string EncodeQueueValue(uint8_t flags, std::string_view url) {
  std::string value;
  value.reserve(2 + url.size());
  value.push_back(static_cast<char>(kRecordVersion));
  value.push_back(static_cast<char>(flags));
  value.append(url);
  return value;
}

absl::StatusOr<QueueEntry> DecodeQueueValue(std::string_view value) {
  Reader reader(value);
  if (absl::Status status = ReadVersion(reader, "queue entry"); !status.ok()) return status;
  QueueEntry entry;
  if (!reader.Byte(entry.flags)) return Corrupt("queue entry");
  entry.url = std::string(reader.Rest());
  if (entry.url.empty()) return Corrupt("queue entry");
  return entry;
}

// ---- leases ------------------------------------------------------------------------------

std::string LeaseKey(uint64_t lease_id) { return EncodeFixed64(lease_id); }

absl::StatusOr<uint64_t> DecodeLeaseKey(std::string_view key) {
  if (key.size() != 8) return Corrupt("lease key");
  return GetBigEndian(key, 8);
}

std::string EncodeLeaseRecord(const LeaseRecord& record) {
  std::string value;
  value.push_back(static_cast<char>(record.in_queue ? kLeaseMarkVersion : kRecordVersion));
  AppendVarint64(record.host_id, value);
  value.push_back(static_cast<char>(record.pos.band));
  AppendVarint64(record.pos.depth, value);
  AppendVarint64(record.pos.seq, value);
  value.push_back(static_cast<char>(record.flags));
  PutTime(value, record.deadline);
  PutString(value, record.url);
  return value;
}

absl::StatusOr<LeaseRecord> DecodeLeaseRecord(std::string_view value) {
  LeaseRecord record;
  record.in_queue = !value.empty() && static_cast<uint8_t>(value[0]) == kLeaseMarkVersion;
  if (record.in_queue) value.remove_prefix(1);
  Reader reader(value);
  if (!record.in_queue) {
    if (absl::Status status = ReadVersion(reader, "lease record"); !status.ok()) return status;
  }
  if (!reader.Varint(record.host_id) || !reader.Byte(record.pos.band) ||
      !reader.Varint32(record.pos.depth) || !reader.Varint(record.pos.seq) ||
      !reader.Byte(record.flags) || !reader.Time(record.deadline) || !reader.String(record.url) ||
      record.url.empty()) {
    return Corrupt("lease record");
  }
  return record;
}

// ---- held URLs (resharding) ---------------------------------------------------------------

std::string MovingKey(std::string_view host_key) {
  std::string key(kMetaMovingPrefix);
  key.append(host_key);
  return key;
}

std::string HeldKey(uint64_t seq) { return std::string(kMetaHeldPrefix) + EncodeFixed64(seq); }

absl::StatusOr<uint64_t> DecodeHeldKey(std::string_view key) {
  if (key.size() != kMetaHeldPrefix.size() + 8 || !key.starts_with(kMetaHeldPrefix)) {
    return Corrupt("held URL key");
  }
  return GetBigEndian(key.substr(kMetaHeldPrefix.size()), 8);
}

std::string EncodeHeldUrl(const HeldUrl& url) {
  std::string value;
  value.push_back(static_cast<char>(kRecordVersion));
  PutString(value, url.canonical_url);
  PutString(value, url.host_key);
  AppendVarint64(url.depth, value);
  value.push_back(static_cast<char>(url.priority));
  PutString(value, url.discovered_from);
  // A sitemap, or a page a sitemap listed: what it said follows (held links end above).
  if (url.sitemap_level != 0 || !url.sitemap.empty()) {
    PutSitemapFields(value, url.sitemap_level, url.sitemap);
  }
  return value;
}

absl::StatusOr<HeldUrl> DecodeHeldUrl(std::string_view value) {
  Reader reader(value);
  if (absl::Status status = ReadVersion(reader, "held URL"); !status.ok()) return status;
  HeldUrl url;
  if (!reader.String(url.canonical_url) || !reader.String(url.host_key) ||
      !reader.Varint32(url.depth) || !reader.Byte(url.priority) ||
      !reader.String(url.discovered_from) || url.canonical_url.empty() || url.host_key.empty()) {
    return Corrupt("held URL");
  }
  if (!reader.AtEnd() && !ReadSitemapFields(reader, url.sitemap_level, url.sitemap)) {
    return Corrupt("held URL");
  }
  return url;
}

// ---- due ---------------------------------------------------------------------------------

std::string DueKeyPrefix(absl::Time due) {
  const int64_t micros = TimeToMicros(due);
  return EncodeFixed64(micros < 0 ? 0 : static_cast<uint64_t>(micros));
}

std::string DueKey(absl::Time due, std::string_view url) {
  std::string key = DueKeyPrefix(due);
  key.append(url);
  return key;
}

absl::StatusOr<DueKeyParts> DecodeDueKey(std::string_view key) {
  if (key.size() <= 8) return Corrupt("due key");
  const uint64_t micros = GetBigEndian(key, 8);
  DueKeyParts parts;
  parts.due = micros > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                  ? absl::InfiniteFuture()
                  : MicrosToTime(static_cast<int64_t>(micros));
  parts.url = key.substr(8);
  return parts;
}

std::string EncodeDueValue(uint64_t host_id) {
  std::string value;
  value.push_back(static_cast<char>(kRecordVersion));
  AppendVarint64(host_id, value);
  return value;
}

absl::StatusOr<uint64_t> DecodeDueValue(std::string_view value) {
  Reader reader(value);
  if (absl::Status status = ReadVersion(reader, "due entry"); !status.ok()) return status;
  uint64_t host_id = 0;
  if (!reader.Varint(host_id)) return Corrupt("due entry");
  return host_id;
}

// ---- hosts -------------------------------------------------------------------------------

std::string EncodeHostRecord(const HostRecord& record) {
  std::string value;
  value.push_back(static_cast<char>(kRecordVersion));
  AppendVarint64(record.host_id, value);
  AppendVarint64(record.next_seq, value);
  AppendVarint64(record.queued, value);
  AppendVarint64(record.waiting, value);
  AppendVarint64(record.seen, value);
  AppendVarint64(record.pages, value);
  PutTime(value, record.next_allowed);
  AppendVarint64(record.leased, value);
  const bool has_controls = record.errors > 0 || !record.controls.IsDefault();
  if (record.cursor != QueuePos{} || has_controls) {
    value.push_back(static_cast<char>(record.cursor.band));
    AppendVarint64(record.cursor.depth, value);
    AppendVarint64(record.cursor.seq, value);
  }
  if (has_controls) {
    const HostControls& controls = record.controls;
    AppendVarint64(record.errors, value);
    PutTime(value, controls.blocked_until);
    AppendVarint64(static_cast<uint64_t>(std::max<int64_t>(
                       0, absl::ToInt64Microseconds(controls.delay))),
                   value);
    // 0: the collection's limit; n + 1: a limit of n (which may be 0).
    AppendVarint64(controls.max_pages.has_value() ? *controls.max_pages + 1 : 0, value);
    AppendVarint64(controls.dropped_urls, value);
    PutTime(value, controls.dropped_at);
    PutTime(value, controls.changed);
    AppendVarint64(controls.dropped_leases_below, value);
  }
  return value;
}

absl::StatusOr<HostRecord> DecodeHostRecord(std::string_view value) {
  Reader reader(value);
  if (absl::Status status = ReadVersion(reader, "host record"); !status.ok()) return status;
  HostRecord record;
  if (!reader.Varint(record.host_id) || !reader.Varint(record.next_seq) ||
      !reader.Varint(record.queued) || !reader.Varint(record.waiting) ||
      !reader.Varint(record.seen) || !reader.Varint(record.pages) ||
      !reader.Time(record.next_allowed)) {
    return Corrupt("host record");
  }
  // Records written before `leased` existed end here, and those at the start of their queue
  // (or written before the cursor existed) after it.
  if (!reader.AtEnd() && !reader.Varint(record.leased)) return Corrupt("host record");
  if (!reader.AtEnd() &&
      (!reader.Byte(record.cursor.band) || !reader.Varint32(record.cursor.depth) ||
       !reader.Varint(record.cursor.seq))) {
    return Corrupt("host record");
  }
  if (reader.AtEnd()) return record;
  HostControls& controls = record.controls;
  uint64_t delay_micros = 0;
  uint64_t max_pages = 0;
  if (!reader.Varint(record.errors) || !reader.Time(controls.blocked_until) ||
      !reader.Varint(delay_micros) || !reader.Varint(max_pages) ||
      !reader.Varint(controls.dropped_urls) || !reader.Time(controls.dropped_at) ||
      !reader.Time(controls.changed) ||
      delay_micros > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Corrupt("host record");
  }
  // Records written before the drop's lease bound was kept end here (the bound stays 0).
  if (!reader.AtEnd() && !reader.Varint(controls.dropped_leases_below)) {
    return Corrupt("host record");
  }
  controls.delay = absl::Microseconds(static_cast<int64_t>(delay_micros));
  if (max_pages > 0) controls.max_pages = max_pages - 1;
  return record;
}

// ---- urls --------------------------------------------------------------------------------

std::string EncodeUrlRecord(const UrlRecord& record) {
  std::string value;
  value.reserve(64 + record.discovered_from.size() + record.etag.size() +
                record.last_modified.size() + record.visit_history.size());
  value.push_back(static_cast<char>(kRecordVersion));
  value.push_back(static_cast<char>(record.status));
  AppendVarint64(record.host_id, value);
  value.push_back(static_cast<char>(record.priority));
  AppendVarint64(record.depth, value);
  AppendVarint64(record.seq, value);
  AppendVarint64(record.attempts, value);
  AppendVarint64(record.fetch_count, value);
  PutTime(value, record.first_seen);
  PutString(value, record.discovered_from);
  value.push_back(static_cast<char>(record.last_outcome ? static_cast<uint8_t>(*record.last_outcome)
                                                        : uint8_t{0}));
  AppendVarint64(ZigZagEncode(record.http_status), value);
  PutTime(value, record.fetch_time);
  PutString(value, record.etag);
  PutString(value, record.last_modified);
  PutBigEndian(value, record.content_fingerprint, 8);
  AppendVarint64(record.content_length, value);
  PutTime(value, record.next_visit);
  PutString(value, record.visit_history);
  // A varint: one byte for the many records without a digest (0), ten for a digest.
  AppendVarint64(record.change_digest, value);
  // What sitemaps said, only for URLs they concern: most records end at the digest.
  const bool sitemap_fields = record.sitemap_level != 0 || !record.sitemap.empty() ||
                              record.lastmod_pulls != 0 || record.lastmod_pulled;
  if (sitemap_fields) {
    PutSitemapFields(value, record.sitemap_level, record.sitemap);
    AppendVarint64(record.lastmod_pulls, value);
    AppendVarint64(record.lastmod_pulls_changed, value);
    value.push_back(static_cast<char>(record.lastmod_pulled ? 1 : 0));
  }
  return value;
}

absl::StatusOr<UrlRecord> DecodeUrlRecord(std::string_view value) {
  Reader reader(value);
  if (absl::Status status = ReadVersion(reader, "url record"); !status.ok()) return status;
  UrlRecord record;
  uint8_t status = 0;
  uint8_t outcome = 0;
  int64_t http_status = 0;
  if (!reader.Byte(status) || !reader.Varint(record.host_id) || !reader.Byte(record.priority) ||
      !reader.Varint32(record.depth) || !reader.Varint(record.seq) ||
      !reader.Varint32(record.attempts) || !reader.Varint32(record.fetch_count) ||
      !reader.Time(record.first_seen) || !reader.String(record.discovered_from) ||
      !reader.Byte(outcome) || !reader.Signed(http_status) || !reader.Time(record.fetch_time) ||
      !reader.String(record.etag) || !reader.String(record.last_modified) ||
      !reader.Fixed64(record.content_fingerprint) || !reader.Varint(record.content_length) ||
      !reader.Time(record.next_visit) || !reader.String(record.visit_history)) {
    return Corrupt("url record");
  }
  // Records written before the change digest existed end here: no digest (0).
  if (!reader.AtEnd() && !reader.Varint(record.change_digest)) return Corrupt("url record");
  // Records of URLs no sitemap concerned, and those written before sitemaps were read, end
  // here.
  if (!reader.AtEnd()) {
    uint8_t pulled = 0;
    if (!ReadSitemapFields(reader, record.sitemap_level, record.sitemap) ||
        !reader.Varint32(record.lastmod_pulls) || !reader.Varint32(record.lastmod_pulls_changed) ||
        !reader.Byte(pulled) || pulled > 1) {
      return Corrupt("url record");
    }
    record.lastmod_pulled = pulled == 1;
  }
  if (status < static_cast<uint8_t>(UrlStatus::kQueued) ||
      status > static_cast<uint8_t>(UrlStatus::kDropped) || outcome > kMaxOutcomeClass ||
      http_status < std::numeric_limits<int>::min() ||
      http_status > std::numeric_limits<int>::max()) {
    return Corrupt("url record");
  }
  record.status = static_cast<UrlStatus>(status);
  if (outcome != 0) record.last_outcome = static_cast<OutcomeClass>(outcome);
  record.http_status = static_cast<int>(http_status);
  return record;
}

// ---- meta: re-visit observations -----------------------------------------------------------

std::string EncodeRevisitObservations(double changes_seen, double days_observed) {
  static_assert(std::endian::native == std::endian::little);
  std::string value(16, '\0');
  std::memcpy(value.data(), &changes_seen, 8);
  std::memcpy(value.data() + 8, &days_observed, 8);
  return value;
}

absl::StatusOr<std::pair<double, double>> DecodeRevisitObservations(std::string_view value) {
  std::pair<double, double> out;
  if (value.size() != 16) return Corrupt("revisit observations");
  std::memcpy(&out.first, value.data(), 8);
  std::memcpy(&out.second, value.data() + 8, 8);
  if (!std::isfinite(out.first) || !std::isfinite(out.second) || out.first < 0 || out.second < 0) {
    return Corrupt("revisit observations");
  }
  return out;
}

}  // namespace crawler::frontier::storage
