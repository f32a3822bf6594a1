#include "lib/http/chunked_decoder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "lib/encoding/hex.h"

namespace crawler::http {

bool IsChunked(std::string_view value) {
  absl::string_view v = absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()));
  const size_t comma = v.rfind(',');
  if (comma != absl::string_view::npos) v = absl::StripAsciiWhitespace(v.substr(comma + 1));
  return absl::EqualsIgnoreCase(v, "chunked");
}

absl::StatusOr<DechunkedBody> DecodeChunked(std::string_view body) {
  DechunkedBody out;
  out.data.reserve(body.size());
  size_t pos = 0;
  while (pos < body.size()) {
    // chunk-size [ chunk-ext ] CRLF  (bare LF tolerated)
    const size_t line_end = body.find('\n', pos);
    if (line_end == std::string_view::npos) return out;  // truncated inside a size line
    std::string_view line = body.substr(pos, line_end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t ext = line.find(';');
    if (ext != std::string_view::npos) line = line.substr(0, ext);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty() || line.size() > 15) {
      return absl::DataLossError("malformed chunk size line");
    }
    uint64_t size = 0;
    for (char c : line) {
      const int digit = encoding::HexValue(c);
      if (digit < 0) return absl::DataLossError("malformed chunk size");
      size = size * 16 + static_cast<uint64_t>(digit);
    }
    pos = line_end + 1;
    if (size == 0) {
      out.complete = true;  // trailers, if any, follow; they are not part of the content
      return out;
    }
    const size_t available = body.size() - pos;
    if (size > available) {
      out.data.append(body.substr(pos));
      return out;  // truncated inside chunk data
    }
    out.data.append(body.substr(pos, size));
    pos += size;
    // CRLF after the chunk data.
    if (pos < body.size() && body[pos] == '\r') ++pos;
    if (pos < body.size() && body[pos] == '\n') ++pos;
  }
  return out;
}

std::string_view EntityBody(const ResponseHead& head, std::string_view body,
                            std::string& dechunked) {
  const std::optional<std::string_view> te = head.Get("Transfer-Encoding");
  if (!te.has_value() || !IsChunked(*te)) return body;
  absl::StatusOr<DechunkedBody> decoded = DecodeChunked(body);
  dechunked = decoded.ok() ? std::move(decoded->data) : std::string();
  return dechunked;
}

}  // namespace crawler::http
