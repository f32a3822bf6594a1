#include "lib/warc/cdxj.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/json/flat_object.h"
#include "lib/json/json_string.h"

namespace crawler::warc {
namespace {

void AppendMember(std::string_view name, std::string_view value, std::string& out) {
  if (out.back() != '{') out.push_back(',');
  json::AppendJsonString(name, out);
  out.push_back(':');
  json::AppendJsonString(value, out);
}

// A non-negative integer member, given as a JSON string or number.
bool ReadCount(const json::FlatObject& object, std::string_view name, uint64_t& out) {
  const json::FlatValue* value = object.Find(name);
  return value != nullptr &&
         (value->kind == json::FlatValue::Kind::kString ||
          value->kind == json::FlatValue::Kind::kNumber) &&
         absl::SimpleAtoi(value->text, &out);
}

std::string ReadText(const json::FlatObject& object, std::string_view name) {
  const json::FlatValue* value = object.Find(name);
  return value == nullptr || value->kind == json::FlatValue::Kind::kNull ? "" : value->text;
}

}  // namespace

std::string CdxjEntry::ToLine() const {
  std::string line = absl::StrCat(key, " ", timestamp, " {");
  AppendMember("url", url, line);
  if (!mime.empty()) AppendMember("mime", mime, line);
  if (!status.empty()) AppendMember("status", status, line);
  if (!digest.empty()) AppendMember("digest", digest, line);
  AppendMember("length", absl::StrCat(length), line);
  AppendMember("offset", absl::StrCat(offset), line);
  AppendMember("filename", filename, line);
  line.push_back('}');
  return line;
}

absl::StatusOr<CdxjEntry> CdxjEntry::Parse(std::string_view line) {
  // The key has no spaces (SURT keys percent-encode them); the JSON starts at the first " {".
  const size_t json_begin = line.find(" {");
  const size_t key_end = line.find(' ');
  if (json_begin == std::string_view::npos || key_end == json_begin) {
    return absl::InvalidArgumentError("CDXJ: not '<key> <timestamp> {json}'");
  }
  CdxjEntry entry;
  entry.key = std::string(line.substr(0, key_end));
  entry.timestamp = std::string(line.substr(key_end + 1, json_begin - key_end - 1));
  absl::StatusOr<json::FlatObject> object = json::ParseFlatObject(line.substr(json_begin + 1));
  if (!object.ok())
    return absl::InvalidArgumentError(absl::StrCat("CDXJ: ", object.status().message()));
  entry.url = ReadText(*object, "url");
  entry.mime = ReadText(*object, "mime");
  entry.status = ReadText(*object, "status");
  entry.digest = ReadText(*object, "digest");
  entry.filename = ReadText(*object, "filename");
  if (entry.url.empty() || entry.filename.empty() || !ReadCount(*object, "offset", entry.offset) ||
      !ReadCount(*object, "length", entry.length)) {
    return absl::InvalidArgumentError("CDXJ: the JSON lacks url, offset, length or filename");
  }
  return entry;
}

std::string CdxjTimestamp(std::string_view warc_date) {
  std::string out;
  for (const char c : warc_date) {
    if (c == '-' || c == ':' || c == 'T') continue;
    out.push_back(c);
    if (out.size() == 14) break;
  }
  return out;
}

}  // namespace crawler::warc
