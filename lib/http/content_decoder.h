// DecodeContent: undoes HTTP content codings (RFC 9110 §8.4.1) so the payload can be parsed,
// while the fetcher keeps the encoded bytes for the WARC record (archives store the message as
// transferred). Supported: gzip / x-gzip, deflate (zlib-wrapped, and the raw deflate some
// servers send instead), br. Output is capped: a gzip bomb stops at max_output_bytes with
// kResourceExhausted instead of filling memory.
//
// Thread-safety: a pure function.
#ifndef CRAWLER_LIB_HTTP_CONTENT_DECODER_H_
#define CRAWLER_LIB_HTTP_CONTENT_DECODER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler::http {

// `codings` in the order the server applied them (ResponseHead::content_encodings()); they are
// undone in reverse. Errors: kUnimplemented for an unknown coding, kDataLoss for corrupt or
// truncated data, kResourceExhausted when the output would exceed max_output_bytes.
absl::StatusOr<std::string> DecodeContent(std::string_view encoded,
                                          const std::vector<std::string>& codings,
                                          size_t max_output_bytes);

}  // namespace crawler::http

#endif  // CRAWLER_LIB_HTTP_CONTENT_DECODER_H_
