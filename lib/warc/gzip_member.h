// Gzip members (RFC 1952) for WARC record-at-time compression (WARC 1.1 Annex D): every record
// is one complete member, so a reader can start decompressing at any record's offset.
//
// Compressors (whole-buffer DEFLATE: a record is always in memory). Measured per record with
// bench/micro (BM_DeflatePerRecord for zlib, BM_GzipCompressor) on 400 websim response records
// (2-8 KB HTML plus WARC and HTTP headers), CPU time on a 2-core VM under load, so differences
// under ~10% are noise:
//
//   compressor, setting                        CPU per record   compressed / raw
//   zlib level 6 (its default)                 111-124 us       0.353
//   zlib level 1 (this writer's earlier one)    68-74 us        0.377
//   zlib level 2 / 3                            ~70-85 us        0.371 / 0.368
//   zlib level 1, memLevel 6 or 9, window 13: as level 1; Z_RLE / Z_HUFFMAN_ONLY: 5-15% faster,
//     0.61-0.62
//   libdeflate level 1                          35-40 us         0.363
//   libdeflate level 2 / 3                      53-57 / 58-62 us 0.359 / 0.357
//   libdeflate level 6                          78-84 us         0.353
//
// A crawled page also has a request record (~670 bytes: WARC and HTTP request headers) and a
// metadata record (~800 bytes of outlinks), and for records that small a DEFLATE compressor's
// set-up dominates: libdeflate level 1 costs ~8 us even for 100 bytes (it clears a 128 KiB hash
// table and builds Huffman codes per call). Per record type, on 6,000 records of a
// bench/standalone crawl (sizes as above, responses ~5.3 KB; same caveats):
//
//   compressor, setting                  response         request          metadata
//   libdeflate level 1                   42 us / 0.381    12.7 us / 0.687  12.1 us / 0.516
//   ISA-L igzip level 1                  25-29 us / 0.392  9.7 us / 0.689   9.5 us / 0.518
//   ISA-L level 0, fixed codes            18 us / 0.476   2.2 us / 0.805   1.9 us / 0.605
//   ISA-L level 0, its default codes      17 us / 0.444   2.7 us / 0.942   2.7 us / 0.666
//   ISA-L level 1 >= 2 KiB, level 0 with fixed codes below: 31 instead of 67 us per page
//     (libdeflate level 1), 0.453 instead of 0.423 of the raw bytes (7% larger files).
//
// So level 1, the writer's default (WarcWriterOptions::compression_level), is ISA-L's igzip
// (Intel's Intelligent Storage Acceleration library): members of at least kSmallMemberBytes at
// igzip level 1, smaller ones at igzip level 0 with the fixed Huffman codes of RFC 1951 §3.2.6
// (no code construction, no hash table to clear). Levels 2-9 are libdeflate at that level, for
// smaller files at more CPU. GzipCompressor keeps its state (igzip's level buffer, libdeflate's
// compressor) between records: setting up a fresh one per record allocates a few hundred KiB
// that glibc can hand back to the kernel and fault in again each time (measured with zlib: 138
// instead of 69 us per record in such a heap state).
//
// Thread-safety: GzipMember is a pure function. A GzipCompressor is not thread-safe; use one per
// thread (WarcWriter keeps a pool).
#ifndef CRAWLER_LIB_WARC_GZIP_MEMBER_H_
#define CRAWLER_LIB_WARC_GZIP_MEMBER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// libdeflate's compressor, declared here so that the header needs no libdeflate include.
struct libdeflate_compressor;

namespace crawler::warc {

class GzipCompressor {
 public:
  // At level 1, members shorter than this are compressed with fixed codes (see above).
  static constexpr size_t kSmallMemberBytes = 2048;

  // `level`: compression level 1..9 (clamped; comparable to zlib's): 1 is ISA-L, 2-9 libdeflate.
  explicit GzipCompressor(int level);
  ~GzipCompressor();
  GzipCompressor(const GzipCompressor&) = delete;
  GzipCompressor& operator=(const GzipCompressor&) = delete;

  int level() const { return level_; }

  // `data` as one complete gzip member; empty if the compressor could not be allocated.
  std::string Compress(std::string_view data);
  // Appends `data` as one complete gzip member to `out`, keeping what `out` holds (the members
  // of a batch of records go into one buffer, written with one system call). False, with `out`
  // unchanged, if the compressor could not be allocated or `data` is 4 GiB or more.
  bool AppendMember(std::string_view data, std::string& out);

 private:
  bool AppendIgzipMember(std::string_view data, std::string& out);
  bool AppendLibdeflateMember(std::string_view data, std::string& out);

  const int level_;
  // Level 1: igzip's working memory for its level 1 (hash table and token buffer).
  std::vector<uint8_t> igzip_level_buffer_;
  // Levels 2-9: owned; null if allocation failed.
  libdeflate_compressor* const compressor_;
};

// Compresses `data` as one complete gzip member (RFC 1952) with a fresh compressor; empty on
// failure.
std::string GzipMember(std::string_view data, int level);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_GZIP_MEMBER_H_
