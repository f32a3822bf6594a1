#include "lib/http/response_head.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace crawler::http {
namespace {

// Debian's abseil has its own string_view type (ABSL_OPTION_USE_STD_STRING_VIEW 0).
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }
std::string_view S(absl::string_view s) { return std::string_view(s.data(), s.size()); }

// Splits `raw` into lines, accepting CRLF and bare LF.
std::vector<std::string_view> Lines(std::string_view raw) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < raw.size()) {
    size_t end = raw.find('\n', start);
    if (end == std::string_view::npos) end = raw.size();
    std::string_view line = raw.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

bool IsStatusLine(std::string_view line) {
  return absl::StartsWith(A(line), "HTTP/") && line.find(' ') != line.npos;
}

}  // namespace

MediaType ParseMediaType(std::string_view content_type) {
  MediaType result;
  std::vector<absl::string_view> parts = absl::StrSplit(A(content_type), ';');
  if (parts.empty()) return result;
  const std::string essence = absl::AsciiStrToLower(absl::StripAsciiWhitespace(parts[0]));
  const size_t slash = essence.find('/');
  if (slash != std::string::npos && slash > 0 && slash + 1 < essence.size() &&
      essence.find_first_of(" \t\"", 0) == std::string::npos) {
    result.essence = essence;
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view param = absl::StripAsciiWhitespace(parts[i]);
    const size_t eq = param.find('=');
    if (eq == absl::string_view::npos) continue;
    if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(param.substr(0, eq)), "charset")) {
      continue;
    }
    absl::string_view value = absl::StripAsciiWhitespace(param.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    result.charset = absl::AsciiStrToLower(value);
    break;
  }
  return result;
}

absl::StatusOr<ResponseHead> ResponseHead::Parse(std::string_view raw) {
  const std::vector<std::string_view> lines = Lines(raw);
  // The final response is the last block that starts with a status line.
  size_t first = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsStatusLine(lines[i])) first = i;
  }
  if (first == lines.size()) return absl::InvalidArgumentError("no HTTP status line");

  ResponseHead head;
  // raw_ = the bytes from that status line on.
  head.raw_ = std::string(raw.substr(static_cast<size_t>(lines[first].data() - raw.data())));
  const std::string_view status_line = lines[first];
  const size_t sp1 = status_line.find(' ');
  head.version_ = std::string(status_line.substr(0, sp1));
  std::string_view rest = status_line.substr(sp1 + 1);
  const size_t sp2 = rest.find(' ');
  const std::string_view code = rest.substr(0, sp2);
  if (code.size() != 3 || !absl::SimpleAtoi(A(code), &head.status_) || head.status_ < 100) {
    return absl::InvalidArgumentError("malformed HTTP status code");
  }
  if (sp2 != std::string_view::npos) head.reason_ = std::string(rest.substr(sp2 + 1));

  for (size_t i = first + 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.empty()) break;
    if ((line[0] == ' ' || line[0] == '\t') && !head.fields_.empty()) {
      // RFC 9112 §5.2: obsolete line folding; replace with a space.
      head.fields_.back().second += ' ';
      head.fields_.back().second += S(absl::StripAsciiWhitespace(A(line)));
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;  // not a field: skip
    if (head.fields_.size() >= kMaxFields) break;
    head.fields_.emplace_back(std::string(absl::StripAsciiWhitespace(A(line.substr(0, colon)))),
                              std::string(absl::StripAsciiWhitespace(A(line.substr(colon + 1)))));
  }
  return head;
}

std::optional<std::string_view> ResponseHead::Get(std::string_view name) const {
  for (const auto& [key, value] : fields_) {
    if (absl::EqualsIgnoreCase(A(key), A(name))) return value;
  }
  return std::nullopt;
}

std::string ResponseHead::GetCombined(std::string_view name) const {
  std::vector<std::string_view> values;
  for (const auto& [key, value] : fields_) {
    if (absl::EqualsIgnoreCase(A(key), A(name))) values.push_back(value);
  }
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += values[i];
  }
  return out;
}

MediaType ResponseHead::content_type() const {
  const std::optional<std::string_view> value = Get("Content-Type");
  return value.has_value() ? ParseMediaType(*value) : MediaType{};
}

std::vector<std::string> ResponseHead::content_encodings() const {
  std::vector<std::string> codings;
  for (absl::string_view token : absl::StrSplit(GetCombined("Content-Encoding"), ',')) {
    std::string coding = absl::AsciiStrToLower(absl::StripAsciiWhitespace(token));
    if (coding.empty() || coding == "identity") continue;
    codings.push_back(std::move(coding));
  }
  return codings;
}

}  // namespace crawler::http
