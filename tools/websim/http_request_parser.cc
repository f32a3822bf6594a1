#include "tools/websim/http_request_parser.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace crawler::websim {
namespace {

ParseResult Error(int status) {
  ParseResult r;
  r.state = ParseResult::State::kError;
  r.error_status = status;
  return r;
}

// RFC 9110 §5.6.2 tchar.
bool IsTokenChar(char c) {
  if (absl::ascii_isalnum(static_cast<unsigned char>(c))) return true;
  return absl::string_view("!#$%&'*+-.^_`|~").find(c) != absl::string_view::npos;
}

bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

// Visible ASCII only: no spaces, no controls, no bytes >= 0x80 (those must be percent-encoded).
bool IsTargetChars(absl::string_view s) {
  for (char c : s) {
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return !s.empty();
}

// Host from a Host header or an authority: lower-cased, without port, userinfo or trailing dot.
// nullopt if it holds characters no host name or IP literal can.
std::optional<std::string> NormaliseHost(absl::string_view authority) {
  if (size_t at = authority.rfind('@'); at != absl::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  absl::string_view host = authority;
  if (absl::StartsWith(host, "[")) {
    size_t close = host.find(']');
    if (close == absl::string_view::npos) return std::nullopt;
    host = host.substr(0, close + 1);
  } else if (size_t colon = host.find(':'); colon != absl::string_view::npos) {
    absl::string_view port = host.substr(colon + 1);
    for (char c : port) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    }
    host = host.substr(0, colon);
  }
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  if (host.empty() || host.size() > 255) return std::nullopt;
  for (char c : host) {
    const bool ok = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ||
                    c == '_' || c == '[' || c == ']' || c == ':';
    if (!ok) return std::nullopt;
  }
  return absl::AsciiStrToLower(host);
}

// Whether a partial first line can still become a request line: printable ASCII only.
bool PlausibleRequestLineStart(absl::string_view partial) {
  for (char c : partial) {
    if (c == '\r') continue;
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

absl::string_view TrimOws(absl::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The request line (RFC 9112 §3): method, target (origin or absolute form) and version into
// `req`. Returns the status of the error response, or 0.
int ParseRequestLine(absl::string_view line, ParsedRequest& req) {
  std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
  if (parts.size() != 3 || !IsToken(parts[0]) || !IsTargetChars(parts[1])) return 400;
  if (parts[2] == "HTTP/1.1") {
    req.version_minor = 1;
  } else if (parts[2] == "HTTP/1.0") {
    req.version_minor = 0;
  } else if (absl::StartsWith(parts[2], "HTTP/") && parts[2].size() == 8 &&
             absl::ascii_isdigit(static_cast<unsigned char>(parts[2][5])) &&
             parts[2][6] == '.' &&
             absl::ascii_isdigit(static_cast<unsigned char>(parts[2][7]))) {
    return 505;
  } else {
    return 400;
  }
  req.method = std::string(parts[0]);
  absl::string_view target = parts[1];
  if (target.front() == '/') {
    req.target = std::string(target);
  } else if (target.size() > 7 && absl::EqualsIgnoreCase(target.substr(0, 7), "http://")) {
    // Absolute-form (RFC 9112 §3.2.2): its authority replaces the Host header.
    absl::string_view rest = target.substr(7);
    const size_t path_start = rest.find_first_of("/?");
    std::optional<std::string> host = NormaliseHost(rest.substr(0, path_start));
    if (!host) return 400;
    req.host = *std::move(host);
    absl::string_view path =
        path_start == absl::string_view::npos ? absl::string_view() : rest.substr(path_start);
    req.target = path.empty() || path.front() != '/' ? "/" + std::string(path)
                                                     : std::string(path);
  } else {
    return 400;  // authority-form (CONNECT), asterisk-form (OPTIONS *), garbage
  }
  return 0;
}

// What the header fields say beyond what goes straight into the request.
struct HeaderFields {
  std::optional<std::string> host;
  bool host_seen = false;
  std::optional<uint64_t> content_length;
  bool connection_close = false;
  bool connection_keep_alive = false;
};

// One header field line. Returns the status of the error response, or 0.
int ParseHeaderField(absl::string_view line, ParsedRequest& req, HeaderFields& fields) {
  if (line.front() == ' ' || line.front() == '\t') return 400;  // obs-fold
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos || !IsToken(line.substr(0, colon))) return 400;
  const absl::string_view name = line.substr(0, colon);
  const absl::string_view value = TrimOws(line.substr(colon + 1));
  if (absl::EqualsIgnoreCase(name, "host")) {
    if (fields.host_seen) return 400;
    fields.host_seen = true;
    if (!value.empty()) {
      fields.host = NormaliseHost(value);
      if (!fields.host) return 400;
    }
  } else if (absl::EqualsIgnoreCase(name, "content-length")) {
    uint64_t length = 0;
    if (value.empty() || value.size() > 19 ||
        value.find_first_not_of("0123456789") != absl::string_view::npos ||
        !absl::SimpleAtoi(value, &length)) {
      return 400;
    }
    if (fields.content_length && *fields.content_length != length) return 400;
    fields.content_length = length;
  } else if (absl::EqualsIgnoreCase(name, "if-none-match")) {
    if (!req.if_none_match.empty()) req.if_none_match.append(", ");
    absl::StrAppend(&req.if_none_match, value);
  } else if (absl::EqualsIgnoreCase(name, "if-modified-since")) {
    req.if_modified_since = std::string(value);
  } else if (absl::EqualsIgnoreCase(name, "x-crawler-partition")) {
    // Logged as one field: no tab or line break can reach the log.
    if (value.size() <= 16 && value.find_first_of("\t\r\n") == absl::string_view::npos) {
      req.crawler_partition = std::string(value);
    }
  } else if (absl::EqualsIgnoreCase(name, "transfer-encoding")) {
    return 501;
  } else if (absl::EqualsIgnoreCase(name, "connection")) {
    for (absl::string_view token : absl::StrSplit(value, ',')) {
      token = TrimOws(token);
      if (absl::EqualsIgnoreCase(token, "close")) fields.connection_close = true;
      if (absl::EqualsIgnoreCase(token, "keep-alive")) fields.connection_keep_alive = true;
    }
  }
  return 0;
}

}  // namespace

ParseResult ParseHttpRequest(absl::string_view input, const HttpParserLimits& limits) {
  // RFC 9112 §2.2: ignore empty lines before the request line.
  size_t start = 0;
  while (start < input.size() && (input[start] == '\r' || input[start] == '\n')) {
    ++start;
    if (start > limits.max_header_bytes) return Error(431);
  }

  // Split the head into lines; stop at the empty line.
  size_t pos = start;
  size_t head_end = absl::string_view::npos;
  while (true) {
    const size_t eol = input.find('\n', pos);
    if (eol == absl::string_view::npos) {
      if (input.size() - start > limits.max_header_bytes) return Error(431);
      // A client speaking something else (TLS, HTTP/2 preface bytes) gets its answer now
      // rather than after filling the head limit.
      if (pos == start && !PlausibleRequestLineStart(input.substr(start))) return Error(400);
      return ParseResult{};
    }
    if (eol + 1 - start > limits.max_header_bytes) return Error(431);
    absl::string_view line = input.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = eol + 1;
    if (line.empty()) {
      head_end = pos;
      break;
    }
  }

  ParseResult result;
  ParsedRequest& req = result.request;
  HeaderFields fields;

  bool first = true;
  pos = start;
  while (pos < head_end) {
    const size_t eol = input.find('\n', pos);
    absl::string_view line = input.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    if (line.find('\r') != absl::string_view::npos || line.find('\0') != absl::string_view::npos) {
      return Error(400);
    }
    if (first) {
      first = false;
      if (int error = ParseRequestLine(line, req); error != 0) return Error(error);
      continue;
    }
    if (int error = ParseHeaderField(line, req, fields); error != 0) return Error(error);
  }

  if (req.host.empty()) {
    // RFC 9112 §3.2: a request without Host (or with an empty one) names no site of ours.
    if (!fields.host) return Error(400);
    req.host = *std::move(fields.host);
  } else if (req.version_minor == 1 && !fields.host_seen) {
    return Error(400);  // HTTP/1.1 requires Host even with an absolute-form target
  }
  const uint64_t body = fields.content_length.value_or(0);
  if (body > limits.max_body_bytes) return Error(413);
  if (input.size() - head_end < body) return ParseResult{};

  req.keep_alive = req.version_minor == 1
                       ? !fields.connection_close
                       : fields.connection_keep_alive && !fields.connection_close;
  result.state = ParseResult::State::kComplete;
  result.consumed = head_end + body;
  return result;
}

}  // namespace crawler::websim
