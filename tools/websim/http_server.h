// HttpServer: a small, fast HTTP/1.1 origin server for loopback tests and benchmarks (websim).
//
// N worker threads, each with its own epoll loop and its own SO_REUSEPORT listener on the same
// port, so connections spread over the threads without any shared state. Per connection:
// keep-alive (RFC 9112 §9.3), pipelined requests answered in order, `Connection: close`
// honoured, HEAD answered without a body, bounded head size (431), Content-Length framing on
// every response. A response may be delayed (HttpResponse::delay): delays are timers in the
// event loop, never sleeps, so a slow host does not hold up other connections. At most
// `max_pipelined` responses wait per connection; beyond that the server stops reading from it,
// which bounds memory per connection.
//
// Thread-safety: Start/Stop/port from one owning thread. The handler is called concurrently
// from every worker thread and must be thread-safe; it and the log must outlive the server.
#ifndef CRAWLER_TOOLS_WEBSIM_HTTP_SERVER_H_
#define CRAWLER_TOOLS_WEBSIM_HTTP_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tools/websim/request_log.h"

namespace crawler::websim {

struct HttpRequest {
  std::string method;
  // Origin-form path and query as sent.
  std::string target;
  // Lower case, without port.
  std::string host;
  // CLOCK_MONOTONIC when the request was fully parsed.
  int64_t received_monotonic_ns = 0;
  // If-None-Match and If-Modified-Since as sent (ParsedRequest); empty when absent.
  std::string if_none_match;
  std::string if_modified_since;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Extra header fields (e.g. Location, Retry-After, ETag); the server writes Server,
  // Content-Type, Content-Length and Connection itself. A 304 is sent without Content-Length
  // and without a body (RFC 9110 §15.4.5).
  std::vector<std::pair<std::string, std::string>> headers;
  // Time between receiving the request and sending the response.
  absl::Duration delay = absl::ZeroDuration();
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  // Called from any worker thread, concurrently. Only GET and HEAD reach the handler (others
  // get 405); for HEAD the server drops the body but keeps its Content-Length.
  virtual HttpResponse Handle(const HttpRequest& request) = 0;
};

struct HttpServerOptions {
  // IPv4 address to bind. websim serves loopback only.
  std::string address = "127.0.0.1";
  // 0 picks an ephemeral port; port() tells which.
  int port = 0;
  // Worker threads, each with its own listener and epoll loop. One thread serves > 50k small
  // keep-alive requests/s; two help when the handler renders large pages.
  int threads = 1;
  // Request line plus headers; larger heads get 431 and the connection is closed.
  size_t max_header_bytes = 16 * 1024;
  // Request bodies (read and ignored); larger ones get 413.
  size_t max_body_bytes = 1 << 20;
  // Responses waiting (delayed or unsent) per connection before the server stops reading more
  // pipelined requests from it.
  int max_pipelined = 64;
  // Open connections per worker thread; further ones are accepted and closed at once.
  int max_connections_per_thread = 10'000;
  // How long log lines may sit in a worker's buffer before they are written.
  absl::Duration log_flush_interval = absl::Milliseconds(20);
};

class HttpServer {
 public:
  // Binds the listeners and starts the worker threads. `handler` is required; `log` may be
  // null (no request log).
  // Errors: InvalidArgument for a bad address or thread count, the errno-mapped status of a
  // failing socket call (e.g. port in use).
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(HttpServerOptions options,
                                                           HttpHandler* handler,
                                                           RequestLog* log);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }

  // Stops the workers, closes every connection and writes the buffered log lines. Requests
  // still waiting for their delay are dropped. Idempotent.
  void Stop();

 private:
  class Worker;
  HttpServer() = default;

  int port_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
};

// Current CLOCK_MONOTONIC in nanoseconds: the clock of the request log's first field.
int64_t MonotonicNowNs();
// Current CLOCK_REALTIME in nanoseconds: the clock of its last field.
int64_t RealtimeNowNs();

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_HTTP_SERVER_H_
