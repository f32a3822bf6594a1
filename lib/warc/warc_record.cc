#include "lib/warc/warc_record.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/fingerprint/sha1.h"

namespace crawler::warc {
namespace {

void AppendField(std::string& out, std::string_view name, std::string_view value) {
  if (value.empty()) return;
  out.append(name);
  out.append(": ");
  for (char c : value) out.push_back(c == '\r' || c == '\n' ? ' ' : c);
  out.append("\r\n");
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
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string SerializeRecord(const WarcRecord& record) {
  std::string out;
  out.reserve(record.block.size() + 512);
  out.append("WARC/1.1\r\n");
  AppendField(out, "WARC-Type", RecordTypeName(record.type));
  AppendField(out, "WARC-Record-ID", record.record_id);
  AppendField(out, "WARC-Date", FormatWarcDate(record.date));
  AppendField(out, "WARC-Target-URI", record.target_uri);
  AppendField(out, "WARC-Filename", record.filename);
  AppendField(out, "WARC-IP-Address", record.ip_address);
  AppendField(out, "WARC-Concurrent-To", record.concurrent_to);
  AppendField(out, "WARC-Warcinfo-ID", record.warcinfo_id);
  AppendField(out, "WARC-Refers-To", record.refers_to);
  AppendField(out, "WARC-Refers-To-Target-URI", record.refers_to_target_uri);
  AppendField(out, "WARC-Refers-To-Date", record.refers_to_date);
  AppendField(out, "WARC-Profile", record.profile);
  AppendField(out, "WARC-Payload-Digest", record.payload_digest);
  AppendField(out, "WARC-Truncated", record.truncated);
  for (const auto& [name, value] : record.extra_fields) AppendField(out, name, value);
  AppendField(out, "Content-Type", record.content_type);
  AppendField(out, "WARC-Block-Digest", fingerprint::Sha1(record.block).ToWarcString());
  AppendField(out, "Content-Length", absl::StrCat(record.block.size()));
  out.append("\r\n");
  out.append(record.block);
  out.append("\r\n\r\n");
  return out;
}

}  // namespace crawler::warc
