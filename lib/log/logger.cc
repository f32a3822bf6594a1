#include "lib/log/logger.h"

#include <unistd.h>

#include <cerrno>

namespace crawler {

void StderrLogSink::Write(LogLevel level, std::string_view line) {
  if (level < min_level_) return;
  std::string out(line);
  out.push_back('\n');
  // One write per line (a short write of a pipe is retried) so that concurrent lines stay whole.
  const char* data = out.data();
  size_t left = out.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere to report a failing stderr
    data += n;
    left -= static_cast<size_t>(n);
  }
}

Logger Logger::ForCollection(std::string_view collection) const {
  Logger out = *this;
  out.prefix_ = prefix_;
  out.prefix_.append(" [").append(collection).append("]");
  return out;
}

void Logger::Emit(LogLevel level, std::string_view message) const {
  std::string line = prefix_;
  line.append(": ").append(message);
  sink_->Write(level, line);
}

}  // namespace crawler
