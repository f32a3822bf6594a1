#include "bench/frontier-scale/scale_target.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/partition/layout.h"
#include "services/common/grpc/channel.h"
#include "services/frontier/grpc/frontier_server.h"
#include "services/frontier/grpc/grpc_frontier_client.h"
#include "services/frontier/local_frontier_client.h"

namespace crawler::bench {
namespace fs = std::filesystem;
namespace {

constexpr char kCollectionsDir[] = "collections";
constexpr char kStoreDir[] = "store";

frontier::FrontierOptions ServerOptions(const TargetConfig& config) {
  frontier::FrontierOptions base = frontier::FrontierServerConfig().frontier;
  base.max_urls_per_host = config.max_urls_per_host;
  base.seen_cache_entries = config.seen_cache_entries;
  return frontier::WithCollection(base, config.collection, 0, partition::PartitionLayout{});
}

// The value of `key` ("VmRSS:") in a /proc status file, in bytes (the file gives kB).
uint64_t StatusKilobytes(const std::string& status, std::string_view key) {
  const size_t at = status.find(key);
  if (at == std::string::npos) return 0;
  uint64_t kb = 0;
  std::istringstream(status.substr(at + key.size())) >> kb;
  return kb * 1024;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ProcPath(pid_t pid, const char* file) {
  return pid == 0 ? absl::StrCat("/proc/self/", file) : absl::StrCat("/proc/", pid, "/", file);
}

}  // namespace

Memory MemoryOf(pid_t pid) {
  const std::string status = ReadFile(ProcPath(pid, "status"));
  return Memory{.rss_bytes = StatusKilobytes(status, "VmRSS:"),
                .peak_rss_bytes = StatusKilobytes(status, "VmHWM:")};
}

uint64_t DirectoryBytes(const std::string& path) {
  std::error_code ec;
  uint64_t total = 0;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) total += it->file_size(size_ec);
  }
  return total;
}

std::string StorePath(const TargetConfig& config) {
  return (fs::path(config.data_dir) / kCollectionsDir / config.collection.name / kStoreDir)
      .string();
}

// ---- CoreTarget ------------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<CoreTarget>> CoreTarget::Open(const TargetConfig& config) {
  std::unique_ptr<CoreTarget> target(new CoreTarget);
  const absl::Time start = absl::Now();
  // The server's store options (FrontierHostOptions::store defaults), as FrontierHost opens it,
  // plus RocksDB's counters.
  kv::RocksDbKvStoreOptions store_options;
  store_options.path = StorePath(config);
  store_options.statistics = true;  // the bench reads RocksDB's counters (write amplification)
  absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store =
      kv::RocksDbKvStore::Open(store_options, frontier::Frontier::ColumnFamilies());
  if (!store.ok()) return store.status();
  target->store_ = *std::move(store);
  absl::StatusOr<std::unique_ptr<frontier::Frontier>> core =
      frontier::Frontier::Open(ServerOptions(config), *target->store_, target->clock_);
  if (!core.ok()) return core.status();
  target->core_ = *std::move(core);
  target->open_time_ = absl::Now() - start;
  target->client_ = std::make_unique<frontier::LocalFrontierClient>(*target->core_);
  return target;
}

CoreTarget::~CoreTarget() { Close(); }

void CoreTarget::Close() {
  client_.reset();
  core_.reset();
  store_.reset();
}

// ---- ServerTarget ----------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<ServerTarget>> ServerTarget::Start(const TargetConfig& config,
                                                                  const std::string& log_path,
                                                                  absl::Duration timeout) {
  std::unique_ptr<ServerTarget> target(new ServerTarget);
  if (absl::Status s = target->Spawn(config, log_path); !s.ok()) return s;
  if (absl::Status s = target->Connect(config, log_path, timeout); !s.ok()) return s;
  return target;
}

ServerTarget::~ServerTarget() {
  if (pid_ > 0) Stop(SIGKILL, absl::Seconds(30)).IgnoreError();
}

absl::Status ServerTarget::Spawn(const TargetConfig& config, const std::string& log_path) {
  std::vector<std::string> args = {config.crawlerd,
                                   "frontier",
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--data-dir",
                                   config.data_dir,
                                   "--max-urls-per-host",
                                   absl::StrCat(config.max_urls_per_host),
                                   "--seen-cache-entries",
                                   absl::StrCat(config.seen_cache_entries),
                                   "--drain-timeout",
                                   "10s"};
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return absl::UnavailableError(absl::StrCat("cannot open ", log_path));
  forked_ = absl::Now();
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(log);
    return absl::UnavailableError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the bench
    ::dup2(log, STDERR_FILENO);
    ::dup2(log, STDOUT_FILENO);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "exec %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(log);
  return absl::OkStatus();
}

absl::Status ServerTarget::Connect(const TargetConfig& config, const std::string& log_path,
                                   absl::Duration timeout) {
  // This start's "serving on" line: the log is appended to by every start of the server.
  const std::string marker = "frontier: serving on 127.0.0.1:";
  const size_t previous = ReadFile(log_path).size();
  int port = 0;
  while (port == 0) {
    const std::string log = ReadFile(log_path);
    const size_t at = log.rfind(marker);
    if (at != std::string::npos && at + marker.size() >= previous) {
      const std::string rest = log.substr(at + marker.size(), 8);
      absl::SimpleAtoi(rest.substr(0, rest.find_first_not_of("0123456789")), &port);
    }
    int status = 0;
    if (port == 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      return absl::UnavailableError(absl::StrCat("the frontier server exited; see ", log_path));
    }
    if (port == 0 && absl::Now() - forked_ > timeout) {
      return absl::DeadlineExceededError(absl::StrCat("the frontier server did not serve within ",
                                                      absl::FormatDuration(timeout)));
    }
    if (port == 0) absl::SleepFor(absl::Milliseconds(2));
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      grpc_common::MakeChannel(absl::StrCat("127.0.0.1:", port));
  if (!channel.ok()) return channel.status();
  // OpenCollection opens the store and reads its host table (10^6 hosts: seconds, more on a
  // loaded machine): it gets the start-up's timeout, not the default deadline of a call.
  frontier::FrontierControlClient control(
      *channel, frontier::GrpcFrontierClientOptions{.deadline = timeout});
  absl::StatusOr<bool> opened = control.OpenCollection(config.collection, 1);
  if (!opened.ok()) return opened.status();
  client_ = std::make_unique<frontier::GrpcFrontierClient>(
      *channel, config.collection.name,
      frontier::GrpcFrontierClientOptions{.deadline = absl::Seconds(120)});
  return absl::OkStatus();
}

absl::Status ServerTarget::WaitForFirstLease(absl::Duration timeout) {
  while (absl::Now() - forked_ < timeout) {
    absl::StatusOr<std::vector<frontier::LeasedTask>> tasks = client_->Lease(1, 1);
    if (tasks.ok() && !tasks->empty()) {
      first_lease_time_ = absl::Now() - forked_;
      return client_->ReleaseLeases({tasks->front().lease_id}).status();
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
  return absl::DeadlineExceededError("no lease after the restart");
}

absl::Status ServerTarget::Stop(int signal, absl::Duration timeout) {
  if (pid_ <= 0) return absl::OkStatus();
  ::kill(pid_, signal);
  const absl::Time until = absl::Now() + timeout;
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) != pid_) {
    if (absl::Now() > until) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      pid_ = 0;
      return absl::DeadlineExceededError("the frontier server did not stop in time");
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  pid_ = 0;
  return absl::OkStatus();
}

}  // namespace crawler::bench
