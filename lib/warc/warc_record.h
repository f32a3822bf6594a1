// WarcRecord: one WARC/1.1 record (ISO 28500:2017; the IIPC WARC 1.1 specification) and its
// serialisation. Pure: no files, no clock; the writer (warc_writer.h) supplies ids and dates.
//
// Serialised form (WARC 1.1 §4):
//   "WARC/1.1" CRLF, named fields CRLF-terminated, CRLF, block, CRLF CRLF.
// Mandatory fields (§5): WARC-Record-ID, Content-Length, WARC-Date, WARC-Type. The serialiser
// adds Content-Length and WARC-Block-Digest itself; the caller sets everything else that applies.
//
// Thread-safety: a value type; no shared state.
#ifndef CRAWLER_LIB_WARC_WARC_RECORD_H_
#define CRAWLER_LIB_WARC_WARC_RECORD_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace crawler::warc {

// WARC 1.1 §6: the record types this crawler writes.
enum class RecordType { kWarcinfo, kResponse, kRequest, kMetadata, kRevisit, kResource };
std::string_view RecordTypeName(RecordType type);

// WARC 1.1 §6.7.2 / §6.7.3: WARC-Profile URIs of revisit records.
inline constexpr std::string_view kProfileIdenticalPayloadDigest =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";
inline constexpr std::string_view kProfileServerNotModified =
    "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

// Content-Type of a block holding an HTTP message (WARC 1.1 §6.3.2, §6.4.2).
inline constexpr std::string_view kHttpResponseContentType = "application/http;msgtype=response";
inline constexpr std::string_view kHttpRequestContentType = "application/http;msgtype=request";

struct WarcRecord {
  RecordType type = RecordType::kResource;
  std::string record_id;                   // "<urn:uuid:...>", angle brackets included (§5.2)
  absl::Time date = absl::InfinitePast();  // WARC-Date (§5.4), UTC, second precision
  std::string target_uri;                  // WARC-Target-URI; empty for warcinfo
  std::string content_type;                // Content-Type of the block; empty = omitted
  std::string ip_address;                  // WARC-IP-Address
  std::string concurrent_to;               // WARC-Concurrent-To (record id)
  std::string warcinfo_id;                 // WARC-Warcinfo-ID
  std::string refers_to;                   // WARC-Refers-To (revisit)
  std::string refers_to_target_uri;
  std::string refers_to_date;  // already formatted (a WARC-Date of the original)
  std::string profile;         // WARC-Profile (revisit)
  std::string payload_digest;  // "sha1:..." of the HTTP entity body
  std::string truncated;       // WARC-Truncated reason ("length", "time", ...); empty = not
  std::string filename;        // WARC-Filename (warcinfo)
  // Any further named fields, written in order after the ones above.
  std::vector<std::pair<std::string, std::string>> extra_fields;
  std::string block;
};

// Formats a WARC-Date: "2024-01-31T12:34:56Z".
std::string FormatWarcDate(absl::Time t);

// Serialises the record, adding Content-Length and WARC-Block-Digest (SHA-1 of the block). Field
// values containing CR or LF are a programming error and are replaced by spaces rather than
// allowed to forge fields (values often come from servers: target URIs, truncation reasons).
std::string SerializeRecord(const WarcRecord& record);
// The same, appended to `out` (whose capacity a caller serialising many records can reuse).
void AppendSerializedRecord(const WarcRecord& record, std::string& out);

// The value a reader of the serialised record (WarcReader, ParsedRecord::Field) finds for the
// field `name`: the first one written under that name (case-insensitive), CR and LF as spaces,
// surrounding whitespace stripped; empty when there is none. Without serialising the record;
// WARC-Block-Digest and Content-Length, which would need it, are not looked up.
std::string WrittenFieldValue(const WarcRecord& record, std::string_view name);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_WARC_RECORD_H_
