// WarcReader: reads WARC/1.0 and 1.1 records back, from plain or gzip (one or many members)
// files. Used by tests and by `crawler warc verify` (warc_verifier.h). It streams: memory is
// bounded by the largest record (max_record_bytes), not by the file. It says where each record
// begins in the file (offset()), so that damage can be located.
//
// Thread-safety: a WarcReader is used by one thread at a time.
#ifndef CRAWLER_LIB_WARC_WARC_READER_H_
#define CRAWLER_LIB_WARC_WARC_READER_H_

#include <cstdint>
#include <cstdio>
#include <deque>
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
  // Reads from `start_offset` on, which must be where a record begins (in a gzip file, where
  // its gzip member begins: kDataLoss if no member begins there); offsets stay those of the
  // whole file. Whether the file is gzip is told by its first bytes.
  static absl::StatusOr<std::unique_ptr<WarcReader>> Open(const std::string& path,
                                                          uint64_t max_record_bytes = 1ull << 30,
                                                          uint64_t start_offset = 0);
  ~WarcReader();
  WarcReader(const WarcReader&) = delete;
  WarcReader& operator=(const WarcReader&) = delete;

  // The next record, nullopt at a clean end of file. kDataLoss for a truncated or malformed
  // record (e.g. the partial last record of a crashed writer), corrupt gzip data, or a file that
  // ends inside a gzip member; kResourceExhausted for a record larger than max_record_bytes.
  absl::StatusOr<std::optional<ParsedRecord>> Next();

  // Where the record Next last returned begins in the file -- after an error, the record (or,
  // for corrupt gzip data, the gzip member) that is damaged: in a gzip file the offset of the
  // gzip member the record starts in (WARC 1.1 Annex D: one record per member), in a plain file
  // the offset of its first byte.
  uint64_t offset() const { return offset_; }

  // Whether the file is gzip-compressed (else plain).
  bool compressed() const { return inflater_ != nullptr; }
  // In a plain file, where the block of the record Next last returned ends (before the two
  // CRLFs that close a record): offset() + header + Content-Length.
  uint64_t block_end() const { return offset_ + consumed_; }

 private:
  WarcReader(std::FILE* file, uint64_t max_record_bytes);
  // Appends more decompressed bytes to buffer_; false at end of input.
  absl::StatusOr<bool> Fill();
  // Drops the first n bytes of buffer_.
  void Erase(size_t n);
  // Sets offset_ for a record starting at buffer_[0].
  void NoteRecordStart();

  std::FILE* file_;
  const uint64_t max_record_bytes_;
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;  // null for plain (uncompressed) files
  std::string buffer_;                  // decompressed, not yet consumed
  size_t consumed_ = 0;
  bool eof_ = false;
  uint64_t offset_ = 0;
  // Decompressed bytes dropped from buffer_ so far: buffer_[i] is byte erased_ + i of the
  // decompressed stream.
  uint64_t erased_ = 0;
  uint64_t member_offset_ = 0;  // in the file, of the gzip member being inflated
  // (decompressed stream position, file offset of the gzip member it came from), in order: the
  // members of the bytes still in buffer_.
  std::deque<std::pair<uint64_t, uint64_t>> member_marks_;
};

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_WARC_READER_H_
