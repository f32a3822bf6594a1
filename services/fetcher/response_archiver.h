// The steps every HTTP response takes the same way, page or robots.txt: building the WARC records
// of the exchange (a response record holding the message as transferred, and a request record
// naming it). PageProcessor and RobotsCache both use these, and both take the entity body (what
// digests, decoders and parsers read) from http::EntityBody, so a robots.txt is decoded and
// archived exactly as a page is.
//
// Pure functions over their arguments; thread-safe.
#ifndef CRAWLER_SERVICES_FETCHER_RESPONSE_ARCHIVER_H_
#define CRAWLER_SERVICES_FETCHER_RESPONSE_ARCHIVER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "lib/http/response_head.h"
#include "lib/warc/warc_record.h"
#include "services/fetcher/http_transport.h"

namespace crawler::fetcher {

// The response record of one exchange, without its block: type kResponse, the given id and date,
// the target URI, the remote address, the HTTP content type and truncation. The caller sets the
// block (AppendMessageBlock, or a revisit's header block) and the payload digest if it has one.
warc::WarcRecord ResponseRecord(const HttpResult& http, const std::string& uri, absl::Time date,
                                std::string record_id);

// Sets a response record's block to the message as transferred: header block verbatim, body
// with its transfer coding.
void SetMessageBlock(warc::WarcRecord& response, const std::string& raw_head,
                     const std::string& body);

// Appends the request record of the exchange, concurrent to `response_id`, when the request head
// was captured (nothing otherwise).
void AppendRequestRecord(const HttpResult& http, const std::string& uri, absl::Time date,
                         const std::string& response_id, std::vector<warc::WarcRecord>& records);

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_RESPONSE_ARCHIVER_H_
