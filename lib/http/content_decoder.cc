#include "lib/http/content_decoder.h"

#include <brotli/decode.h>
#include <zlib.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"

namespace crawler::http {
namespace {

constexpr size_t kChunk = 64 * 1024;

absl::Status TooLarge(size_t max_output_bytes) {
  return absl::ResourceExhaustedError(
      absl::StrCat("decoded content exceeds ", max_output_bytes, " bytes"));
}

// window_bits: 15 + 16 gzip, 15 zlib, -15 raw deflate.
absl::StatusOr<std::string> Inflate(std::string_view in, int window_bits, size_t max_out) {
  z_stream zs{};
  if (inflateInit2(&zs, window_bits) != Z_OK) return absl::InternalError("inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  while (true) {
    const size_t before = out.size();
    const size_t room = std::min(kChunk, max_out - before + 1);  // +1 to detect overflow
    out.resize(before + room);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    zs.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(before + room - zs.avail_out);
    if (out.size() > max_out) return TooLarge(max_out);
    if (rc == Z_STREAM_END) {
      // gzip allows several members back to back (RFC 1952 §2.2); continue with the next one.
      if (window_bits > 15 && zs.avail_in > 0) {
        inflateReset(&zs);
        continue;
      }
      return out;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      return absl::DataLossError("truncated compressed content");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return absl::DataLossError(
          absl::StrCat("corrupt compressed content: ", zs.msg != nullptr ? zs.msg : "?"));
    }
  }
}

absl::StatusOr<std::string> Unbrotli(std::string_view in, size_t max_out) {
  std::unique_ptr<BrotliDecoderState, void (*)(BrotliDecoderState*)> state(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr), BrotliDecoderDestroyInstance);
  if (state == nullptr) return absl::InternalError("BrotliDecoderCreateInstance failed");
  size_t avail_in = in.size();
  const uint8_t* next_in = reinterpret_cast<const uint8_t*>(in.data());
  std::string out;
  while (true) {
    const size_t before = out.size();
    const size_t room = std::min(kChunk, max_out - before + 1);
    out.resize(before + room);
    size_t avail_out = room;
    uint8_t* next_out = reinterpret_cast<uint8_t*>(out.data() + before);
    const BrotliDecoderResult rc = BrotliDecoderDecompressStream(state.get(), &avail_in, &next_in,
                                                                 &avail_out, &next_out, nullptr);
    out.resize(before + room - avail_out);
    if (out.size() > max_out) return TooLarge(max_out);
    switch (rc) {
      case BROTLI_DECODER_RESULT_SUCCESS:
        return out;
      case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
        continue;
      case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
        return absl::DataLossError("truncated brotli content");
      case BROTLI_DECODER_RESULT_ERROR:
        return absl::DataLossError(
            absl::StrCat("corrupt brotli content: ",
                         BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state.get()))));
    }
  }
}

}  // namespace

absl::StatusOr<std::string> DecodeContent(std::string_view encoded,
                                          const std::vector<std::string>& codings,
                                          size_t max_output_bytes) {
  std::string current(encoded);
  if (codings.empty() && current.size() > max_output_bytes) return TooLarge(max_output_bytes);
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
    const std::string& coding = *it;
    absl::StatusOr<std::string> decoded;
    if (coding == "gzip" || coding == "x-gzip") {
      decoded = Inflate(current, 15 + 16, max_output_bytes);
    } else if (coding == "deflate") {
      // RFC 9110 says zlib-wrapped; some servers send raw deflate. A zlib stream starts with a
      // header whose first byte's low nibble is 8 (deflate) and whose first two bytes are a
      // multiple of 31.
      const bool zlib_header =
          current.size() >= 2 && (static_cast<uint8_t>(current[0]) & 0x0F) == 8 &&
          ((static_cast<uint8_t>(current[0]) << 8) | static_cast<uint8_t>(current[1])) % 31 == 0;
      decoded = Inflate(current, zlib_header ? 15 : -15, max_output_bytes);
    } else if (coding == "br") {
      decoded = Unbrotli(current, max_output_bytes);
    } else {
      return absl::UnimplementedError(absl::StrCat("unsupported content coding: ", coding));
    }
    if (!decoded.ok()) return decoded.status();
    current = std::move(*decoded);
  }
  return current;
}

}  // namespace crawler::http
