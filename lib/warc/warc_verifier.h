// VerifyWarcFile: reads every record of a WARC file and checks it, for `crawler warc verify`.
//
// A file is intact when every gzip member is complete and uncorrupted (CRC-32 and length of each
// member, RFC 1952), every record parses (WARC 1.1 §4: version line, fields, Content-Length,
// block) and every digest it carries matches its content:
//   - WARC-Block-Digest (§5.8): of the whole block;
//   - WARC-Payload-Digest (§5.9): of the payload -- for application/http blocks the entity body
//     after the HTTP header block (1xx interim heads skipped, chunked transfer coding undone,
//     content codings kept: http::EntityBody, as the crawler computes it when writing), for
//     other blocks the block itself. Not checked on revisit records, whose payload digest is the
//     original's (§6.7).
// Digests of algorithms other than SHA-1 are counted as unchecked, not as damage. Reading stops
// at the first damage, which is reported with the file offset of the damaged record (in a gzip
// file, of the gzip member it starts in).
//
// Thread-safety: a pure function of the file's contents.
#ifndef CRAWLER_LIB_WARC_WARC_VERIFIER_H_
#define CRAWLER_LIB_WARC_WARC_VERIFIER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace crawler::warc {

struct WarcVerifyReport {
  uint64_t records = 0;          // intact records read (before the damage, if any)
  uint64_t block_digests = 0;    // WARC-Block-Digest values that matched
  uint64_t payload_digests = 0;  // WARC-Payload-Digest values that matched
  uint64_t unchecked_digests = 0;  // of an algorithm other than SHA-1
  // OK; kDataLoss for damage (a truncated or corrupt gzip member, a malformed or truncated
  // record, a digest that does not match or does not parse), saying what is wrong;
  // kResourceExhausted for a record larger than the limit; kNotFound if the file cannot be
  // opened.
  absl::Status status;
  uint64_t bad_offset = 0;  // where the damaged record begins, when status is not OK
};

// Reads `path` (plain or gzip-compressed WARC) to its end or to its first damage. Memory is
// bounded by the largest record, at most `max_record_bytes`.
WarcVerifyReport VerifyWarcFile(const std::string& path, uint64_t max_record_bytes = 1ull << 30);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_WARC_VERIFIER_H_
