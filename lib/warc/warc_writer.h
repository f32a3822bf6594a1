// WarcWriter: appends WarcRecords to WARC/1.1 files in a directory, one gzip member per record
// (WARC 1.1 Annex D: "record-at-time compression", so readers can seek to any record), rotating
// to a new file when the current one reaches max_file_bytes. Each file begins with a warcinfo
// record describing the crawl, and every later record names it in WARC-Warcinfo-ID.
//
// File names follow the IIPC recommendation Prefix-Timestamp-Serial-Crawlhost:
//   <prefix>-<YYYYmmddHHMMSS>-<serial, 5 digits>-<pid>.warc.gz
// While a file is being written it carries a ".open" suffix, removed by rotation and Close(), so
// a file without the suffix is complete. Each record is handed to the kernel in one write(), so a
// killed process loses at most the record (or the batch, WriteAll) it was writing. A write that
// fails (a full disk) is cut back to the last complete record at once.
//
// One writer owns each file: it creates the ".open" name exclusively (O_EXCL; a name already
// taken, by a finished file too, moves on to the next serial) and holds an exclusive flock(2) on
// it until the file has its final name, so writers of any prefix, in one process or several,
// can share a directory. Open() finishes the ".open" files of its own prefix that no live writer
// holds locked -- those of a killed writer: each is cut back to its last complete gzip member
// and renamed to its final name (RecoverInterruptedFiles). A live writer's file is never
// touched. (flock is advisory and, on NFS, emulated with byte-range locks: every writer of the
// directory must be this class.)
//
// Index (write_index): the CDXJ index of each file (lib/warc/cdxj_indexer.h), made from the
// records as they are written rather than by reading the finished file back (which inflates and
// parses every record again). Lines are sorted in bounded memory (ExternalSorter, runs spilled to
// the directory) and written as "X.cdxj" before the file gets its final name, so a finished file
// of a live writer always has its index; a file cut back after a failed write is indexed as cut.
// An index that cannot be written is left out (IndexesFailed): the file is then one without an
// index, which an indexer reading it can make (services/fetcher/archive_indexer.h), as it does
// for the files of a killed writer.
//
// Compression (gzip_member.h has the measurements behind the settings): ISA-L's igzip at
// `compression_level` 1 (the default), libdeflate at 2-9; one compressor per concurrent Write,
// kept in a pool between records.
//
// Thread-safety: all methods are thread-safe (one mutex; a record is compressed outside it).
#ifndef CRAWLER_LIB_WARC_WARC_WRITER_H_
#define CRAWLER_LIB_WARC_WARC_WRITER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/clock/clock.h"
#include "lib/warc/cdxj.h"
#include "lib/warc/external_sorter.h"
#include "lib/warc/gzip_member.h"
#include "lib/warc/warc_record.h"

namespace crawler::warc {

struct WarcWriterOptions {
  std::string directory;         // created if missing
  std::string prefix = "crawl";  // first part of file names
  // Rotate after this many bytes (compressed). 1 GB is the customary WARC size (WARC 1.1 Annex C
  // recommends 1 GB): large enough to keep file counts low, small enough to move around.
  uint64_t max_file_bytes = 1'000'000'000;
  // Gzip level 1..9. 1 (ISA-L igzip) costs less than half the CPU of libdeflate's level 1 for
  // ~7% larger files (a crawl's records shrink ~2.2x); 2-9 are libdeflate's levels (at 2 a page
  // costs ~3x the CPU of level 1 for ~7% smaller files; more at higher levels). At crawl rates of
  // thousands of pages per second compression would otherwise dominate CPU. Measurements:
  // gzip_member.h.
  int compression_level = 1;
  // warcinfo fields (WARC 1.1 §6.2 recommends these names).
  std::string software = "crawler/0.1";
  std::string operator_name;
  std::string description;
  std::string http_header_user_agent;
  std::string robots_policy = "obey";
  // Durability: Sync() fsyncs what was written, and a file finished by rotation or Close() is
  // fsynced before its rename (its directory at the next Sync). Off: Sync() does nothing and
  // records reach the disk when the kernel writes them back (a kernel crash or power loss may
  // lose the last seconds of records; a killed process loses nothing it wrote).
  bool sync = true;
  // Write each file's CDXJ index beside it as the records are written (above).
  bool write_index = false;
  // Bytes of index lines held per file before a sorted run is spilled to the directory.
  size_t index_memory_bytes = size_t{16} << 20;
  // Called after a file got its final name with its index beside it (write_index), under the
  // writer's lock: it must only note the pair (e.g. queue it), never write through this writer.
  std::function<void(const std::string& warc, const std::string& cdxj)> indexed;
};

class WarcWriter {
 public:
  // Creates the directory if needed and opens the first file. `clock` must outlive the writer;
  // `seed` drives record ids (urn:uuid, version 4), so seed it from a real entropy source in
  // production and fixed in tests.
  static absl::StatusOr<std::unique_ptr<WarcWriter>> Open(const WarcWriterOptions& options,
                                                          const Clock& clock, uint64_t seed);
  ~WarcWriter();
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;

  // A fresh "<urn:uuid:...>" for a record the caller is about to write (so request and response
  // records can name each other before either is written).
  std::string NewRecordId();

  // Appends one record. Fills record_id (if empty), date (if InfinitePast) and warcinfo_id.
  // Returns the record id. Errors: kUnavailable / kInternal on I/O failure (e.g. a full disk);
  // the file it failed in is cut back to its last complete record and the writer stays usable
  // (the next Write tries again, on a new file).
  absl::StatusOr<std::string> Write(WarcRecord record);

  // Appends `records` in order, filled in as Write does: the same records, in the same files,
  // as a Write of each, but one lock acquisition and one write() for all of them (a page worker
  // writes the 2-3 records of each page of its batch at once), or one per file when the batch
  // crosses a rotation. The ids the records lack are drawn before any is written; records that
  // will be referred to need their record_id set beforehand (NewRecordId). Errors as Write; the
  // records before the one whose write failed may be in a file, the others are not.
  absl::Status WriteAll(std::vector<WarcRecord> records);

  // Makes every record written before the call durable (fsync of the current file and, when a
  // file was created or renamed since the last Sync, of the directory), so a page may be
  // marked done once the records it wrote are in. Nothing written since the last Sync: returns
  // at once. Writers are not held up by the fsync (it works on a duplicate of the descriptor).
  // Errors: kUnavailable naming the file and the cause. A no-op when options.sync is off.
  absl::Status Sync() ABSL_LOCKS_EXCLUDED(mu_);

  // Closes the current file (renaming it to its final name). Further writes fail.
  absl::Status Close();

  // A ".open" file of a killed writer, finished at Open: its final name (empty when nothing in
  // it was complete and it was removed), the bytes kept (complete records) and the bytes of a
  // torn last record that were cut off.
  struct Recovered {
    std::string path;
    std::string open_path;
    uint64_t kept_bytes = 0;
    uint64_t cut_bytes = 0;

    // One line for the crawl's log: what was finished, and where a torn record was cut.
    std::string Describe() const;
  };

  // Finishes the ".open" files "<prefix>-<timestamp>-..." of `directory` left by a writer that
  // was killed: truncates each to its last complete gzip member (a record) and renames it
  // without the suffix. Files that a live writer holds locked, and files of other prefixes, are
  // left alone, so this is safe while other writers use the directory. A torn record holds a
  // page whose completion was never sent (records are made durable before the page is marked
  // done, Sync), so the page is fetched again when the crawl resumes.
  static absl::StatusOr<std::vector<Recovered>> RecoverInterruptedFiles(
      const std::string& directory, const std::string& prefix);

  // The options the writer was opened with.
  const WarcWriterOptions& options() const { return options_; }

  // What Open recovered (RecoverInterruptedFiles), for the caller to report.
  const std::vector<Recovered>& recovered() const { return recovered_; }

  // Final names of every file completed so far (recovered ones included), and the current one
  // (with ".open").
  std::vector<std::string> Files() const;
  // Records written by this writer (each file's warcinfo included), and their bytes as stored
  // (gzip members), over all its files; recovered files not included.
  uint64_t RecordsWritten() const;
  uint64_t BytesWritten() const;
  // Files whose index (write_index) could not be written, since Open.
  uint64_t IndexesFailed() const;

 private:
  WarcWriter(const WarcWriterOptions& options, const Clock& clock, uint64_t seed);
  std::vector<Recovered> recovered_;  // set by Open, then constant
  absl::Status OpenNextFileLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CloseFileLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AbandonFileAfterFailedWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WriteBytesLocked(std::string_view gz) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The index of the file being closed, written beside its final name; false if it was not.
  bool WriteIndexLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string NewRecordIdLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Write and WriteAll: fills in ids, dates and the warcinfo id, compresses and appends.
  absl::Status WriteRecords(std::span<WarcRecord> records) ABSL_LOCKS_EXCLUDED(mu_);
  // Compresses `records` and appends them; fills in the current warcinfo id. `entries`: the
  // records' index entries (write_index; one per record, nullopt for those not indexed), or
  // empty.
  absl::Status WriteCompressed(std::span<WarcRecord> records,
                               std::span<std::optional<CdxjEntry>> entries,
                               GzipCompressor& compressor) ABSL_LOCKS_EXCLUDED(mu_);
  // An idle compressor from the pool, or a new one; give it back with ReturnCompressor.
  std::unique_ptr<GzipCompressor> TakeCompressor() ABSL_LOCKS_EXCLUDED(compressors_mu_);
  void ReturnCompressor(std::unique_ptr<GzipCompressor> compressor)
      ABSL_LOCKS_EXCLUDED(compressors_mu_);

  // Constant after construction.
  const WarcWriterOptions options_;
  const Clock& clock_;

  mutable absl::Mutex mu_;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
  int fd_ ABSL_GUARDED_BY(mu_) = -1;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  uint32_t serial_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t file_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t records_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  std::string open_path_ ABSL_GUARDED_BY(mu_);   // with ".open"
  std::string final_path_ ABSL_GUARDED_BY(mu_);  // without
  std::string warcinfo_id_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> files_ ABSL_GUARDED_BY(mu_);
  // The current file's index lines (write_index); null when not indexed or given up on.
  std::unique_ptr<ExternalSorter> index_ ABSL_GUARDED_BY(mu_);
  uint64_t indexes_failed_ ABSL_GUARDED_BY(mu_) = 0;
  // Bytes written to the current file that no Sync has covered; a file was created or renamed
  // since the last Sync (the directory needs an fsync).
  bool unsynced_ ABSL_GUARDED_BY(mu_) = false;
  bool directory_unsynced_ ABSL_GUARDED_BY(mu_) = false;
  // One Sync at a time (taken before mu_): a second waits for the first, then finds less to do.
  absl::Mutex sync_mu_ ABSL_ACQUIRED_BEFORE(mu_);

  // Compressors not in use: as many as Write calls ran at once (the page workers). A leaf lock:
  // nothing else is acquired while holding it.
  absl::Mutex compressors_mu_;
  std::vector<std::unique_ptr<GzipCompressor>> idle_compressors_ ABSL_GUARDED_BY(compressors_mu_);
};

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_WARC_WRITER_H_
