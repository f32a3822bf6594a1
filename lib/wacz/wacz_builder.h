// BuildWacz: packages WARC files as a WACZ 1.1.1 file (Web Archive Collection Zipped,
// https://specs.webrecorder.net/wacz/1.1.1/), which ReplayWeb.page opens and pywb can serve:
//
//   archive/<name>.warc.gz          the WARC files, stored byte for byte (not recompressed)
//   indexes/index.cdxj              one CDXJ index of every record (lib/warc/cdxj.h), sorted;
//   or indexes/index.cdx.gz         for a large collection the compressed form: the same lines
//      indexes/index.idx            in gzip members of `lines_per_block` lines, and a
//                                   secondary index of each member's first key, offset, length
//                                   and SHA-256 ("!meta 0 {"format":"cdxj-gzip-1.0",...}"
//                                   first), which a replayer binary-searches and then fetches
//                                   one member with a range request
//   pages/pages.jsonl               {"format":"json-pages-1.0",...} and one line per page: an
//                                   HTML capture with a 2xx status, once per URL (its first
//                                   capture), with id, url, ts (RFC 3339), title, and
//                                   "seed": true for the crawl's seeds (metadata records whose
//                                   "depth" field is 0)
//   datapackage.json                profile "data-package", every resource's path, bytes and
//                                   "sha256:<hex>", wacz_version "1.1.1", title, software,
//                                   created
//   datapackage-digest.json         the SHA-256 of datapackage.json
//
// Every record is indexed afresh from the WARC bytes being packaged (an index that came with
// the files is not trusted), in the same pass that finds the pages. Memory is bounded whatever
// the size of the collection: index and page lines are sorted externally (spilled to
// `temp_dir`), entries are streamed into the ZIP file (zip_writer.h), WARC records are held one
// or two at a time.
//
// Refused, with nothing written (the package is built under a temporary name and renamed only
// when complete): two inputs with the same file name (they would be one archive/ entry), a name
// that is not *.warc.gz or *.warc, and any WARC that cannot be indexed whole -- truncated, a
// gzip member cut short or corrupt, a malformed record, records sharing a gzip member --, named
// with the offset of the damage. A WARC without request records is packaged like any other:
// nothing in the index or the page list needs them.
//
// Thread-safety: a pure function of its inputs; one call per output at a time.
#ifndef CRAWLER_LIB_WACZ_WACZ_BUILDER_H_
#define CRAWLER_LIB_WACZ_WACZ_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace crawler::wacz {

enum class IndexForm {
  kAuto,        // kCdxj up to compressed_index_min_lines lines, kCompressed from there
  kCdxj,        // indexes/index.cdxj
  kCompressed,  // indexes/index.cdx.gz + indexes/index.idx
};

struct WaczOptions {
  // The WARC files, in the order they are packaged. Required.
  std::vector<std::string> warc_files;
  // The package to write. Required.
  std::string output;
  // datapackage.json's title (the collection's name); empty: left out.
  std::string title;
  // datapackage.json's software.
  std::string software = "crawler";
  // datapackage.json's created, and the entries' modification time.
  absl::Time created = absl::UnixEpoch();
  IndexForm index_form = IndexForm::kAuto;
  // From this many index lines on, kAuto chooses the compressed form: a replayer loads a plain
  // index whole before it shows anything, the compressed one a block at a time. 10,000 lines
  // (~3 MB) load in about a second.
  uint64_t compressed_index_min_lines = 10'000;
  // Lines per gzip member of the compressed form (what py-wacz and ArchiveWeb.page use).
  size_t lines_per_block = 1024;
  // Where sorting spills and the generated entries are staged before they go into the package:
  // the output's directory when empty.
  std::string temp_dir;
  // Bytes of index and page lines held in memory before the sorts spill (half each): with a
  // record or two and the copy buffer, what bounds the build's memory.
  size_t sort_memory_bytes = size_t{64} << 20;
  // ZIP64 from this size or offset on (zip_writer.h); tests lower it.
  uint64_t zip64_threshold = 0xFFFFFFFF;
};

struct WaczReport {
  uint64_t warc_files = 0;
  uint64_t records = 0;
  uint64_t index_lines = 0;
  uint64_t index_blocks = 0;  // gzip members of the compressed index (0 for the plain form)
  uint64_t pages = 0;
  uint64_t seeds = 0;
  uint64_t bytes = 0;  // of the package
  IndexForm index_form = IndexForm::kCdxj;
};

// Builds the package (see the file comment). Errors: kInvalidArgument for options or names
// that cannot be packaged; a WARC's damage as lib/warc's IndexWarcFile reports it (kDataLoss,
// kFailedPrecondition, kResourceExhausted); kNotFound for an input that cannot be read;
// kUnavailable for a write that fails.
absl::StatusOr<WaczReport> BuildWacz(const WaczOptions& options);

}  // namespace crawler::wacz

#endif  // CRAWLER_LIB_WACZ_WACZ_BUILDER_H_
