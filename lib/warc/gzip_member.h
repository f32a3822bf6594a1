// Gzip members (RFC 1952) for WARC record-at-time compression (WARC 1.1 Annex D): every record
// is one complete member, so a reader can start decompressing at any record's offset.
//
// The compressor is libdeflate (whole-buffer DEFLATE; a record is always in memory), not zlib.
// Measured per record with bench/micro (BM_DeflatePerRecord for zlib, BM_GzipCompressor) on 400
// websim response records (2-8 KB HTML plus WARC and HTTP headers), CPU time on a 2-core VM
// under load, so differences under ~10% are noise:
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
// (A separate run over all 1,860 pages of a 30-host export agreed: zlib 1 65 us / 0.364,
// libdeflate 1 37 us / 0.350.)
//
// libdeflate level 1 is ~1.9x faster than zlib level 1 and compresses better, so WARC writing
// uses it at level 1 (WarcWriterOptions::compression_level). zlib's own knobs buy nothing at
// level 1: Huffman coding and the CRC dominate there. GzipCompressor keeps its compressor state
// between records: setting up a fresh one per record (as zlib's deflateInit2/deflateEnd did)
// allocates and frees a few hundred KiB that glibc can hand back to the kernel and fault in again
// each time (measured: 138 instead of 69 us per record with zlib in such a heap state).
//
// Thread-safety: GzipMember is a pure function. A GzipCompressor is not thread-safe; use one per
// thread (WarcWriter keeps a pool).
#ifndef CRAWLER_LIB_WARC_GZIP_MEMBER_H_
#define CRAWLER_LIB_WARC_GZIP_MEMBER_H_

#include <string>
#include <string_view>

// libdeflate's compressor, declared here so that the header needs no libdeflate include.
struct libdeflate_compressor;

namespace crawler::warc {

class GzipCompressor {
 public:
  // `level`: compression level 1..9 (clamped; libdeflate's levels, comparable to zlib's).
  explicit GzipCompressor(int level);
  ~GzipCompressor();
  GzipCompressor(const GzipCompressor&) = delete;
  GzipCompressor& operator=(const GzipCompressor&) = delete;

  int level() const { return level_; }

  // `data` as one complete gzip member; empty if the compressor could not be allocated.
  std::string Compress(std::string_view data);

 private:
  const int level_;
  libdeflate_compressor* const compressor_;  // owned; null if allocation failed
};

// Compresses `data` as one complete gzip member (RFC 1952) with a fresh compressor; empty on
// failure.
std::string GzipMember(std::string_view data, int level);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_GZIP_MEMBER_H_
