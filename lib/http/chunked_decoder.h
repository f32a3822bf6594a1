// DecodeChunked: removes HTTP/1.1 chunked transfer coding (RFC 9112 §7.1). The fetcher receives
// bodies with their transfer coding intact (so WARC response records hold the bytes as sent) and
// decodes here, before content decoding and parsing. Chunk extensions and trailer fields are
// ignored. A body cut short (truncated transfer) yields the complete chunks plus the part of the
// last one that arrived, with `complete` false.
//
// Thread-safety: a pure function.
#ifndef CRAWLER_LIB_HTTP_CHUNKED_DECODER_H_
#define CRAWLER_LIB_HTTP_CHUNKED_DECODER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler::http {

struct DechunkedBody {
  std::string data;
  bool complete = false;  // the last-chunk (size 0) was seen
};

// kDataLoss for malformed framing (a chunk size that is not hex, or absurdly large).
absl::StatusOr<DechunkedBody> DecodeChunked(std::string_view body);

// True when the response's Transfer-Encoding ends in "chunked" (RFC 9112 §6.1).
bool IsChunked(std::string_view transfer_encoding_value);

}  // namespace crawler::http

#endif  // CRAWLER_LIB_HTTP_CHUNKED_DECODER_H_
