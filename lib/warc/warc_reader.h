// WarcReader: reads WARC/1.0 and 1.1 records back, from plain or gzip (one or many members)
// files. Used by tests, by `crawler inspect`, and to recover ".open" files after a crash. It
// streams: memory is bounded by the largest record (max_record_bytes), not by the file.
//
// Thread-safety: a WarcReader is used by one thread at a time.
#ifndef CRAWLER_LIB_WARC_WARC_READER_H_
#define CRAWLER_LIB_WARC_WARC_READER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler::warc {

struct ParsedRecord {
  std::string version;                                      // "WARC/1.1"
  std::vector<std::pair<std::string, std::string>> fields;  // in file order
  std::string block;

  // First value of a field, case-insensitive name; empty if absent.
  std::string Field(std::string_view name) const;
};

class WarcReader {
 public:
  static absl::StatusOr<std::unique_ptr<WarcReader>> Open(const std::string& path,
                                                          uint64_t max_record_bytes = 1ull << 30);
  ~WarcReader();
  WarcReader(const WarcReader&) = delete;
  WarcReader& operator=(const WarcReader&) = delete;

  // The next record, nullopt at a clean end of file. kDataLoss for a truncated or malformed
  // record (e.g. the partial last record of a crashed writer); kResourceExhausted for a record
  // larger than max_record_bytes.
  absl::StatusOr<std::optional<ParsedRecord>> Next();

 private:
  WarcReader(std::FILE* file, uint64_t max_record_bytes);
  // Appends more decompressed bytes to buffer_; false at end of input.
  absl::StatusOr<bool> Fill();

  std::FILE* file_;
  const uint64_t max_record_bytes_;
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;  // null for plain (uncompressed) files
  std::string buffer_;                  // decompressed, not yet consumed
  size_t consumed_ = 0;
  bool eof_ = false;
};

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_WARC_READER_H_
