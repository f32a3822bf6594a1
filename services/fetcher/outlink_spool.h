// OutlinkSpool: outlinks kept on disk for one frontier partition that does not take them now
// (OutlinkOutbox, outlink_outbox.h), in the order they were kept, until that partition takes
// them. An on-disk format (docs/storage-format.md, "Outlinks owed to other partitions"):
//
//   <dir>/<sequence, 16 hex digits>.spool   segments, oldest first
//
// each segment the line "crawler-outlinks 1\n", then records of
//   varint length | varint depth | byte priority | varint n + canonical URL |
//   varint n + host key | varint n + discovered_from
// (length: the bytes after it). Appends go to the newest segment, which is closed (and a new
// one started) at `segment_bytes`, or when the reader reaches it; the reader takes a closed
// segment whole into memory and deletes it once every URL of it was taken. A torn last record
// (a crash mid-append, before the Sync that would have made it count) ends a segment's reading.
// After a crash the segment being read is read again from its start: its URLs may reach the
// partition twice, which AddUrls counts as already seen.
//
// Bounded: Append refuses (kResourceExhausted) what would take the segments past `max_bytes`;
// memory holds one segment being read (at most segment_bytes of records, decoded).
//
// Thread-safety: none; the outbox serialises every call under its mutex.
#ifndef CRAWLER_SERVICES_FETCHER_OUTLINK_SPOOL_H_
#define CRAWLER_SERVICES_FETCHER_OUTLINK_SPOOL_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/frontier/frontier_api.h"

namespace crawler::fetcher {

class OutlinkSpool {
 public:
  // Opens `dir` (created if absent) and counts the URLs of the segments found there (a previous
  // process's). kUnavailable naming the path when the directory cannot be created or read.
  static absl::StatusOr<std::unique_ptr<OutlinkSpool>> Open(const std::string& dir,
                                                            uint64_t max_bytes,
                                                            uint64_t segment_bytes = 4 << 20);
  ~OutlinkSpool();
  OutlinkSpool(const OutlinkSpool&) = delete;
  OutlinkSpool& operator=(const OutlinkSpool&) = delete;

  // Appends `urls` (in order) behind what is kept. Not durable before Sync(). kResourceExhausted
  // past max_bytes (nothing appended); kUnavailable naming the file when a write fails.
  absl::Status Append(const std::vector<frontier::UrlToAdd>& urls);
  // Makes every Append so far survive a crash (fdatasync; the directory too after a new segment).
  absl::Status Sync();

  // The oldest URLs kept, at most `max` (fewer at a segment's end); empty when nothing is kept.
  // They stay kept until Consume. kDataLoss naming the segment that cannot be read (it is then
  // set aside as <name>.bad, so the spool goes on with the next).
  absl::StatusOr<std::vector<frontier::UrlToAdd>> Peek(size_t max);
  // The partition took the first `n` URLs Peek returned: they are no longer kept.
  absl::Status Consume(size_t n);

  bool empty() const { return urls_ == 0; }
  uint64_t urls() const { return urls_; }
  uint64_t bytes() const { return bytes_; }

 private:
  struct Segment {
    uint64_t sequence = 0;
    uint64_t bytes = 0;
    uint64_t urls = 0;
  };
  OutlinkSpool(std::string dir, uint64_t max_bytes, uint64_t segment_bytes);
  std::string PathOf(uint64_t sequence) const;
  absl::Status CloseWriter();
  // Loads the oldest closed segment into `reading_`.
  absl::Status LoadOldest();

  const std::string dir_;
  const uint64_t max_bytes_;
  const uint64_t segment_bytes_;
  std::deque<Segment> segments_;  // oldest first; the last is being written when fd_ >= 0
  int fd_ = -1;
  bool new_segment_unsynced_ = false;  // a segment was created since the last Sync
  bool loaded_ = false;                 // reading_ holds segments_.front()'s remaining URLs
  std::deque<frontier::UrlToAdd> reading_;
  uint64_t urls_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_OUTLINK_SPOOL_H_
