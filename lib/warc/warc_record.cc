#include "lib/warc/warc_record.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/encoding/absl_view.h"
#include "lib/fingerprint/sha1.h"

namespace crawler::warc {
namespace {

// Calls `visit(name, value)` for the named fields of `record` before its block digest and length,
// in the order they are written (values not yet cleaned of CR and LF, empty ones included: the
// writer leaves those out); stops when `visit` returns false.
template <typename Visit>
void VisitFields(const WarcRecord& record, Visit&& visit) {
  const std::string date = FormatWarcDate(record.date);
  const std::pair<std::string_view, std::string_view> fixed[] = {
      {"WARC-Type", RecordTypeName(record.type)},
      {"WARC-Record-ID", record.record_id},
      {"WARC-Date", date},
      {"WARC-Target-URI", record.target_uri},
      {"WARC-Filename", record.filename},
      {"WARC-IP-Address", record.ip_address},
      {"WARC-Concurrent-To", record.concurrent_to},
      {"WARC-Warcinfo-ID", record.warcinfo_id},
      {"WARC-Refers-To", record.refers_to},
      {"WARC-Refers-To-Target-URI", record.refers_to_target_uri},
      {"WARC-Refers-To-Date", record.refers_to_date},
      {"WARC-Profile", record.profile},
      {"WARC-Payload-Digest", record.payload_digest},
      {"WARC-Truncated", record.truncated}};
  for (const auto& [name, value] : fixed) {
    if (!visit(name, value)) return;
  }
  for (const auto& [name, value] : record.extra_fields) {
    if (!visit(std::string_view(name), std::string_view(value))) return;
  }
  visit(std::string_view("Content-Type"), std::string_view(record.content_type));
}

void AppendField(std::string& out, std::string_view name, std::string_view value) {
  if (value.empty()) return;
  out.append(name);
  out.append(": ");
  const size_t start = out.size();
  out.append(value);
  // CR and LF would end the field (and could forge the next one): they become spaces.
  for (size_t i = start; i < out.size(); ++i) {
    if (out[i] == '\r' || out[i] == '\n') out[i] = ' ';
  }
  out.append("\r\n");
}

// Writes `value` as `width` decimal digits (zero-padded) at `out`. REQUIRES: 0 <= value <
// 10^width.
void PutDigits(int64_t value, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

std::string_view RecordTypeName(RecordType type) {
  switch (type) {
    case RecordType::kWarcinfo:
      return "warcinfo";
    case RecordType::kResponse:
      return "response";
    case RecordType::kRequest:
      return "request";
    case RecordType::kMetadata:
      return "metadata";
    case RecordType::kRevisit:
      return "revisit";
    case RecordType::kResource:
      return "resource";
  }
  return "resource";
}

std::string FormatWarcDate(absl::Time t) {
  // Every record has a date: formatting the civil time directly costs a fraction of
  // absl::FormatTime's general format interpreter. Same output for years 1000-9999; other times
  // (infinite, or years that %Y prints with other than four digits) go the general way.
  const absl::CivilSecond c = absl::ToCivilSecond(t, absl::UTCTimeZone());
  if (t == absl::InfinitePast() || t == absl::InfiniteFuture() || c.year() < 1000 ||
      c.year() > 9999) {
    return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
  }
  std::string out = "0000-00-00T00:00:00Z";
  PutDigits(c.year(), 4, &out[0]);
  PutDigits(c.month(), 2, &out[5]);
  PutDigits(c.day(), 2, &out[8]);
  PutDigits(c.hour(), 2, &out[11]);
  PutDigits(c.minute(), 2, &out[14]);
  PutDigits(c.second(), 2, &out[17]);
  return out;
}

std::string SerializeRecord(const WarcRecord& record) {
  std::string out;
  AppendSerializedRecord(record, out);
  return out;
}

void AppendSerializedRecord(const WarcRecord& record, std::string& out) {
  out.reserve(out.size() + record.block.size() + 512);
  out.append("WARC/1.1\r\n");
  VisitFields(record, [&out](std::string_view name, std::string_view value) {
    AppendField(out, name, value);
    return true;
  });
  AppendField(out, "WARC-Block-Digest", fingerprint::Sha1(record.block).ToWarcString());
  AppendField(out, "Content-Length", absl::StrCat(record.block.size()));
  out.append("\r\n");
  out.append(record.block);
  out.append("\r\n\r\n");
}

std::string WrittenFieldValue(const WarcRecord& record, std::string_view name) {
  std::string found;
  VisitFields(record, [&](std::string_view field, std::string_view value) {
    // AppendField leaves empty values out: a reader never sees them.
    if (value.empty() || !absl::EqualsIgnoreCase(encoding::AsAbsl(field), encoding::AsAbsl(name))) {
      return true;
    }
    found.assign(value);
    for (char& c : found) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    absl::StripAsciiWhitespace(&found);
    return false;
  });
  return found;
}

}  // namespace crawler::warc
