#include "lib/warc/gzip_member.h"

#include <libdeflate.h>

#include <algorithm>

namespace crawler::warc {

GzipCompressor::GzipCompressor(int level)
    : level_(std::clamp(level, 1, 9)), compressor_(libdeflate_alloc_compressor(level_)) {}

GzipCompressor::~GzipCompressor() { libdeflate_free_compressor(compressor_); }

std::string GzipCompressor::Compress(std::string_view data) {
  if (compressor_ == nullptr) return {};
  std::string out;
  out.resize(libdeflate_gzip_compress_bound(compressor_, data.size()));
  const size_t size =
      libdeflate_gzip_compress(compressor_, data.data(), data.size(), out.data(), out.size());
  if (size == 0) return {};  // cannot happen with a buffer of the bound's size
  out.resize(size);
  return out;
}

std::string GzipMember(std::string_view data, int level) {
  return GzipCompressor(level).Compress(data);
}

}  // namespace crawler::warc
