// TestHttpServer: a tiny HTTP/1.1 server on 127.0.0.1 (or ::1), port 0, for fetcher tests. Each
// request head is handed to a handler that returns the raw response bytes to write (so tests can
// send malformed, huge, slow or compressed answers). Keep-alive is honoured; a handler may ask to
// close the connection after its response. Test-only; one thread per connection.
#ifndef CRAWLER_TESTS_UNIT_FETCHER_TEST_HTTP_SERVER_H_
#define CRAWLER_TESTS_UNIT_FETCHER_TEST_HTTP_SERVER_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace crawler::testing {

struct TestResponse {
  std::string bytes;
  bool close = false;
};

class TestHttpServer {
 public:
  using Handler = std::function<TestResponse(const std::string& request_head)>;

  enum class Family { kIpv4, kIpv6 };

  // Listens on 127.0.0.1, or on ::1 with Family::kIpv6 (ok() is false if the host has no IPv6
  // loopback).
  explicit TestHttpServer(Handler handler, Family family = Family::kIpv4)
      : handler_(std::move(handler)) {
    if (family == Family::kIpv6) {
      listen_fd_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in6 addr{};
      addr.sin6_family = AF_INET6;
      addr.sin6_addr = in6addr_loopback;
      ok_ = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      socklen_t len = sizeof addr;
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
      port_ = ntohs(addr.sin6_port);
    } else {
      listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = 0;
      ok_ = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      socklen_t len = sizeof addr;
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
      port_ = ntohs(addr.sin_port);
    }
    ok_ = ok_ && ::listen(listen_fd_, 64) == 0;
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }

  ~TestHttpServer() {
    stop_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    ::close(listen_fd_);
    accept_thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    for (std::thread& t : connections_) t.join();
  }

  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  int requests() const { return requests_; }
  int connections() const { return accepted_; }
  std::vector<std::string> heads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return heads_;
  }

 private:
  void AcceptLoop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ++accepted_;
      std::lock_guard<std::mutex> lock(mu_);
      connections_.emplace_back([this, fd] { Serve(fd); });
    }
  }

  void Serve(int fd) {
    std::string buffer;
    char chunk[4096];
    // Bounded: a connection lives at most ~10 s of idleness.
    for (int idle_polls = 0; !stop_ && idle_polls < 100;) {
      const size_t end = buffer.find("\r\n\r\n");
      if (end != std::string::npos) {
        const std::string head = buffer.substr(0, end + 4);
        buffer.erase(0, end + 4);
        ++requests_;
        {
          std::lock_guard<std::mutex> lock(mu_);
          heads_.push_back(head);
        }
        const TestResponse response = handler_(head);
        size_t sent = 0;
        while (sent < response.bytes.size()) {
          const ssize_t n = ::send(fd, response.bytes.data() + sent, response.bytes.size() - sent,
                                   MSG_NOSIGNAL);
          if (n <= 0) break;
          sent += static_cast<size_t>(n);
        }
        if (response.close) break;
        continue;
      }
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) {
        ++idle_polls;
        continue;
      }
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      buffer.append(chunk, static_cast<size_t>(n));
    }
    ::close(fd);
  }

  Handler handler_;
  int listen_fd_ = -1;
  bool ok_ = false;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::atomic<int> accepted_{0};
  std::thread accept_thread_;
  mutable std::mutex mu_;
  std::vector<std::thread> connections_;
  std::vector<std::string> heads_;
};

}  // namespace crawler::testing

#endif  // CRAWLER_TESTS_UNIT_FETCHER_TEST_HTTP_SERVER_H_
