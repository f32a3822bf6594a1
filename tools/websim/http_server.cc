#include "tools/websim/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <deque>
#include <functional>
#include <queue>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tools/websim/http_request_parser.h"

namespace crawler::websim {
namespace {

// Unsent response bytes per connection above which the server stops reading requests from it.
constexpr size_t kMaxUnsentBytes = 4 << 20;
constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kLogBufferFlushBytes = 64 * 1024;
constexpr int kMaxEvents = 256;
// Accepts per readiness event, so a connection storm cannot starve established connections.
constexpr int kMaxAcceptsPerEvent = 64;

absl::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 410: return "Gone";
    case 413: return "Content Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

// Status line, headers and (unless HEAD) body, appended to `out`.
void AppendResponse(const HttpResponse& response, bool head, int version_minor, bool close,
                    std::string* out) {
  // A 304 has no content, and a Content-Length on it would have to be that of the 200.
  const bool no_content = response.status == 304;
  absl::StrAppend(out, "HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status),
                  "\r\nServer: websim\r\nContent-Type: ", response.content_type, "\r\n");
  if (!no_content) absl::StrAppend(out, "Content-Length: ", response.body.size(), "\r\n");
  for (const auto& [name, value] : response.headers) {
    absl::StrAppend(out, name, ": ", value, "\r\n");
  }
  if (close) {
    out->append("Connection: close\r\n");
  } else if (version_minor == 0) {
    out->append("Connection: keep-alive\r\n");
  }
  out->append("\r\n");
  if (!head && !no_content) out->append(response.body);
}

HttpResponse ErrorResponse(int status) {
  HttpResponse response;
  response.status = status;
  response.body = absl::StrCat(status, " ", ReasonPhrase(status), "\n");
  return response;
}

absl::Status SocketError(const char* what) {
  return absl::ErrnoToStatus(errno, absl::StrCat("websim: ", what));
}

}  // namespace

int64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

int64_t RealtimeNowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// One epoll loop: its listener, its connections, its timers, its log buffer. Nothing in a
// Worker is touched by another thread except `stop_` and the eventfd that wakes it.
class HttpServer::Worker {
 public:
  Worker(int index, int threads, int listen_fd, const HttpServerOptions& options,
         HttpHandler* handler, RequestLog* log)
      : index_(index),
        threads_(threads),
        listen_fd_(listen_fd),
        options_(options),
        handler_(handler),
        log_(log) {
    limits_.max_header_bytes = options.max_header_bytes;
    limits_.max_body_bytes = options.max_body_bytes;
  }

  ~Worker() {
    for (auto& [fd, conn] : conns_) ::close(fd);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
  }

  absl::Status Init() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) return SocketError("epoll_create1");
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) return SocketError("eventfd");
    for (int fd : {listen_fd_, wake_fd_}) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0) return SocketError("epoll_ctl");
    }
    return absl::OkStatus();
  }

  void RequestStop() {
    stop_.store(true);
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
  }

  void Run() {
    epoll_event events[kMaxEvents];
    last_log_flush_ns_ = MonotonicNowNs();
    while (!stop_.load(std::memory_order_relaxed)) {
      const int n = epoll_wait(epoll_fd_, events, kMaxEvents, TimeoutMs());
      if (n < 0 && errno != EINTR) break;
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        const uint32_t ev = events[i].events;
        if (fd == listen_fd_) {
          AcceptSome();
        } else if (fd == wake_fd_) {
          uint64_t value;
          [[maybe_unused]] ssize_t r = ::read(wake_fd_, &value, sizeof value);
        } else {
          OnConnectionEvent(fd, ev);
        }
      }
      FireTimers();
      MaybeFlushLog(false);
    }
    MaybeFlushLog(true);
  }

 private:
  struct Pending {
    int64_t ready_ns;
    std::string bytes;
  };
  struct Connection {
    int fd = -1;
    uint64_t id = 0;
    std::string in;
    size_t in_pos = 0;
    std::string out;
    size_t out_pos = 0;
    // Responses not yet due, in request order; only the front may move to `out`.
    std::deque<Pending> pending;
    // No further requests are parsed; close once everything queued is sent.
    bool closing = false;
    bool peer_closed = false;
    uint32_t events = EPOLLIN;
  };
  struct Timer {
    int64_t at_ns;
    int fd;
    uint64_t id;
    bool operator>(const Timer& other) const { return at_ns > other.at_ns; }
  };

  int TimeoutMs() const {
    int64_t deadline = INT64_MAX;
    if (!timers_.empty()) deadline = timers_.top().at_ns;
    if (!log_buffer_.empty()) {
      deadline = std::min(deadline, last_log_flush_ns_ + absl::ToInt64Nanoseconds(
                                                             options_.log_flush_interval));
    }
    if (deadline == INT64_MAX) return -1;
    const int64_t wait_ns = deadline - MonotonicNowNs();
    if (wait_ns <= 0) return 0;
    // Round up: waking early would spin until the deadline.
    return static_cast<int>(std::min<int64_t>((wait_ns + 999'999) / 1'000'000, 1000));
  }

  void AcceptSome() {
    for (int i = 0; i < kMaxAcceptsPerEvent; ++i) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or EMFILE & co: retried on the next readiness event
      if (static_cast<int>(conns_.size()) >= options_.max_connections_per_thread) {
        ::close(fd);
        continue;
      }
      // Responses are written whole; Nagle would only delay pipelined ones.
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto conn = std::make_unique<Connection>();
      conn->fd = fd;
      conn->id = next_serial_++ * static_cast<uint64_t>(threads_) + index_;
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0) {
        ::close(fd);
        continue;
      }
      conns_.emplace(fd, std::move(conn));
    }
  }

  void OnConnectionEvent(int fd, uint32_t ev) {
    auto it = conns_.find(fd);
    if (it == conns_.end()) return;
    Connection& conn = *it->second;
    if (ev & EPOLLERR) {
      Close(conn);
      return;
    }
    if (ev & (EPOLLIN | EPOLLHUP)) {
      // Through a worker buffer: growing conn.in by a whole chunk would zero 64 KiB per read.
      const ssize_t n = ::recv(fd, read_buffer_.get(), kReadChunk, 0);
      if (n > 0) conn.in.append(read_buffer_.get(), static_cast<size_t>(n));
      if (n == 0) {
        conn.peer_closed = true;
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        Close(conn);
        return;
      }
    }
    Service(conn);
  }

  // Parses what it may, sends what is due, closes when done, and keeps epoll interest right.
  void Service(Connection& conn) {
    while (true) {
      const int parsed = ParseRequests(conn);
      if (!Flush(conn)) return;  // closed
      if (parsed == 0 || !CanParse(conn)) break;
    }
    if (conn.peer_closed && !conn.closing) {
      // Whatever is left in the buffer can never become a complete request.
      conn.closing = true;
      if (conn.pending.empty() && conn.out_pos == conn.out.size()) {
        Close(conn);
        return;
      }
    }
    UpdateInterest(conn);
  }

  bool CanParse(const Connection& conn) const {
    return !conn.closing &&
           static_cast<int>(conn.pending.size()) < options_.max_pipelined &&
           conn.out.size() - conn.out_pos < kMaxUnsentBytes;
  }

  int ParseRequests(Connection& conn) {
    int parsed = 0;
    while (CanParse(conn) && conn.in_pos < conn.in.size()) {
      absl::string_view input(conn.in);
      input.remove_prefix(conn.in_pos);
      ParseResult result = ParseHttpRequest(input, limits_);
      if (result.state == ParseResult::State::kIncomplete) break;
      const int64_t now = MonotonicNowNs();
      ++parsed;
      if (result.state == ParseResult::State::kError) {
        // The framing of anything after a bad head is unknown: answer and close.
        HttpResponse response = ErrorResponse(result.error_status);
        Log(now, {}, {}, {}, {}, response.status, response.body.size(), conn);
        conn.closing = true;
        Enqueue(conn, now, response, false, 1, true);
        conn.in_pos = conn.in.size();
        break;
      }
      conn.in_pos += result.consumed;
      const ParsedRequest& parsed_request = result.request;
      const bool head = parsed_request.method == "HEAD";
      HttpResponse response;
      if (parsed_request.method == "GET" || head) {
        HttpRequest request;
        request.method = parsed_request.method;
        request.target = parsed_request.target;
        request.host = parsed_request.host;
        request.received_monotonic_ns = now;
        request.if_none_match = parsed_request.if_none_match;
        request.if_modified_since = parsed_request.if_modified_since;
        response = handler_->Handle(request);
      } else {
        response = ErrorResponse(405);
        response.headers.emplace_back("Allow", "GET, HEAD");
      }
      const bool close = !parsed_request.keep_alive;
      Log(now, parsed_request.host, parsed_request.target, parsed_request.method,
          parsed_request.crawler_partition,
          response.status, head ? 0 : response.body.size(), conn);
      if (close) conn.closing = true;
      Enqueue(conn, now, response, head, parsed_request.version_minor, close);
    }
    if (conn.in_pos == conn.in.size()) {
      conn.in.clear();
      conn.in_pos = 0;
    } else if (conn.in_pos > kReadChunk) {
      conn.in.erase(0, conn.in_pos);
      conn.in_pos = 0;
    }
    return parsed;
  }

  void Enqueue(Connection& conn, int64_t received_ns, const HttpResponse& response, bool head,
               int version_minor, bool close) {
    const int64_t ready = received_ns + absl::ToInt64Nanoseconds(response.delay);
    if (response.delay <= absl::ZeroDuration() && conn.pending.empty()) {
      AppendResponse(response, head, version_minor, close, &conn.out);
      return;
    }
    Pending pending;
    pending.ready_ns = ready;
    AppendResponse(response, head, version_minor, close, &pending.bytes);
    conn.pending.push_back(std::move(pending));
    timers_.push(Timer{ready, conn.fd, conn.id});
  }

  // Moves due responses to the output and writes it. Returns false if the connection closed.
  bool Flush(Connection& conn) {
    if (!conn.pending.empty()) {
      const int64_t now = MonotonicNowNs();
      while (!conn.pending.empty() && conn.pending.front().ready_ns <= now) {
        conn.out.append(conn.pending.front().bytes);
        conn.pending.pop_front();
      }
    }
    while (conn.out_pos < conn.out.size()) {
      const ssize_t n = ::send(conn.fd, conn.out.data() + conn.out_pos,
                               conn.out.size() - conn.out_pos, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        Close(conn);
        return false;
      }
      conn.out_pos += static_cast<size_t>(n);
    }
    if (conn.out_pos == conn.out.size()) {
      conn.out.clear();
      conn.out_pos = 0;
      if (conn.closing && conn.pending.empty()) {
        Close(conn);
        return false;
      }
    } else if (conn.out_pos > kMaxUnsentBytes) {
      conn.out.erase(0, conn.out_pos);
      conn.out_pos = 0;
    }
    return true;
  }

  void UpdateInterest(Connection& conn) {
    uint32_t events = 0;
    if (!conn.peer_closed && CanParse(conn)) events |= EPOLLIN;
    if (conn.out_pos < conn.out.size()) events |= EPOLLOUT;
    if (events == conn.events) return;
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = conn.fd;
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, conn.fd, &ev);
    conn.events = events;
  }

  void FireTimers() {
    if (timers_.empty()) return;
    const int64_t now = MonotonicNowNs();
    while (!timers_.empty() && timers_.top().at_ns <= now) {
      const Timer timer = timers_.top();
      timers_.pop();
      auto it = conns_.find(timer.fd);
      // The connection may have closed, and its fd been reused, since the timer was set.
      if (it == conns_.end() || it->second->id != timer.id) continue;
      Service(*it->second);
    }
  }

  void Close(Connection& conn) {
    const int fd = conn.fd;
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    conns_.erase(fd);  // destroys `conn`
  }

  void Log(int64_t now, absl::string_view host, absl::string_view target, absl::string_view method,
           absl::string_view partition, int status, uint64_t body_bytes, const Connection& conn) {
    if (log_ == nullptr) return;
    RequestLogRecord record;
    record.received_monotonic_ns = now;
    // The wall clock at the parse instant, from the two clocks' offset now: while the wall clock
    // is corrected the offset drifts by milliseconds per second at most, so by nanoseconds since
    // `now`.
    record.received_realtime_ns = now + (RealtimeNowNs() - MonotonicNowNs());
    record.host = host;
    record.target = target;
    record.method = method;
    record.partition = partition;
    record.status = status;
    record.body_bytes = body_bytes;
    record.connection_id = conn.id;
    RequestLog::AppendLine(record, &log_buffer_);
  }

  void MaybeFlushLog(bool force) {
    if (log_ == nullptr || log_buffer_.empty()) return;
    const int64_t now = MonotonicNowNs();
    if (force || log_buffer_.size() >= kLogBufferFlushBytes ||
        now - last_log_flush_ns_ >= absl::ToInt64Nanoseconds(options_.log_flush_interval)) {
      log_->Write(log_buffer_);
      log_buffer_.clear();
      last_log_flush_ns_ = now;
    }
  }

  // Constant after construction.
  const int index_;
  const int threads_;
  const int listen_fd_;
  const HttpServerOptions options_;
  HttpHandler* const handler_;
  RequestLog* const log_;
  HttpParserLimits limits_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;

  std::atomic<bool> stop_{false};

  // Owned by the worker thread.
  std::unique_ptr<char[]> read_buffer_ = std::make_unique<char[]>(kReadChunk);
  std::unordered_map<int, std::unique_ptr<Connection>> conns_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  uint64_t next_serial_ = 0;
  std::string log_buffer_;
  int64_t last_log_flush_ns_ = 0;
};

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options,
                                                              HttpHandler* handler,
                                                              RequestLog* log) {
  if (handler == nullptr) return absl::InvalidArgumentError("handler must not be null");
  if (options.threads < 1 || options.threads > 256) {
    return absl::InvalidArgumentError("threads must be in [1, 256]");
  }
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError("port must be in [0, 65535]");
  }
  if (options.max_pipelined < 1 || options.max_connections_per_thread < 1) {
    return absl::InvalidArgumentError("max_pipelined and max_connections must be >= 1");
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (inet_pton(AF_INET, options.address.c_str(), &addr.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("not an IPv4 address: ", options.address));
  }
  addr.sin_port = htons(static_cast<uint16_t>(options.port));

  std::unique_ptr<HttpServer> server(new HttpServer());
  for (int i = 0; i < options.threads; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return SocketError("socket");
    // The worker owns the fd from here on, so every error path below closes it.
    auto worker = std::make_unique<Worker>(i, options.threads, fd, options, handler, log);
    Worker* w = worker.get();
    server->workers_.push_back(std::move(worker));
    const int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) {
      return SocketError("setsockopt");
    }
    // The first listener picks the port (ephemeral if 0); the others share it.
    if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) < 0) {
      return SocketError("bind");
    }
    if (i == 0) {
      socklen_t len = sizeof addr;
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) < 0) {
        return SocketError("getsockname");
      }
      server->port_ = ntohs(addr.sin_port);
    }
    if (listen(fd, 4096) < 0) return SocketError("listen");
    if (absl::Status s = w->Init(); !s.ok()) return s;
  }
  for (auto& worker : server->workers_) {
    server->threads_.emplace_back([w = worker.get()] { w->Run(); });
  }
  return server;
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Stop() {
  for (auto& worker : workers_) worker->RequestStop();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

}  // namespace crawler::websim
