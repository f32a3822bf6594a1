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
#include "lib/http/response_head.h"

namespace crawler::http {

struct DechunkedBody {
  std::string data;
  bool complete = false;  // the last-chunk (size 0) was seen
};

// kDataLoss for malformed framing (a chunk size that is not hex, or absurdly large).
absl::StatusOr<DechunkedBody> DecodeChunked(std::string_view body);

// True when the response's Transfer-Encoding ends in "chunked" (RFC 9112 §6.1).
bool IsChunked(std::string_view transfer_encoding_value);

// The entity body of `body` as received under `head`: chunked framing undone (into `dechunked`,
// which the result then views), content codings kept (WARC payload digests cover them, WARC
// 1.1 §5.9). A body whose chunked framing is broken has no entity body: the result is empty.
// Otherwise views `body`. The one definition of "payload" that WARC writers and readers share.
std::string_view EntityBody(const ResponseHead& head, std::string_view body,
                            std::string& dechunked);

}  // namespace crawler::http

#endif  // CRAWLER_LIB_HTTP_CHUNKED_DECODER_H_
