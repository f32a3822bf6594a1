// Pins the frontier's on-disk format (docs/storage-format.md): golden bytes, key order, round
// trips and rejection of damaged records. A failure here means stored data would be misread.
#include "services/frontier/storage_format.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "services/common/kv/kv_store.h"
#include "services/frontier/url_record.h"
#include "tests/unit/common/documented_keys.h"

namespace crawler::frontier::storage {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

UrlRecord FullRecord() {
  UrlRecord record;
  record.status = UrlStatus::kDone;
  record.host_id = 2;
  record.priority = 7;
  record.depth = 1;
  record.seq = 5;
  record.attempts = 0;
  record.fetch_count = 1;
  record.first_seen = absl::FromUnixMicros(0);
  record.discovered_from = "a";
  record.last_outcome = OutcomeClass::kFetched;
  record.http_status = 200;
  record.fetch_time = absl::FromUnixMicros(-1);
  record.etag = "e";
  record.last_modified = "l";
  record.content_fingerprint = 0x0102030405060708;
  record.content_length = 10;
  record.next_visit = absl::InfinitePast();
  record.visit_history = "h";
  return record;
}

void ExpectSameRecord(const UrlRecord& a, const UrlRecord& b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.host_id, b.host_id);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.depth, b.depth);
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_EQ(a.attempts, b.attempts);
  EXPECT_EQ(a.fetch_count, b.fetch_count);
  EXPECT_EQ(a.first_seen, b.first_seen);
  EXPECT_EQ(a.discovered_from, b.discovered_from);
  EXPECT_EQ(a.last_outcome, b.last_outcome);
  EXPECT_EQ(a.http_status, b.http_status);
  EXPECT_EQ(a.fetch_time, b.fetch_time);
  EXPECT_EQ(a.etag, b.etag);
  EXPECT_EQ(a.last_modified, b.last_modified);
  EXPECT_EQ(a.content_fingerprint, b.content_fingerprint);
  EXPECT_EQ(a.content_length, b.content_length);
  EXPECT_EQ(a.next_visit, b.next_visit);
  EXPECT_EQ(a.visit_history, b.visit_history);
  EXPECT_EQ(a.change_digest, b.change_digest);
  EXPECT_EQ(a.sitemap_level, b.sitemap_level);
  EXPECT_EQ(a.sitemap, b.sitemap);
  EXPECT_EQ(a.lastmod_pulls, b.lastmod_pulls);
  EXPECT_EQ(a.lastmod_pulls_changed, b.lastmod_pulls_changed);
  EXPECT_EQ(a.lastmod_pulled, b.lastmod_pulled);
}

// FullRecord with what sitemaps said: every field of the current format.
UrlRecord ListedRecord() {
  UrlRecord record = FullRecord();
  record.sitemap_level = 1;
  record.sitemap = SitemapHints{
      .lastmod = absl::FromUnixMicros(0), .changefreq = 3, .priority_permille = 500};
  record.lastmod_pulls = 2;
  record.lastmod_pulls_changed = 1;
  record.lastmod_pulled = true;
  return record;
}

// ---- golden encodings (docs/storage-format.md gives the same bytes) ----

TEST(StorageFormatGolden, QueueKey) {
  EXPECT_EQ(QueueKey(0x0102, QueuePos{0xfe, 3, 0x0a0b}),
            Bytes({0, 0, 0, 0, 0, 0, 1, 2, 0xfe, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0x0a, 0x0b}));
  EXPECT_EQ(EncodeQueueValue(kQueueFlagHasHistory, "http://a/"), Bytes({1, 1}) + "http://a/");
}

// The host record of the golden tests (docs/storage-format.md's example).
HostRecord GoldenHostRecord() {
  HostRecord record;
  record.host_id = 1;
  record.next_seq = 300;
  record.queued = 2;
  record.waiting = 0;
  record.seen = 3;
  record.pages = 1;
  record.next_allowed = absl::FromUnixMicros(1);
  record.leased = 1;
  return record;
}

TEST(StorageFormatGolden, HostRecord) {
  EXPECT_EQ(EncodeHostRecord(GoldenHostRecord()), Bytes({1, 1, 0xac, 0x02, 2, 0, 3, 1, 3, 1}));
}

TEST(StorageFormatGolden, HostRecordWithACursor) {
  // The cursor follows `leased`, only when it is not the queue's start: band 0xfe, depth 3,
  // seq 0x0a0b.
  HostRecord record = GoldenHostRecord();
  record.leased = 0;
  record.cursor = QueuePos{0xfe, 3, 0x0a0b};
  const std::string bytes = Bytes({1, 1, 0xac, 0x02, 2, 0, 3, 1, 3, 0, 0xfe, 3, 0x8b, 0x14});
  EXPECT_EQ(EncodeHostRecord(record), bytes);
  absl::StatusOr<HostRecord> decoded = DecodeHostRecord(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->cursor, record.cursor);
  EXPECT_EQ(decoded->leased, 0u);
  // Without it (the queue's start, or written before the cursor existed): the first key.
  EXPECT_EQ(DecodeHostRecord(bytes.substr(0, 10))->cursor, QueuePos{});
  // Cut inside it: corrupt.
  for (size_t n = 11; n < bytes.size(); ++n) {
    EXPECT_EQ(DecodeHostRecord(bytes.substr(0, n)).status().code(), absl::StatusCode::kDataLoss)
        << n;
  }
}

TEST(StorageFormatGolden, HostRecordWithErrorsAndControls) {
  // Errors and controls follow the cursor, which is then written even at the queue's start:
  // errors 2, blocked until 1 us, delay 1 s (10^6 us), a page limit of 0 (stored + 1), 5 URLs
  // dropped (never), changed at 2 us, leases below 7 voided by the drop.
  HostRecord record = GoldenHostRecord();
  record.errors = 2;
  record.controls.blocked_until = absl::FromUnixMicros(1);
  record.controls.delay = absl::Seconds(1);
  record.controls.max_pages = 0;
  record.controls.dropped_urls = 5;
  record.controls.changed = absl::FromUnixMicros(2);
  record.controls.dropped_leases_below = 7;
  const std::string bytes = Bytes({1, 1, 0xac, 0x02, 2, 0, 3, 1, 3, 1, 0, 0, 0, 2, 3, 0xc0, 0x84,
                                   0x3d, 1, 5, 0, 5, 7});
  EXPECT_EQ(EncodeHostRecord(record), bytes);
  absl::StatusOr<HostRecord> decoded = DecodeHostRecord(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->errors, 2u);
  EXPECT_EQ(decoded->controls, record.controls);
  // Without them (written before they existed, or none set): 0 and default controls.
  EXPECT_EQ(DecodeHostRecord(bytes.substr(0, 13))->controls, HostControls{});
  // Without the lease bound (written before it was kept): 0.
  HostControls unbounded = record.controls;
  unbounded.dropped_leases_below = 0;
  EXPECT_EQ(DecodeHostRecord(bytes.substr(0, bytes.size() - 1))->controls, unbounded);
  for (size_t n = 14; n < bytes.size() - 1; ++n) {
    EXPECT_EQ(DecodeHostRecord(bytes.substr(0, n)).status().code(), absl::StatusCode::kDataLoss)
        << n;
  }
}

TEST(StorageFormatGolden, HostRecordOfAnEarlierVersionHasNothingLeased) {
  // Written before the trailing `leased` field existed.
  absl::StatusOr<HostRecord> record = DecodeHostRecord(Bytes({1, 1, 0xac, 0x02, 2, 0, 3, 1, 3}));
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->next_seq, 300u);
  EXPECT_EQ(record->queued, 2u);
  EXPECT_EQ(record->next_allowed, absl::FromUnixMicros(1));
  EXPECT_EQ(record->leased, 0u);
}

TEST(StorageFormatGolden, LeaseRecord) {
  LeaseRecord record;
  record.host_id = 5;
  record.pos = QueuePos{255, 1, 2};
  record.flags = 1;
  record.deadline = absl::InfinitePast();
  record.url = "u";
  EXPECT_EQ(EncodeLeaseRecord(record), Bytes({1, 5, 0xff, 1, 2, 1, 0, 1, 'u'}));
  EXPECT_EQ(LeaseKey(0x0102), Bytes({0, 0, 0, 0, 0, 0, 1, 2}));
  // A lease mark (its queue entry stays): the same fields under version 2.
  record.in_queue = true;
  EXPECT_EQ(EncodeLeaseRecord(record), Bytes({2, 5, 0xff, 1, 2, 1, 0, 1, 'u'}));
}

TEST(StorageFormatGolden, HeldUrl) {
  EXPECT_EQ(HeldKey(0x0102), "held/" + Bytes({0, 0, 0, 0, 0, 0, 1, 2}));
  EXPECT_EQ(DecodeHeldKey(HeldKey(7)).value(), 7u);
  EXPECT_EQ(MovingKey("a.test"), "moving/a.test");
  const HeldUrl url{.canonical_url = "http://a/x",
                    .host_key = "a",
                    .depth = 300,
                    .priority = 2,
                    .discovered_from = "http://a/"};
  EXPECT_EQ(EncodeHeldUrl(url), Bytes({1, 10}) + "http://a/x" + Bytes({1}) + "a" +
                                    Bytes({0xac, 0x02, 2, 9}) + "http://a/");
  EXPECT_EQ(DecodeHeldUrl(EncodeHeldUrl(url)).value(), url);
  EXPECT_EQ(DecodeHeldUrl(Bytes({1, 0})).status().code(), absl::StatusCode::kDataLoss);
}

// A held sitemap, or a page a sitemap listed with hints: the sitemap section follows, as in the
// URL record (level, lastmod, changefreq, priority), so its owner queues it as it arrived.
TEST(StorageFormatGolden, HeldUrlWithSitemapFields) {
  const HeldUrl link{.canonical_url = "http://a/x", .host_key = "a"};
  HeldUrl sitemap = link;
  sitemap.sitemap_level = 1;
  sitemap.sitemap = SitemapHints{
      .lastmod = absl::FromUnixMicros(0), .changefreq = 3, .priority_permille = 500};
  const std::string plain = EncodeHeldUrl(link);
  EXPECT_EQ(EncodeHeldUrl(sitemap), plain + Bytes({1, 1, 3, 0xE8, 0x07}));
  EXPECT_EQ(DecodeHeldUrl(EncodeHeldUrl(sitemap)).value(), sitemap);
  HeldUrl listed = link;
  listed.sitemap.lastmod = absl::FromUnixSeconds(1'700'000'000);
  EXPECT_EQ(DecodeHeldUrl(EncodeHeldUrl(listed)).value(), listed);
  // Cut short, or out of range (a level past the maximum, a changefreq past "never").
  const std::string full = EncodeHeldUrl(sitemap);
  for (size_t n = plain.size() + 1; n < full.size(); ++n) {
    EXPECT_EQ(DecodeHeldUrl(full.substr(0, n)).status().code(), absl::StatusCode::kDataLoss)
        << "prefix " << n;
  }
  for (const auto& [at, value] : std::vector<std::pair<size_t, char>>{{0, 4}, {2, 8}}) {
    std::string bad = full;
    bad[plain.size() + at] = value;
    EXPECT_EQ(DecodeHeldUrl(bad).status().code(), absl::StatusCode::kDataLoss) << at;
  }
}

TEST(StorageFormatGolden, DueEntry) {
  EXPECT_EQ(DueKey(absl::FromUnixMicros(0x0102), "u"), Bytes({0, 0, 0, 0, 0, 0, 1, 2, 'u'}));
  EXPECT_EQ(EncodeDueValue(300), Bytes({1, 0xac, 0x02}));
}

TEST(StorageFormatGolden, UrlRecordDefaultIs27Bytes) {
  EXPECT_EQ(EncodeUrlRecord(UrlRecord{}),
            Bytes({1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                   0}));
}

TEST(StorageFormatGolden, UrlRecordAllFields) {
  EXPECT_EQ(EncodeUrlRecord(FullRecord()),
            Bytes({1,   3, 2,   7, 1, 5, 0, 1, 1, 1, 'a', 1,  0x90, 0x03, 2,  1,
                   'e', 1, 'l', 1, 2, 3, 4, 5, 6, 7, 8,   10, 0,    1,    'h', 0}));
}

TEST(StorageFormatGolden, UrlRecordWithChangeDigest) {
  UrlRecord record = FullRecord();
  record.change_digest = 0x8102;
  std::string all_fields = EncodeUrlRecord(FullRecord());
  all_fields.pop_back();  // the digest 0
  EXPECT_EQ(EncodeUrlRecord(record), all_fields + Bytes({0x82, 0x82, 0x02}));
  record.change_digest = ~uint64_t{0};
  absl::StatusOr<UrlRecord> decoded = DecodeUrlRecord(EncodeUrlRecord(record));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ExpectSameRecord(*decoded, record);
}

TEST(StorageFormatGolden, UrlRecordOfAnEarlierVersionHasNoChangeDigest) {
  // Written before the trailing change digest existed (the UrlRecordAllFields bytes).
  absl::StatusOr<UrlRecord> record = DecodeUrlRecord(
      Bytes({1,   3, 2,   7, 1, 5, 0, 1, 1, 1, 'a', 1,  0x90, 0x03, 2,  1,
             'e', 1, 'l', 1, 2, 3, 4, 5, 6, 7, 8,   10, 0,    1,    'h'}));
  ASSERT_TRUE(record.ok()) << record.status();
  ExpectSameRecord(*record, FullRecord());
  EXPECT_EQ(record->change_digest, 0u);
}

// A URL a sitemap concerns: level, lastmod, changefreq, priority (zigzag), pulls, pulls that
// found a change, pulled flag, after the digest.
TEST(StorageFormatGolden, UrlRecordWithSitemapFields) {
  std::string all_fields = EncodeUrlRecord(FullRecord());
  EXPECT_EQ(EncodeUrlRecord(ListedRecord()),
            all_fields + Bytes({1, 1, 3, 0xE8, 0x07, 2, 1, 1}));
  absl::StatusOr<UrlRecord> decoded = DecodeUrlRecord(EncodeUrlRecord(ListedRecord()));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ExpectSameRecord(*decoded, ListedRecord());
  // A sitemap with no hints, and a page with only a lastmod, also carry the section.
  UrlRecord sitemap = FullRecord();
  sitemap.sitemap_level = kMaxSitemapLevel;
  UrlRecord page = FullRecord();
  page.sitemap.lastmod = absl::FromUnixSeconds(1'700'000'000);
  for (const UrlRecord& record : {sitemap, page}) {
    decoded = DecodeUrlRecord(EncodeUrlRecord(record));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    ExpectSameRecord(*decoded, record);
  }
  // Out of range: a level past the maximum, a changefreq past "never", a priority past 1.0.
  for (const auto& [at, value] : std::vector<std::pair<size_t, char>>{{0, 4}, {2, 8}}) {
    std::string bad = EncodeUrlRecord(ListedRecord());
    bad[all_fields.size() + at] = value;
    EXPECT_EQ(DecodeUrlRecord(bad).status().code(), absl::StatusCode::kDataLoss) << at;
  }
}

TEST(StorageFormatGolden, MetaCounters) {
  EXPECT_EQ(EncodeFixed64(1), Bytes({0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(DecodeFixed64(Bytes({0, 0, 0, 0, 0, 0, 1, 0})).value(), 256u);
  EXPECT_EQ(DecodeFixed64("short").status().code(), absl::StatusCode::kDataLoss);
}

// ---- key order ----

TEST(StorageFormatKeys, QueueKeysSortByHostThenBandDepthSeq) {
  // Listed in the order the keys must sort in.
  const std::vector<std::pair<uint64_t, QueuePos>> ordered = {
      {1, {0, 0, 0}},
      {1, {0, 0, 255}},
      {1, {0, 0, 256}},
      {1, {0, 1, 0}},
      {1, {0, 256, 0}},
      {1, {1, 0, 0}},
      {1, {255, std::numeric_limits<uint32_t>::max(), std::numeric_limits<uint64_t>::max()}},
      {2, {0, 0, 0}},
      {256, {0, 0, 0}},
  };
  for (size_t i = 1; i < ordered.size(); ++i) {
    EXPECT_LT(QueueKey(ordered[i - 1].first, ordered[i - 1].second),
              QueueKey(ordered[i].first, ordered[i].second))
        << "entry " << i;
  }
  for (const auto& [host, pos] : ordered) {
    const std::string key = QueueKey(host, pos);
    EXPECT_EQ(key.substr(0, kQueueHostPrefixBytes), QueueHostPrefix(host));
    absl::StatusOr<QueueKeyParts> parts = DecodeQueueKey(key);
    ASSERT_TRUE(parts.ok());
    EXPECT_EQ(parts->host_id, host);
    EXPECT_EQ(parts->pos, pos);
  }
}

TEST(StorageFormatKeys, HigherPriorityHasLowerBand) {
  EXPECT_LT(BandOfPriority(9), BandOfPriority(0));
  for (int p = 0; p < 256; ++p) {
    EXPECT_EQ(PriorityOfBand(BandOfPriority(static_cast<uint8_t>(p))), p);
  }
}

TEST(StorageFormatKeys, DueKeysSortByTime) {
  const absl::Time t = absl::FromUnixSeconds(1704067200);
  EXPECT_LT(DueKey(t, "http://z/"), DueKey(t + absl::Microseconds(1), "http://a/"));
  EXPECT_LT(DueKey(t, "http://z/"), DueKeyPrefix(t + absl::Microseconds(1)));
  EXPECT_LT(DueKeyPrefix(t), DueKey(t, "x"));
  // Times before the epoch clamp to 0 rather than wrapping to the end of the index.
  EXPECT_EQ(DueKeyPrefix(absl::InfinitePast()), DueKeyPrefix(absl::FromUnixMicros(0)));
  const std::string key = DueKey(t, "http://a/");
  absl::StatusOr<DueKeyParts> parts = DecodeDueKey(key);
  ASSERT_TRUE(parts.ok());
  EXPECT_EQ(parts->due, t);
  EXPECT_EQ(parts->url, "http://a/");
  EXPECT_EQ(DecodeDueKey(DueKeyPrefix(t)).status().code(), absl::StatusCode::kDataLoss);
}

TEST(StorageFormatKeys, PrefixSuccessorBoundsAPrefixRange) {
  EXPECT_EQ(kv::PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(kv::PrefixSuccessor(Bytes({'a', 0xff, 0xff})), "b");
  EXPECT_EQ(kv::PrefixSuccessor(Bytes({0xff, 0xff})), "");
  EXPECT_EQ(kv::PrefixSuccessor(""), "");
  const std::string prefix = QueueHostPrefix(7);
  EXPECT_LT(QueueKey(7, QueuePos{255, 0xffffffff, ~uint64_t{0}}), kv::PrefixSuccessor(prefix));
  EXPECT_EQ(kv::PrefixSuccessor(prefix), QueueHostPrefix(8));
}

// ---- round trips and damage ----

TEST(StorageFormatRecords, UrlRecordRoundTrips) {
  for (UrlRecord record : {UrlRecord{}, FullRecord()}) {
    absl::StatusOr<UrlRecord> decoded = DecodeUrlRecord(EncodeUrlRecord(record));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    ExpectSameRecord(*decoded, record);
  }
  UrlRecord extremes = FullRecord();
  extremes.host_id = std::numeric_limits<uint64_t>::max();
  extremes.depth = std::numeric_limits<uint32_t>::max();
  extremes.http_status = -7;
  extremes.first_seen = absl::InfiniteFuture();
  extremes.fetch_time = absl::FromUnixMicros(std::numeric_limits<int64_t>::min() + 1);
  extremes.next_visit = absl::FromUnixSeconds(4102444800);
  absl::StatusOr<UrlRecord> decoded = DecodeUrlRecord(EncodeUrlRecord(extremes));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ExpectSameRecord(*decoded, extremes);
}

TEST(StorageFormatRecords, HostAndLeaseRecordsRoundTrip) {
  HostRecord host{42, 7, 3, 2, 12, 5, absl::FromUnixSeconds(1704067200), 2};
  absl::StatusOr<HostRecord> h = DecodeHostRecord(EncodeHostRecord(host));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->host_id, 42u);
  EXPECT_EQ(h->next_seq, 7u);
  EXPECT_EQ(h->queued, 3u);
  EXPECT_EQ(h->waiting, 2u);
  EXPECT_EQ(h->seen, 12u);
  EXPECT_EQ(h->pages, 5u);
  EXPECT_EQ(h->next_allowed, host.next_allowed);
  EXPECT_EQ(h->leased, 2u);

  LeaseRecord lease{9, QueuePos{3, 4, 5}, kQueueFlagHasHistory, absl::FromUnixSeconds(5),
                    "http://example.com/x"};
  absl::StatusOr<LeaseRecord> l = DecodeLeaseRecord(EncodeLeaseRecord(lease));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->host_id, 9u);
  EXPECT_EQ(l->pos, lease.pos);
  EXPECT_EQ(l->flags, kQueueFlagHasHistory);
  EXPECT_EQ(l->deadline, lease.deadline);
  EXPECT_EQ(l->url, lease.url);
  EXPECT_FALSE(l->in_queue);
  lease.in_queue = true;
  absl::StatusOr<LeaseRecord> mark = DecodeLeaseRecord(EncodeLeaseRecord(lease));
  ASSERT_TRUE(mark.ok()) << mark.status();
  EXPECT_TRUE(mark->in_queue);
  EXPECT_EQ(mark->pos, lease.pos);
  EXPECT_EQ(mark->deadline, lease.deadline);
  EXPECT_EQ(mark->url, lease.url);
}

TEST(StorageFormatRecords, EveryTruncationIsDataLoss) {
  UrlRecord with_digest = FullRecord();
  with_digest.change_digest = 0x8102;  // a 3-byte varint
  const std::string url = EncodeUrlRecord(with_digest);
  // Without the digest (its last 3 bytes) it is a record of an earlier version.
  for (size_t n = 0; n < url.size(); ++n) {
    if (n + 3 == url.size()) continue;
    EXPECT_EQ(DecodeUrlRecord(url.substr(0, n)).status().code(), absl::StatusCode::kDataLoss)
        << "prefix " << n;
  }
  EXPECT_EQ(DecodeUrlRecord(url.substr(0, url.size() - 3))->change_digest, 0u);
  const std::string host = EncodeHostRecord(HostRecord{1, 300, 2, 0, 3, 1, absl::Now(), 1});
  // Without its last byte (the trailing `leased` field) it is a record of an earlier version.
  for (size_t n = 0; n + 1 < host.size(); ++n) {
    EXPECT_EQ(DecodeHostRecord(host.substr(0, n)).status().code(), absl::StatusCode::kDataLoss);
  }
  EXPECT_EQ(DecodeHostRecord(host.substr(0, host.size() - 1))->leased, 0u);
  const std::string lease =
      EncodeLeaseRecord(LeaseRecord{1, QueuePos{1, 2, 3}, 0, absl::Now(), "http://a/"});
  for (size_t n = 0; n < lease.size(); ++n) {
    EXPECT_EQ(DecodeLeaseRecord(lease.substr(0, n)).status().code(), absl::StatusCode::kDataLoss);
  }
  EXPECT_EQ(DecodeQueueValue(Bytes({1, 0})).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeQueueKey("short").status().code(), absl::StatusCode::kDataLoss);
}

TEST(StorageFormatRecords, AppendedFieldsAreIgnored) {
  // A newer writer may append fields after every field this reader knows (so after the
  // sitemap section, which it then writes); this reader must still read what it knows.
  absl::StatusOr<UrlRecord> decoded =
      DecodeUrlRecord(EncodeUrlRecord(ListedRecord()) + "future");
  ASSERT_TRUE(decoded.ok());
  ExpectSameRecord(*decoded, ListedRecord());
}

TEST(StorageFormatRecords, ATruncatedSitemapSectionIsDataLoss) {
  const std::string without = EncodeUrlRecord(FullRecord());
  const std::string with = EncodeUrlRecord(ListedRecord());
  for (size_t n = without.size() + 1; n < with.size(); ++n) {
    EXPECT_EQ(DecodeUrlRecord(with.substr(0, n)).status().code(), absl::StatusCode::kDataLoss)
        << "prefix " << n;
  }
}

TEST(StorageFormatKeys, QueueFlagsCarryTheSitemapLevel) {
  for (uint8_t level = 0; level <= kMaxSitemapLevel; ++level) {
    const uint8_t flags = kQueueFlagHasHistory | QueueFlagsOfSitemapLevel(level);
    EXPECT_EQ(SitemapLevelOfQueueFlags(flags), level);
    EXPECT_TRUE(flags & kQueueFlagHasHistory);
  }
  EXPECT_EQ(EncodeQueueValue(QueueFlagsOfSitemapLevel(1), "http://a/"),
            Bytes({1, 2}) + "http://a/");
}

TEST(StorageFormatRecords, NewerVersionIsRefused) {
  std::string value = EncodeUrlRecord(FullRecord());
  value[0] = 2;
  EXPECT_EQ(DecodeUrlRecord(value).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(StorageFormatRecords, OutOfRangeEnumsAreDataLoss) {
  std::string value = EncodeUrlRecord(UrlRecord{});
  value[1] = 9;  // status
  EXPECT_EQ(DecodeUrlRecord(value).status().code(), absl::StatusCode::kDataLoss);
  value = EncodeUrlRecord(UrlRecord{});
  value[10] = static_cast<char>(kMaxOutcomeClass + 1);  // last_outcome
  EXPECT_EQ(DecodeUrlRecord(value).status().code(), absl::StatusCode::kDataLoss);
}

TEST(StorageFormatRecords, OverlongVarintIsDataLoss) {
  std::string value = Bytes({1});
  value += std::string(11, static_cast<char>(0xff));  // host_id varint that never ends
  EXPECT_EQ(DecodeHostRecord(value).status().code(), absl::StatusCode::kDataLoss);
}

// docs/storage-format.md names every column family and every frontier.meta key.
TEST(StorageFormatDoc, EveryFamilyAndMetaKeyIsDocumented) {
  const std::vector<std::string> families =
      crawler::testing::DocTableRows("storage-format.md", "## Column families");
  for (const kv::ColumnFamilySpec& family : ColumnFamilies()) {
    EXPECT_NE(crawler::testing::DocRow(families, absl::StrCat("`", family.name, "`")), "")
        << family.name;
  }
  const std::vector<std::string> meta =
      crawler::testing::DocTableRows("storage-format.md", "### `frontier.meta`");
  for (std::string_view key : {kMetaFormatVersionKey, kMetaNextHostIdKey, kMetaNextLeaseIdKey,
                               kMetaLeasesOutKey, kMetaRevisitRatesKey, kMetaRevisitEvidenceKey,
                               kMetaRevisitObservationsKey, kMetaMovingPrefix, kMetaHeldPrefix}) {
    EXPECT_NE(crawler::testing::DocRow(meta, "`" + std::string(key) + "`"), "") << key;
  }
  EXPECT_EQ(std::count_if(meta.begin(), meta.end(),
                          [](const std::string& row) { return absl::StartsWith(row, "| `"); }),
            9)
      << "a key in the doc that the code does not have";
}

}  // namespace
}  // namespace crawler::frontier::storage
