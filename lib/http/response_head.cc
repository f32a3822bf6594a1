#include "lib/http/response_head.h"

#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "lib/encoding/absl_view.h"

namespace crawler::http {
namespace {

// Debian's abseil has its own string_view type (ABSL_OPTION_USE_STD_STRING_VIEW 0).
using encoding::AsAbsl;
std::string_view S(absl::string_view s) { return std::string_view(s.data(), s.size()); }

// Reads `raw` line by line, accepting CRLF and bare LF, without copying.
class LineReader {
 public:
  explicit LineReader(std::string_view raw) : raw_(raw) {}
  // The next line without its line end; false at the end of `raw`.
  bool Next(std::string_view& line) {
    if (start_ >= raw_.size()) return false;
    size_t end = raw_.find('\n', start_);
    if (end == std::string_view::npos) end = raw_.size();
    line = raw_.substr(start_, end - start_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start_ = end + 1;
    return true;
  }

 private:
  std::string_view raw_;
  size_t start_ = 0;
};

bool IsStatusLine(std::string_view line) {
  return absl::StartsWith(AsAbsl(line), "HTTP/") && line.find(' ') != line.npos;
}

// The final response's block: from the last line that is a status line to the end (interim 1xx
// responses, or a proxy's CONNECT answer, come first). Empty if there is no status line.
std::string_view FinalBlock(std::string_view raw) {
  LineReader reader(raw);
  std::string_view line;
  std::string_view block;
  while (reader.Next(line)) {
    if (IsStatusLine(line)) block = raw.substr(static_cast<size_t>(line.data() - raw.data()));
  }
  return block;
}

struct StatusLine {
  std::string_view version;  // "HTTP/1.1"
  int code = 0;
  std::string_view reason;
};

// RFC 9112 §4; a missing reason phrase (and its space) is accepted. nullopt if the code is not
// three digits of at least 100.
std::optional<StatusLine> ParseStatusLine(std::string_view line) {
  StatusLine out;
  const size_t sp1 = line.find(' ');
  out.version = line.substr(0, sp1);
  const std::string_view rest = line.substr(sp1 + 1);
  const size_t sp2 = rest.find(' ');
  const std::string_view code = rest.substr(0, sp2);
  if (code.size() != 3 || !absl::SimpleAtoi(AsAbsl(code), &out.code) || out.code < 100) {
    return std::nullopt;
  }
  if (sp2 != std::string_view::npos) out.reason = rest.substr(sp2 + 1);
  return out;
}

}  // namespace

MediaType ParseMediaType(std::string_view content_type) {
  MediaType result;
  std::vector<absl::string_view> parts = absl::StrSplit(AsAbsl(content_type), ';');
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
  const std::string_view block = FinalBlock(raw);
  if (block.empty()) return absl::InvalidArgumentError("no HTTP status line");
  LineReader reader(block);
  std::string_view line;
  reader.Next(line);
  const std::optional<StatusLine> status = ParseStatusLine(line);
  if (!status.has_value()) return absl::InvalidArgumentError("malformed HTTP status code");

  ResponseHead head;
  head.raw_ = std::string(block);
  head.version_ = std::string(status->version);
  head.status_ = status->code;
  head.reason_ = std::string(status->reason);
  while (reader.Next(line)) {
    if (line.empty()) break;
    if ((line[0] == ' ' || line[0] == '\t') && !head.fields_.empty()) {
      // RFC 9112 §5.2: obsolete line folding; replace with a space.
      head.fields_.back().second += ' ';
      head.fields_.back().second += S(absl::StripAsciiWhitespace(AsAbsl(line)));
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;  // not a field: skip
    if (head.fields_.size() >= kMaxFields) break;
    head.fields_.emplace_back(
        std::string(absl::StripAsciiWhitespace(AsAbsl(line.substr(0, colon)))),
        std::string(absl::StripAsciiWhitespace(AsAbsl(line.substr(colon + 1)))));
  }
  return head;
}

std::optional<int> ResponseHead::PeekStatus(std::string_view raw) {
  LineReader reader(FinalBlock(raw));
  std::string_view line;
  if (!reader.Next(line)) return std::nullopt;
  const std::optional<StatusLine> status = ParseStatusLine(line);
  if (!status.has_value()) return std::nullopt;
  return status->code;
}

std::optional<std::string_view> ResponseHead::Get(std::string_view name) const {
  for (const auto& [key, value] : fields_) {
    if (absl::EqualsIgnoreCase(AsAbsl(key), AsAbsl(name))) return value;
  }
  return std::nullopt;
}

std::string ResponseHead::GetCombined(std::string_view name) const {
  std::vector<std::string_view> values;
  for (const auto& [key, value] : fields_) {
    if (absl::EqualsIgnoreCase(AsAbsl(key), AsAbsl(name))) values.push_back(value);
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
