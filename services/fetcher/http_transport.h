// HttpTransport: what the fetcher's network loop needs from an HTTP client, so that a test can
// put an in-memory transport where production uses libcurl (HttpClient, http_client.h). Also the
// request and result types every transport speaks.
//
// Contract: Start queues a transfer; each started transfer comes back exactly once from a later
// Poll, as an HttpResult with the request's id (an error result if it could not be made).
// Results are raw: the header block and body as received (no transfer or content coding
// undone), because WARC records store the message as transferred.
//
// Thread-safety: one thread calls Start, Poll and in_flight; Wakeup may be called from any
// thread and makes a blocked Poll (or the next one) return early.
//
// Cost: the loop makes one virtual call per transfer start and one per Poll turn, not per page.
#ifndef CRAWLER_SERVICES_FETCHER_HTTP_TRANSPORT_H_
#define CRAWLER_SERVICES_FETCHER_HTTP_TRANSPORT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"

namespace crawler::fetcher {

struct HttpRequest {
  uint64_t id = 0;
  std::string url;  // absolute http(s) URL
  std::string host;
  uint16_t port = 0;
  std::string ip;  // the address to connect to; must pass the SSRF guard (ignored with connect_to)
  std::vector<std::string> extra_headers;  // "If-None-Match: \"x\"", ...
};

// Why a transfer failed, one class per thing a user can act on; HttpResult::error_message says
// it in one plain line.
enum class TransportError {
  kNone,
  kTimeout,         // no connection within connect_timeout (or the time ran out before a request)
  kHeaderTimeout,   // connected, but the response head did not arrive in time (or too slowly)
  kBodyTimeout,     // the head arrived, the body did not complete in time (or came too slowly)
  kConnectFailed,   // refused, unreachable, reset before a response
  kAddressRefused,  // the SSRF guard refused the connect-time address
  kHeaderTooLarge,  // the head over max_header_bytes, or one line over libcurl's 100 KiB
  kBadChunking,     // malformed chunked transfer coding
  kTls,
  kProtocol,  // malformed response
  kOther,
};
std::string_view TransportErrorName(TransportError error);

struct HttpResult {
  uint64_t id = 0;
  TransportError error = TransportError::kNone;
  std::string error_message;  // curl's, for logs
  std::string raw_headers;    // every header block received, verbatim
  std::string body;           // as transferred (chunked, content-coded), at most max_body_bytes
  // Why the body is incomplete, as WARC-Truncated names it: "length" (our cap) or "disconnect"
  // (the server closed early); empty when complete.
  std::string truncated;
  std::string request_head;  // as sent (when capture_request)
  std::string remote_ip;
  absl::Duration total_time = absl::ZeroDuration();
  absl::Duration time_to_first_byte = absl::ZeroDuration();
  // Keeps `body`'s bytes charged to the transport's memory budget until the last copy of the
  // result is destroyed (HttpClientOptions::body_memory_bytes); null when nothing is charged.
  std::shared_ptr<const void> body_memory;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // Queues a transfer; it starts on the next Poll.
  virtual void Start(HttpRequest request) = 0;
  // Drives transfers, waiting up to `timeout` for activity; returns those that ended.
  virtual std::vector<HttpResult> Poll(absl::Duration timeout) = 0;
  // Transfers started and not yet returned by Poll.
  virtual size_t in_flight() const = 0;
  // Makes a blocked Poll return early. Thread-safe.
  virtual void Wakeup() = 0;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_HTTP_TRANSPORT_H_
