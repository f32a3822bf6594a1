// RecordingLogSink: a LogSink that keeps every line, for tests that check what a component
// logged. Test-only. Thread-safe.
#ifndef CRAWLER_LIB_LOG_RECORDING_LOG_SINK_H_
#define CRAWLER_LIB_LOG_RECORDING_LOG_SINK_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "lib/log/logger.h"

namespace crawler {

class RecordingLogSink final : public LogSink {
 public:
  void Write(LogLevel, std::string_view line) override {
    absl::MutexLock lock(&mu_);
    lines_.emplace_back(line);
  }
  std::vector<std::string> lines() const {
    absl::MutexLock lock(&mu_);
    return lines_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler

#endif  // CRAWLER_LIB_LOG_RECORDING_LOG_SINK_H_
