// LocalRedis: a real redis-server for one test, on a free loopback port, its files in a fresh
// temporary directory, no persistence (a restart comes back empty, as a Redis without
// persistence after a crash). Kill() sends SIGKILL; Start() again reuses the port.
#ifndef CRAWLER_TESTS_UNIT_REDIS_LOCAL_REDIS_H_
#define CRAWLER_TESTS_UNIT_REDIS_LOCAL_REDIS_H_

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "services/common/redis/redis_client.h"

namespace crawler::redis::testing {

class LocalRedis {
 public:
  // `extra`: more redis-server arguments, e.g. {"--requirepass", "secret"}.
  explicit LocalRedis(std::vector<std::string> extra = {}) : extra_(std::move(extra)) {
    char pattern[] = "/tmp/local-redis-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  ~LocalRedis() {
    Kill();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // Starts the server (on a new free port the first time, on the same port after Kill) and
  // waits until it answers, at most 10 s. False if it never did.
  bool Start() {
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (port_ == 0 || attempt > 0) port_ = FreePort();
      if (Spawn() && WaitReady()) return true;
      Kill();
      if (restarts_ > 0) return false;  // the port must stay the same: do not move it
    }
    return false;
  }
  bool Restart() {
    ++restarts_;
    return Start();
  }
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }

  uint16_t port() const { return port_; }
  RedisAddress address() const { return RedisAddress{.host = "127.0.0.1", .port = port_}; }
  std::string url() const { return address().ToString(); }

 private:
  static uint16_t FreePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
  }

  bool Spawn() {
    std::vector<std::string> args = {"redis-server", "--port", absl::StrCat(port_),
                                     "--bind", "127.0.0.1", "--dir", dir_,
                                     "--save", "", "--appendonly", "no",
                                     "--logfile", dir_ + "/redis.log"};
    args.insert(args.end(), extra_.begin(), extra_.end());
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      // The server dies with the test process, even when that crashes, and holds none of its
      // output pipes: a server outliving a crashed test would keep ctest waiting on them.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int null = ::open("/dev/null", O_RDWR);
      if (null >= 0) {
        ::dup2(null, STDIN_FILENO);
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
      }
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp("redis-server", argv.data());
      ::execv("/usr/bin/redis-server", argv.data());
      ::_exit(127);
    }
    return true;
  }

  bool WaitReady() {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    RedisOptions options{.address = address()};
    while (absl::Now() < deadline) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = 0;  // exited: the port was taken, or redis-server is missing
        return false;
      }
      auto connection = RedisConnection::Connect(options);
      if (connection.ok()) {
        auto reply = (*connection)->Command({"PING"});
        // NOAUTH also proves the server is up.
        if (reply.ok()) return true;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    return false;
  }

  const std::vector<std::string> extra_;
  std::string dir_;
  uint16_t port_ = 0;
  pid_t pid_ = 0;
  int restarts_ = 0;
};

}  // namespace crawler::redis::testing

#endif  // CRAWLER_TESTS_UNIT_REDIS_LOCAL_REDIS_H_
