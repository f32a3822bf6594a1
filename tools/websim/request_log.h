// RequestLog: websim's per-request log file, the contract tests use to check a crawler from the
// server's side (politeness gaps, robots compliance, connection reuse).
//
// One line per request, fields separated by tabs (docs/websim.md, "Request log"):
//   <monotonic_ns> <host> <target> <status> <body_bytes> <connection_id> <method> <partition>
//   <realtime_ns>
// monotonic_ns is CLOCK_MONOTONIC when the request was fully parsed, comparable with the
// steady_clock of any process on the machine; realtime_ns is CLOCK_REALTIME at that instant, the
// clock of timers kept elsewhere (Redis' TIME), which may run at another rate on a machine whose
// wall clock is being corrected. Host and target are "-" when the request was too
// malformed to have them. Lines are in order per server thread, not across threads.
//
// Thread-safety: Write() may be called from any thread; each call lands as a whole. The server
// threads batch lines in their own buffers and call Write() every 64 KiB or few milliseconds.
#ifndef CRAWLER_TOOLS_WEBSIM_REQUEST_LOG_H_
#define CRAWLER_TOOLS_WEBSIM_REQUEST_LOG_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace crawler::websim {

struct RequestLogRecord {
  int64_t received_monotonic_ns = 0;
  // CLOCK_REALTIME at the same instant.
  int64_t received_realtime_ns = 0;
  absl::string_view host;
  absl::string_view target;
  int status = 0;
  // Body bytes sent (0 for HEAD).
  uint64_t body_bytes = 0;
  uint64_t connection_id = 0;
  absl::string_view method;
  // The request's X-Crawler-Partition header; "-" in the log when absent.
  absl::string_view partition;
};

class RequestLog {
 public:
  // Creates or truncates `path`. Errors from open(2) map to the matching status code.
  static absl::StatusOr<std::unique_ptr<RequestLog>> Open(const std::string& path);
  ~RequestLog();
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  // Appends the line for `record` (with its '\n') to `buffer`. Tabs and line breaks cannot
  // occur in the fields: the server only logs hosts and targets its parser accepted.
  static void AppendLine(const RequestLogRecord& record, std::string* buffer);

  // Writes whole lines to the file. Write errors are counted, not fatal: a full disk must not
  // take the server down in the middle of a test.
  void Write(absl::string_view lines);
  uint64_t write_errors() const;

 private:
  explicit RequestLog(int fd) : fd_(fd) {}

  const int fd_;
  mutable absl::Mutex mu_;
  uint64_t write_errors_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_REQUEST_LOG_H_
