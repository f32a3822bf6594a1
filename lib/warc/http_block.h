// The HTTP message inside a WARC record's block (WARC 1.1 §6.3.2, §6.4.2: a response, revisit or
// request record of an http(s) URI holds the message as transferred, Content-Type
// "application/http;msgtype=..."): where its header block ends, its parsed response head, and
// its payload (§5.9: the entity body, chunked transfer coding undone, content codings kept, as
// http::EntityBody and the crawler's digests have it). The verifier, the CDXJ indexer and the
// WACZ page list read records through these, so they agree on what a record's HTTP part is.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_WARC_HTTP_BLOCK_H_
#define CRAWLER_LIB_WARC_HTTP_BLOCK_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "lib/http/response_head.h"
#include "lib/warc/warc_reader.h"

namespace crawler::warc {

// True if the record's Content-Type says its block is an HTTP message ("application/http...").
bool IsHttpBlock(const ParsedRecord& record);

// The end of the HTTP header block at the start of `message` (just after its blank line; CRLF or
// bare LF line ends), skipping 1xx interim responses; nullopt without a complete header block.
std::optional<size_t> HttpHeadEnd(std::string_view message);

// The response head of an HTTP response block; nullopt when the block has no complete header
// block with a valid status line.
std::optional<http::ResponseHead> ParseResponseBlock(std::string_view block);

// The payload of a record (WARC 1.1 §5.9), decoded into `storage` when the transfer coding must
// be undone: for an HTTP block the entity body, for any other block the block itself. nullopt
// for an HTTP block without a complete header block (or, for a response, a valid status line).
std::optional<std::string_view> RecordPayload(const ParsedRecord& record, std::string& storage);

}  // namespace crawler::warc

#endif  // CRAWLER_LIB_WARC_HTTP_BLOCK_H_
