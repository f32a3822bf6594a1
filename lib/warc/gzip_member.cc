#include "lib/warc/gzip_member.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>

#include <algorithm>
#include <limits>

namespace crawler::warc {
namespace {

// An upper bound of igzip's output for `n` input bytes: at worst it stores the data (5 bytes of
// block header per 64 KiB block), plus the gzip header (10 bytes) and trailer (8 bytes).
size_t IgzipBound(size_t n) { return n + 5 * (n / 65535 + 1) + 64; }

}  // namespace

GzipCompressor::GzipCompressor(int level)
    : level_(std::clamp(level, 1, 9)),
      igzip_level_buffer_(level_ == 1 ? ISAL_DEF_LVL1_DEFAULT : 0),
      compressor_(level_ == 1 ? nullptr : libdeflate_alloc_compressor(level_)) {}

GzipCompressor::~GzipCompressor() { libdeflate_free_compressor(compressor_); }

std::string GzipCompressor::Compress(std::string_view data) {
  std::string out;
  if (!AppendMember(data, out)) return {};
  return out;
}

bool GzipCompressor::AppendMember(std::string_view data, std::string& out) {
  return level_ == 1 ? AppendIgzipMember(data, out) : AppendLibdeflateMember(data, out);
}

bool GzipCompressor::AppendIgzipMember(std::string_view data, std::string& out) {
  if (data.size() >= std::numeric_limits<uint32_t>::max()) return false;
  isal_zstream stream;
  isal_deflate_stateless_init(&stream);
  if (data.size() < kSmallMemberBytes) {
    stream.level = 0;
    if (isal_deflate_set_hufftables(&stream, nullptr, IGZIP_HUFFTABLE_STATIC) != COMP_OK) {
      return false;
    }
  } else {
    stream.level = 1;
    stream.level_buf = igzip_level_buffer_.data();
    stream.level_buf_size = static_cast<uint32_t>(igzip_level_buffer_.size());
  }
  stream.gzip_flag = IGZIP_GZIP;
  stream.end_of_stream = 1;
  stream.flush = NO_FLUSH;
  const size_t start = out.size();
  out.resize(start + IgzipBound(data.size()));
  // igzip does not write through next_in; its API just lacks the const.
  stream.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uint32_t>(data.size());
  stream.next_out = reinterpret_cast<uint8_t*>(out.data() + start);
  stream.avail_out = static_cast<uint32_t>(
      std::min<size_t>(out.size() - start, std::numeric_limits<uint32_t>::max()));
  const bool ok = isal_deflate_stateless(&stream) == COMP_OK;
  out.resize(ok ? start + stream.total_out : start);
  return ok;
}

bool GzipCompressor::AppendLibdeflateMember(std::string_view data, std::string& out) {
  if (compressor_ == nullptr) return false;
  const size_t start = out.size();
  out.resize(start + libdeflate_gzip_compress_bound(compressor_, data.size()));
  const size_t size = libdeflate_gzip_compress(compressor_, data.data(), data.size(),
                                               out.data() + start, out.size() - start);
  out.resize(start + size);
  return size != 0;  // 0 cannot happen with a buffer of the bound's size
}

std::string GzipMember(std::string_view data, int level) {
  return GzipCompressor(level).Compress(data);
}

}  // namespace crawler::warc
