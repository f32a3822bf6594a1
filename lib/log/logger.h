// Logger: how the crawler's processes say what happens, one line per event (docs/architecture.md
// §11). A line reads
//
//   <role>[ [<collection>]]: <message>
//
// e.g. "scheduler [news]: created (4 seeds)", "fetcher [news]: crawling (partition 1)",
// "frontier: serving on 127.0.0.1:50051". The role names the process or the part ("crawl",
// "frontier", "fetcher"), the collection the crawl an event belongs to. Each event has a level
// (debug, info, warning, error): a sink shows those at its threshold and above (StderrLogSink:
// info). The level is not written into the line, so the start, drain and stop lines that
// scripts wait for and the messages tests look for read as they always have.
//
// Injected like the clock: a component takes a Logger (a small value: a sink and the line's
// prefix, cheap to copy) in its options and never writes to stderr itself. A default-constructed
// Logger discards everything (a component without one stays silent, as in unit tests);
// RecordingLogSink (recording_log_sink.h) collects lines for tests. Programming errors that abort
// (a broken invariant) print their own message and do not go through a Logger.
//
// Thread-safety: Logger is immutable; sinks are thread-safe, and StderrLogSink writes each line
// with one write(2), so lines of different threads never interleave.
#ifndef CRAWLER_LIB_LOG_LOGGER_H_
#define CRAWLER_LIB_LOG_LOGGER_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

namespace crawler {
namespace log_internal {

// absl::StrCat takes absl::string_view, which need not be std::string_view.
inline absl::string_view Piece(std::string_view s) { return absl::string_view(s.data(), s.size()); }
template <typename T>
const T& Piece(const T& value) {
  return value;
}

}  // namespace log_internal

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

class LogSink {
 public:
  virtual ~LogSink() = default;
  // One event: `line` is complete but for its newline.
  virtual void Write(LogLevel level, std::string_view line) = 0;
};

// A process's sink: standard error, events at `min_level` and above.
class StderrLogSink final : public LogSink {
 public:
  explicit StderrLogSink(LogLevel min_level = LogLevel::kInfo) : min_level_(min_level) {}
  void Write(LogLevel level, std::string_view line) override;

 private:
  const LogLevel min_level_;
};

class Logger {
 public:
  // Discards every event.
  Logger() = default;
  // Lines "<role>: ..." to `sink`, which must outlive every copy.
  Logger(LogSink& sink, std::string role) : sink_(&sink), prefix_(std::move(role)) {}

  // The same role, with `collection` in each line.
  Logger ForCollection(std::string_view collection) const;

  template <typename... Args>
  void Debug(const Args&... args) const {
    if (sink_ != nullptr) Emit(LogLevel::kDebug, absl::StrCat(log_internal::Piece(args)...));
  }
  template <typename... Args>
  void Info(const Args&... args) const {
    if (sink_ != nullptr) Emit(LogLevel::kInfo, absl::StrCat(log_internal::Piece(args)...));
  }
  template <typename... Args>
  void Warning(const Args&... args) const {
    if (sink_ != nullptr) Emit(LogLevel::kWarning, absl::StrCat(log_internal::Piece(args)...));
  }
  template <typename... Args>
  void Error(const Args&... args) const {
    if (sink_ != nullptr) Emit(LogLevel::kError, absl::StrCat(log_internal::Piece(args)...));
  }

 private:
  void Emit(LogLevel level, std::string_view message) const;

  LogSink* sink_ = nullptr;
  std::string prefix_;  // "<role>" or "<role> [<collection>]"
};

}  // namespace crawler

#endif  // CRAWLER_LIB_LOG_LOGGER_H_
