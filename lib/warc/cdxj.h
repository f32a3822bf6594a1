// CdxjEntry: one line of a CDXJ index (pywb's CDXJ, the index format of pywb, ReplayWeb.page
// and WACZ): "<urlkey> <timestamp> <json>", where
//   urlkey     SurtKey(url) (surt.h);
//   timestamp  the record's WARC-Date as 14 digits, YYYYmmddHHMMSS (UTC);
//   json       {"url", "mime", "status", "digest", "length", "offset", "filename"}, in that
//              order, values as JSON strings, members without a value left out:
//     url       WARC-Target-URI;
//     mime      "warc/revisit" for a revisit; the HTTP Content-Type's media type (before ";")
//               for a response; the record's own Content-Type for other records;
//     status    the HTTP status code of a response or revisit with an HTTP header block;
//     digest    WARC-Payload-Digest without its "algorithm:" label;
//     length    bytes of the record in the file (in a gzip file, its gzip member);
//     offset    where the record begins in the file;
//     filename  the WARC file's name (no directory).
// This is the line warcio.js's CDXJ indexer (`warcio cdx-index`) writes for the same record,
// byte for byte (cdxj_indexer.h has the record selection and the exceptions). Index files are
// sorted by line, bytewise, so a reader can binary-search a key (LC_ALL=C sort).
//
// Thread-safety: a value type; pure functions.
#ifndef CRAWLER_LIB_WARC_CDXJ_H_
#define CRAWLER_LIB_WARC_CDXJ_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace crawler::warc {

struct CdxjEntry {
  std::string key;
  std::string timestamp;
  std::string url;
  std::string mime;    // empty: left out
  std::string status;  // empty: left out
  std::string digest;  // empty: left out
  uint64_t length = 0;
  uint64_t offset = 0;
  std::string filename;

  // The line, without its newline.
  std::string ToLine() const;
  // Reads a line (without its newline). Offset and length may be JSON strings or numbers.
  // kInvalidArgument for a line that is not "<key> <timestamp> {json}" with a url, an offset,
  // a length and a filename.
  static absl::StatusOr<CdxjEntry> Parse(std::string_view line);

  friend bool operator==(const CdxjEntry&, const CdxjEntry&) = default;
};

// WARC-Date "2024-01-31T12:34:56Z" (or with a fraction of a second) as "20240131123456": the
// characters "-", ":" and "T" removed and the first 14 kept, as warcio.js does.
std::string CdxjTimestamp(std::string_view warc_date);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_CDXJ_H_
