#include "tools/websim/request_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::websim {

absl::StatusOr<std::unique_ptr<RequestLog>> RequestLog::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open request log ", path));
  }
  return std::unique_ptr<RequestLog>(new RequestLog(fd));
}

RequestLog::~RequestLog() { ::close(fd_); }

void RequestLog::AppendLine(const RequestLogRecord& record, std::string* buffer) {
  absl::StrAppend(buffer, record.received_monotonic_ns, "\t",
                  record.host.empty() ? "-" : record.host, "\t",
                  record.target.empty() ? "-" : record.target, "\t", record.status, "\t",
                  record.body_bytes, "\t", record.connection_id, "\t",
                  record.method.empty() ? "-" : record.method, "\t",
                  record.partition.empty() ? "-" : record.partition, "\t",
                  record.received_realtime_ns, "\n");
}

void RequestLog::Write(absl::string_view lines) {
  absl::MutexLock lock(&mu_);
  while (!lines.empty()) {
    const ssize_t n = ::write(fd_, lines.data(), lines.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      ++write_errors_;
      return;
    }
    lines.remove_prefix(static_cast<size_t>(n));
  }
}

uint64_t RequestLog::write_errors() const {
  absl::MutexLock lock(&mu_);
  return write_errors_;
}

}  // namespace crawler::websim
