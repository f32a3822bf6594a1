// ZipWriter: writes a ZIP file (PKWARE APPNOTE 6.3) of stored -- uncompressed -- entries, as a
// WACZ package needs them: a replayer reads a WARC record or an index block straight out of the
// package with an HTTP range request, which only works when the bytes are stored as they are.
//
// Streamed: an entry is copied from its file in 1 MiB pieces, so memory does not grow with the
// package. Each file is read twice: once for its CRC-32 (which the local header carries before
// the data; no data descriptors, which some range readers do not look for) and SHA-256, then
// for the copy, which checks that the file did not change in between.
//
// ZIP64 (APPNOTE 4.5.3): an entry whose size or local header offset reaches
// `zip64_threshold` (4 GiB - 1 by default) gets a ZIP64 extended information field -- in its
// local header too when the sizes need it, so the local and central extra fields say the same
// --, and a package with such an entry or more than 65,534 entries ends with the ZIP64 end of
// central directory record and locator. Names are UTF-8 (flag bit 11).
//
// Thread-safety: one thread at a time.
#ifndef CRAWLER_LIB_WACZ_ZIP_WRITER_H_
#define CRAWLER_LIB_WACZ_ZIP_WRITER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler::wacz {

struct ZipWriterOptions {
  // The modification time of every entry (MS-DOS form: two-second steps, local time taken as UTC).
  absl::Time modified = absl::UnixEpoch();
  // Sizes and offsets at or above this use ZIP64 fields. Only tests set another value (to
  // exercise the ZIP64 paths without writing 4 GiB).
  uint64_t zip64_threshold = 0xFFFFFFFF;
};

struct ZipEntryInfo {
  std::string name;
  uint64_t size = 0;
  std::string sha256;  // "sha256:<hex>"
};

class ZipWriter {
 public:
  // Creates (truncates) `path`. kUnavailable if it cannot be created.
  static absl::StatusOr<std::unique_ptr<ZipWriter>> Create(const std::string& path,
                                                           const ZipWriterOptions& options);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  // Adds the contents of the file at `source` as entry `name`. kNotFound if it cannot be read,
  // kAborted if it changed between the two reads, kUnavailable for a write that fails.
  absl::StatusOr<ZipEntryInfo> AddFile(std::string_view name, const std::string& source);
  // Adds `data` as entry `name`.
  absl::StatusOr<ZipEntryInfo> AddBytes(std::string_view name, std::string_view data);

  // Writes the central directory and closes the file. No entry can be added afterwards.
  absl::Status Close();

  // Bytes written so far.
  uint64_t bytes_written() const { return offset_; }

 private:
  struct Entry {
    std::string name;
    uint32_t crc = 0;
    uint64_t size = 0;
    uint64_t header_offset = 0;
    bool zip64_sizes = false;
  };
  ZipWriter(std::FILE* file, std::string path, const ZipWriterOptions& options);
  absl::Status Write(std::string_view bytes);
  absl::Status WriteLocalHeader(const Entry& entry);
  absl::Status WriteEnd();

  std::FILE* file_;
  const std::string path_;
  const ZipWriterOptions options_;
  const uint16_t dos_time_;
  const uint16_t dos_date_;
  uint64_t offset_ = 0;
  std::vector<Entry> entries_;
  bool closed_ = false;
};

}  // namespace crawler::wacz

#endif  // CRAWLER_LIB_WACZ_ZIP_WRITER_H_
