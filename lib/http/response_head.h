// ResponseHead: the status line and header fields of an HTTP/1.x (or HTTP/2, as libcurl presents
// it) response, parsed from the raw header block exactly as received, with the few typed
// accessors a crawler needs. The raw block is kept verbatim because WARC response records store
// the message as it came off the wire (RFC 9112 §2.1 message format; RFC 9110 field semantics).
//
// Parsing is lenient in the ways servers in the wild require (bare LF line ends, a missing
// reason phrase, obsolete line folding joined with a space) and bounded: at most kMaxFields
// fields are kept, the caller caps the block size.
//
// Thread-safety: an immutable value after Parse.
#ifndef CRAWLER_LIB_HTTP_RESPONSE_HEAD_H_
#define CRAWLER_LIB_HTTP_RESPONSE_HEAD_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace crawler::http {

// A media type split as RFC 9110 §8.3.1 defines it: type/subtype lower-cased, charset parameter
// lower-cased and unquoted; other parameters dropped.
struct MediaType {
  std::string essence;  // "text/html"; empty if absent or unparseable
  std::string charset;  // "utf-8"; empty if absent
};
MediaType ParseMediaType(std::string_view content_type);

class ResponseHead {
 public:
  static constexpr size_t kMaxFields = 256;

  // Parses one header block: status line, fields, optional trailing empty line. When `raw`
  // holds several blocks (1xx interim responses, or a proxy's CONNECT answer first), the last
  // one is the response. Errors: kInvalidArgument when there is no valid status line.
  static absl::StatusOr<ResponseHead> Parse(std::string_view raw);
  // The status code Parse(raw) would give, nullopt where Parse fails; it builds nothing and
  // allocates nothing, for a caller that needs only the code (the fetcher's network thread).
  static std::optional<int> PeekStatus(std::string_view raw);

  int status() const { return status_; }
  const std::string& reason() const { return reason_; }
  const std::string& http_version() const { return version_; }  // "HTTP/1.1"
  // The header block of the final response, verbatim (with its CRLFs and blank line).
  const std::string& raw() const { return raw_; }
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

  // First value of a field (case-insensitive name), nullopt if absent.
  std::optional<std::string_view> Get(std::string_view name) const;
  // All values of a field joined with ", " (RFC 9110 §5.3), empty if absent.
  std::string GetCombined(std::string_view name) const;

  MediaType content_type() const;
  // Content-Encoding codings in the order they were applied, lower-cased ("gzip", "br", ...);
  // "identity" is dropped.
  std::vector<std::string> content_encodings() const;

 private:
  int status_ = 0;
  std::string reason_;
  std::string version_;
  std::string raw_;
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace crawler::http

#endif  // CRAWLER_LIB_HTTP_RESPONSE_HEAD_H_
