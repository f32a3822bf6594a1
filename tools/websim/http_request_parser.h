// ParseHttpRequest: incremental parsing of one HTTP/1.x request head (RFC 9112) from the front
// of a connection's input buffer, for websim's server.
//
// Accepts origin-form ("/path?q") and absolute-form ("http://host/path") targets, CRLF or bare
// LF line ends (RFC 9112 §2.2), and empty lines before the request line. Rejects with a status
// code: malformed syntax, obs-fold, a missing or repeated Host, conflicting Content-Length (400);
// a head over the size limit (431); a body over its limit (413); Transfer-Encoding (501: websim
// serves GET/HEAD and never needs a chunked request body); HTTP versions other than 1.0/1.1 (505).
// A request body announced by Content-Length is consumed and ignored.
//
// Pure function of its input; thread-compatible.
#ifndef CRAWLER_TOOLS_WEBSIM_HTTP_REQUEST_PARSER_H_
#define CRAWLER_TOOLS_WEBSIM_HTTP_REQUEST_PARSER_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace crawler::websim {

struct HttpParserLimits {
  // Request line plus headers, terminating empty line included.
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = 1 << 20;
};

struct ParsedRequest {
  std::string method;
  // Origin-form path and query, exactly as sent (absolute-form is reduced to it).
  std::string target;
  // Lower case, port and trailing dot removed. From the absolute-form target if any, else Host.
  std::string host;
  int version_minor = 1;  // HTTP/1.<minor>
  // Whether the connection stays open after the response (RFC 9112 §9.3).
  bool keep_alive = true;
  // Conditional request fields (RFC 9110 §13.1), trimmed; empty when absent. Repeated
  // If-None-Match lines are joined with ", " (a list field); for If-Modified-Since the last wins.
  std::string if_none_match;
  std::string if_modified_since;
  // X-Crawler-Partition, trimmed; empty when absent. The crawler sends it when asked to
  // (partition_header), so the request log shows which partition's fetcher sent each request.
  std::string crawler_partition;
};

struct ParseResult {
  enum class State { kIncomplete, kComplete, kError };
  State state = State::kIncomplete;
  // kComplete: bytes of head and body to drop from the buffer.
  size_t consumed = 0;
  // kError: the status code to answer with before closing the connection.
  int error_status = 0;
  ParsedRequest request;
};

ParseResult ParseHttpRequest(absl::string_view input, const HttpParserLimits& limits);

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_HTTP_REQUEST_PARSER_H_
