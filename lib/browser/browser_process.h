// BrowserProcess: one headless Chromium (chromium-headless-shell, or chromium --headless) driven
// over the DevTools protocol through --remote-debugging-pipe: the browser reads commands on its
// fd 3 and writes answers and events on its fd 4, each message one JSON text ended by a NUL
// byte. A pipe needs no port, no WebSocket and no discovery, and nobody else can connect to it.
//
// The process runs in its own process group (its renderer, GPU and utility children with it), so
// that stopping it leaves nothing behind; its profile lives in a temporary directory removed on
// destruction. Both ends of the transport are one socketpair: writes use MSG_NOSIGNAL, so a
// browser that died never raises SIGPIPE in the crawler.
//
// Thread-safety: Send may be called from any thread. The message handler runs on the reader
// thread, one message at a time, and must not block (it hands messages on); the exit handler
// runs there once, after the last message.
#ifndef CRAWLER_LIB_BROWSER_BROWSER_PROCESS_H_
#define CRAWLER_LIB_BROWSER_BROWSER_PROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace crawler::browser {

// One process of a browser's tree, as /proc shows it.
struct TreeProcess {
  pid_t pid = 0;
  uint64_t memory_bytes = 0;  // its proportional set size: pages shared with N processes count 1/N
  bool renderer = false;  // started with --type=renderer: the process of one tab's pages
};

struct BrowserProcessOptions {
  // The browser's executable: a path, or a name looked up in PATH.
  std::string executable = "chromium-headless-shell";
  // Arguments besides --remote-debugging-pipe and --user-data-dir, which are always given.
  std::vector<std::string> args;
  // A message longer than this ends the connection (a browser gone wrong must not grow the
  // crawler's memory without bound). Rendered DOMs come back as one message each.
  size_t max_message_bytes = 64u << 20;
};

class BrowserProcess {
 public:
  using MessageHandler = absl::AnyInvocable<void(std::string message)>;
  using ExitHandler = absl::AnyInvocable<void(std::string why)>;

  // Starts the browser. kNotFound when the executable is not there, kInternal when it cannot be
  // started. The handlers are called on the reader thread until the process ends or is stopped.
  static absl::StatusOr<std::unique_ptr<BrowserProcess>> Start(const BrowserProcessOptions& options,
                                                               MessageHandler on_message,
                                                               ExitHandler on_exit);
  // Kills the process group, waits for the browser and the reader thread, removes the profile.
  ~BrowserProcess();

  BrowserProcess(const BrowserProcess&) = delete;
  BrowserProcess& operator=(const BrowserProcess&) = delete;

  // Writes one message (a JSON text without NUL bytes). kUnavailable once the browser is gone.
  absl::Status Send(std::string_view message);

  pid_t pid() const { return pid_; }
  bool running() const { return running_.load(std::memory_order_acquire); }

  // The browser and every process descended from it (/proc), with their memory.
  std::vector<TreeProcess> TreeProcesses() const;
  // Their memory in all, in bytes: the sum of their proportional set sizes, each page once.
  uint64_t TreeMemoryBytes() const;
  // SIGKILLs `pid` if it is one of the browser's descendants (not the browser itself); false if
  // it is not, or no longer.
  bool KillDescendant(pid_t pid) const;

 private:
  BrowserProcess(pid_t pid, int fd, std::string profile_dir, size_t max_message_bytes);
  void ReadLoop(MessageHandler on_message, ExitHandler on_exit);

  const pid_t pid_;
  const int fd_;  // our end of the socketpair
  const std::string profile_dir_;
  const size_t max_message_bytes_;
  std::atomic<bool> running_{true};
  absl::Mutex write_mu_;
  std::thread reader_;
};

}  // namespace crawler::browser

#endif  // CRAWLER_LIB_BROWSER_BROWSER_PROCESS_H_
