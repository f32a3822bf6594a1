// IndexWarcFile: the CDXJ entries (cdxj.h) of one WARC file, read record by record with each
// record's place in the file; WriteCdxjIndex: the sorted CDXJ file of a WARC file.
//
// Which records are indexed -- those warcio.js's CDXJ indexer indexes by default: every record
// with a WARC-Target-URI except request and warcinfo records and metadata or resource records
// of Content-Type "application/warc-fields" (a crawler's outlinks, not a capture). So a
// response, a revisit, a resource and a metadata record of another type each give one entry,
// whether or not a request record accompanies it.
//
// Where a record is: its offset is where its gzip member begins (WARC 1.1 Annex D: one record
// per member), its length runs to where the next record's member begins (the last one's to the
// end of the file); in an uncompressed file, from its first byte to the end of its block (the
// two CRLFs after it are not counted, as warcio.js does not count them). A gzip
// file whose records share members (the whole file as one gzip stream) cannot be addressed that
// way and is refused (kFailedPrecondition naming the record), as is any damage the reader finds
// (kDataLoss with the offset of the damaged record: a truncated file, a gzip member cut short,
// a malformed record) -- an index of part of a file is never written as if it were whole.
//
// Deviations from warcio.js, none of which a WARC of this crawler shows:
//   - a response paired with a non-GET request is keyed by its URL alone; warcio.js appends
//     the request method and body to the key (pywb's "post-append");
//   - the HTTP status and Content-Type are those of the final response in the block, where
//     warcio.js takes the first head (a 1xx interim response, if any);
//   - JSON strings escape DEL and the C0 controls other than \n \r \t as \u00XX (JSON.stringify
//     writes \b and \f, and DEL as is); canonical URLs and media types contain none of them.
//
// Thread-safety: pure functions of the files they read; one call per file at a time.
#ifndef CRAWLER_LIB_WARC_CDXJ_INDEXER_H_
#define CRAWLER_LIB_WARC_CDXJ_INDEXER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "lib/warc/cdxj.h"
#include "lib/warc/external_sorter.h"
#include "lib/warc/warc_reader.h"
#include "lib/warc/warc_record.h"

namespace crawler::warc {

struct CdxjIndexOptions {
  // Records larger than this stop the indexing (kResourceExhausted): memory is bounded by two
  // records (the one read and the one whose length waits for the next).
  uint64_t max_record_bytes = uint64_t{1} << 30;
  // Where sorting spills runs of lines (WriteCdxjIndex): the index's directory when empty.
  std::string temp_dir;
  // Index lines held in memory before a sorted run is spilled to temp_dir.
  size_t sort_memory_bytes = size_t{64} << 20;
};

struct CdxjIndexStats {
  uint64_t records = 0;  // read
  uint64_t entries = 0;  // indexed
};

// One record of the file and its place, as IndexWarcFile hands it on.
struct PlacedRecord {
  const ParsedRecord& record;
  uint64_t offset = 0;
  uint64_t length = 0;
  const CdxjEntry* entry = nullptr;  // null when the record is not indexed
};

// Reads `path` to its end and calls `visit` for every record in file order, with its CDXJ
// entry when it has one (`filename` is the entry's filename member). Stops at the first
// non-OK status `visit` returns, and returns it. Errors as in the file comment; kNotFound if
// the file cannot be opened.
absl::Status IndexWarcFile(const std::string& path, const std::string& filename,
                           const CdxjIndexOptions& options,
                           const std::function<absl::Status(const PlacedRecord&)>& visit,
                           CdxjIndexStats* stats = nullptr);

// Indexes `warc_path` into `cdxj_path`, sorted: written to a temporary name beside it, flushed
// to disk and renamed, so the index either exists complete or not at all. Errors of the WARC as
// IndexWarcFile; kUnavailable for a write that fails.
absl::Status WriteCdxjIndex(const std::string& warc_path, const std::string& cdxj_path,
                            const CdxjIndexOptions& options, CdxjIndexStats* stats = nullptr);

// The entry of one record (its offset and length left 0), or nullopt when the record is not
// indexed.
std::optional<CdxjEntry> EntryForRecord(const ParsedRecord& record, const std::string& filename);

// The entry EntryForRecord gives `record` once a WarcWriter has written it (and a reader read
// it back), without writing or reading it: what a writer indexes its records by as it writes
// them (WarcWriterOptions::write_index).
std::optional<CdxjEntry> EntryForWrittenRecord(const WarcRecord& record,
                                               const std::string& filename);

// Writes the lines of `sorter` (Finish) to `cdxj_path`: under a temporary name beside it, made
// durable when `sync`, then renamed, so the index either exists complete or not at all.
// kUnavailable for a write that fails (the temporary file is removed).
absl::Status WriteSortedIndex(ExternalSorter& sorter, const std::string& cdxj_path, bool sync);

// The CDXJ file that belongs beside a WARC file: "x.warc.gz" and "x.warc" -> "x.cdxj".
std::string CdxjPathFor(const std::string& warc_path);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_CDXJ_INDEXER_H_
