#include "lib/browser/browser_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

extern char** environ;

namespace crawler::browser {
namespace {

std::string Errno(const char* what) { return absl::StrCat(what, ": ", std::strerror(errno)); }

// The executable's path: `name` itself when it has a slash, else the first match in PATH.
std::string FindExecutable(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = getenv("PATH");
  const std::vector<std::string> dirs = absl::StrSplit(path ? path : "/usr/bin:/bin", ':');
  for (const std::string& dir : dirs) {
    if (dir.empty()) continue;
    std::string candidate = absl::StrCat(dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// A file of /proc/<pid>/, at most `limit` bytes; "" if it cannot be read. Read with read(2): a
// process may end while it is read, and a read error then must be an empty answer (libstdc++'s
// stream buffers throw from a failed read).
std::string ReadProcFile(pid_t pid, const char* name, size_t limit = 64 * 1024) {
  const int fd = open(absl::StrCat("/proc/", pid, "/", name).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  char chunk[4096];
  while (out.size() < limit) {
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) out.clear();
      break;
    }
    out.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

// pid -> parent pid of every process, from /proc/<pid>/stat.
std::map<pid_t, pid_t> ParentsOfAll() {
  std::map<pid_t, pid_t> parents;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return parents;
  while (dirent* entry = readdir(proc)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    const std::string line = ReadProcFile(pid, "stat");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    const std::vector<std::string> fields =
        absl::StrSplit(line.substr(close + 1), ' ', absl::SkipEmpty());
    int ppid = 0;
    if (fields.size() > 1 && absl::SimpleAtoi(fields[1], &ppid)) parents[pid] = ppid;
  }
  closedir(proc);
  return parents;
}

// The memory `pid` holds as its share: the proportional set size (smaps_rollup), each page
// shared by N processes counted 1/N in each, so that the shares of a tree add up to what it holds
// (a renderer, the zygotes and the browser all map Chromium's code: resident sizes would count
// it once per process). The resident size where the kernel has no smaps_rollup (before 4.14).
uint64_t MemoryBytesOf(pid_t pid) {
  for (absl::string_view line : absl::StrSplit(ReadProcFile(pid, "smaps_rollup"), '\n')) {
    if (!absl::ConsumePrefix(&line, "Pss:")) continue;
    uint64_t kib = 0;
    const std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    return !fields.empty() && absl::SimpleAtoi(fields[0], &kib) ? kib << 10 : 0;
  }
  const std::vector<std::string> statm =
      absl::StrSplit(ReadProcFile(pid, "statm"), ' ', absl::SkipEmpty());
  uint64_t resident_pages = 0;
  if (statm.size() < 2 || !absl::SimpleAtoi(statm[1], &resident_pages)) return 0;
  return resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Chromium names each child's role on its command line (--type=renderer, gpu-process, zygote,
// utility); a renderer runs the pages of one tab here (one browser context per render). Children
// forked from the zygote rewrite their command line as one string (arguments apart by spaces,
// not NULs), so the switch is looked for anywhere in it.
bool IsRenderer(pid_t pid) {
  return absl::StrContains(ReadProcFile(pid, "cmdline"), "--type=renderer");
}

}  // namespace

absl::StatusOr<std::unique_ptr<BrowserProcess>> BrowserProcess::Start(
    const BrowserProcessOptions& options, MessageHandler on_message, ExitHandler on_exit) {
  const std::string executable = FindExecutable(options.executable);
  if (executable.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "browser executable '", options.executable,
        "' not found (Debian: apt-get install chromium-headless-shell; scripts/install-deps.sh "
        "installs it)"));
  }
  std::string profile = (std::filesystem::temp_directory_path() / "crawler-browser-XXXXXX").string();
  if (mkdtemp(profile.data()) == nullptr) return absl::InternalError(Errno("mkdtemp"));

  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    std::filesystem::remove_all(profile);
    return absl::InternalError(Errno("socketpair"));
  }
  // The child's end must not be fd 3 or 4 itself before the dup2s (dup2 onto itself would keep
  // FD_CLOEXEC), so it is moved above them first.
  const int child_end = fcntl(fds[1], F_DUPFD_CLOEXEC, 10);
  close(fds[1]);
  if (child_end < 0) {
    close(fds[0]);
    std::filesystem::remove_all(profile);
    return absl::InternalError(Errno("fcntl"));
  }

  std::vector<std::string> argv_strings = {executable, "--remote-debugging-pipe",
                                           "--user-data-dir=" + profile};
  argv_strings.insert(argv_strings.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, child_end, 3);
  posix_spawn_file_actions_adddup2(&actions, child_end, 4);
  // The browser's own log (D-Bus and GPU complaints of a headless machine) would drown the
  // crawler's; what matters of it reaches the crawler as protocol events and exit reasons.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  // Nothing else of the crawler's (sockets, WARC files, RocksDB) reaches the browser.
  posix_spawn_file_actions_addclosefrom_np(&actions, 5);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, executable.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(child_end);
  if (rc != 0) {
    close(fds[0]);
    std::filesystem::remove_all(profile);
    return absl::InternalError(absl::StrCat("starting ", executable, ": ", std::strerror(rc)));
  }
  std::unique_ptr<BrowserProcess> process(
      new BrowserProcess(pid, fds[0], std::move(profile), options.max_message_bytes));
  process->reader_ = std::thread(&BrowserProcess::ReadLoop, process.get(), std::move(on_message),
                                 std::move(on_exit));
  return process;
}

BrowserProcess::BrowserProcess(pid_t pid, int fd, std::string profile_dir, size_t max_message_bytes)
    : pid_(pid), fd_(fd), profile_dir_(std::move(profile_dir)),
      max_message_bytes_(max_message_bytes) {}

BrowserProcess::~BrowserProcess() {
  // The whole group: the browser's renderer and helper processes go with it.
  kill(-pid_, SIGKILL);
  shutdown(fd_, SHUT_RDWR);
  if (reader_.joinable()) reader_.join();
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  close(fd_);
  std::error_code ignored;
  std::filesystem::remove_all(profile_dir_, ignored);
}

absl::Status BrowserProcess::Send(std::string_view message) {
  absl::MutexLock lock(&write_mu_);
  std::string framed(message);
  framed.push_back('\0');
  size_t sent = 0;
  while (sent < framed.size()) {
    const ssize_t n = send(fd_, framed.data() + sent, framed.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(Errno("writing to the browser"));
    }
    sent += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

void BrowserProcess::ReadLoop(MessageHandler on_message, ExitHandler on_exit) {
  std::string buffer;
  std::string why = "the browser closed its end";
  char chunk[64 * 1024];
  while (true) {
    const ssize_t n = read(fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) why = Errno("reading from the browser");
      break;
    }
    size_t scanned = buffer.size();
    buffer.append(chunk, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nul; (nul = buffer.find('\0', scanned)) != std::string::npos; scanned = start) {
      on_message(buffer.substr(start, nul - start));
      start = nul + 1;
    }
    buffer.erase(0, start);
    if (buffer.size() > max_message_bytes_) {
      why = absl::StrCat("the browser sent a message over ", max_message_bytes_, " bytes");
      kill(-pid_, SIGKILL);
      break;
    }
  }
  running_.store(false, std::memory_order_release);
  on_exit(std::move(why));
}

std::vector<TreeProcess> BrowserProcess::TreeProcesses() const {
  const std::map<pid_t, pid_t> parents = ParentsOfAll();
  std::vector<TreeProcess> tree;
  for (const auto& [pid, ppid] : parents) {
    // Descended from the browser: walk up (bounded by the number of processes).
    pid_t p = pid;
    for (size_t steps = 0; steps <= parents.size() && p > 1 && p != pid_; ++steps) {
      auto it = parents.find(p);
      p = it == parents.end() ? 0 : it->second;
    }
    if (p != pid_) continue;
    tree.push_back(
        TreeProcess{.pid = pid, .memory_bytes = MemoryBytesOf(pid), .renderer = IsRenderer(pid)});
  }
  return tree;
}

uint64_t BrowserProcess::TreeMemoryBytes() const {
  uint64_t total = 0;
  for (const TreeProcess& process : TreeProcesses()) total += process.memory_bytes;
  return total;
}

bool BrowserProcess::KillDescendant(pid_t pid) const {
  if (pid == pid_) return false;
  for (const TreeProcess& process : TreeProcesses()) {
    if (process.pid == pid) return kill(pid, SIGKILL) == 0;
  }
  return false;
}

}  // namespace crawler::browser
