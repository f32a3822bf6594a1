// CdpConnection: the DevTools protocol over one BrowserProcess. Commands carry an id and come
// back with it (Call waits for the answer, Post drops it); events carry the session they belong
// to (flat sessions, Target.attachToTarget's "flatten") and are handed to the handler routed for
// that session, or for the browser context a Target.* event names, or else dropped.
//
// Messages are parsed into google::protobuf::Struct (protobuf's JSON reader is already a
// dependency of the project); commands are written as JSON text by the caller.
//
// Thread-safety: every method may be called from any thread except from inside a route handler,
// which runs on the reader thread and must only hand the event on (Post is allowed there).
#ifndef CRAWLER_LIB_BROWSER_INTERNAL_CDP_CONNECTION_H_
#define CRAWLER_LIB_BROWSER_INTERNAL_CDP_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "google/protobuf/struct.pb.h"
#include "lib/browser/browser_process.h"

namespace crawler::browser::internal {

struct CdpEvent {
  std::string method;      // "Fetch.requestPaused"
  std::string session_id;  // the session it came on; empty for the browser's own
  google::protobuf::Struct params;
};

// Field access on parsed messages: the value, or an empty one when absent or of another type.
std::string StringField(const google::protobuf::Struct& s, std::string_view name);
double NumberField(const google::protobuf::Struct& s, std::string_view name);
bool BoolField(const google::protobuf::Struct& s, std::string_view name);
const google::protobuf::Struct& StructField(const google::protobuf::Struct& s,
                                            std::string_view name);

class CdpConnection {
 public:
  using EventHandler = absl::AnyInvocable<void(CdpEvent event)>;

  // Starts the browser and connects. The connection dies with the process.
  static absl::StatusOr<std::unique_ptr<CdpConnection>> Start(const BrowserProcessOptions& options);
  ~CdpConnection();

  // Sends `method` with `params_json` (a JSON object's text) to `session` ("" for the browser)
  // and waits up to `timeout` for the answer: its result, or the protocol's error as
  // kFailedPrecondition, kDeadlineExceeded when no answer came, kUnavailable once the browser
  // is gone.
  absl::StatusOr<google::protobuf::Struct> Call(std::string_view method,
                                                std::string_view params_json,
                                                std::string_view session, absl::Duration timeout);
  // Sends without waiting; the answer is dropped.
  void Post(std::string_view method, std::string_view params_json, std::string_view session);

  // Events of `session_id`, or Target.* events of browser context `context_id`, go to `handler`
  // until the route is removed.
  void RouteSession(const std::string& session_id, std::shared_ptr<EventHandler> handler);
  void RouteContext(const std::string& context_id, std::shared_ptr<EventHandler> handler);
  void Unroute(const std::string& session_or_context_id);

  bool alive() const;
  std::string exit_reason() const;
  uint64_t TreeMemoryBytes() const { return process_->TreeMemoryBytes(); }
  std::vector<TreeProcess> TreeProcesses() const { return process_->TreeProcesses(); }
  bool KillDescendant(pid_t pid) const { return process_->KillDescendant(pid); }

 private:
  struct Pending {
    bool done = false;
    absl::StatusOr<google::protobuf::Struct> result;
  };

  CdpConnection() = default;
  void OnMessage(std::string message);
  void OnExit(std::string why);
  int64_t Write(std::string_view method, std::string_view params_json, std::string_view session,
                bool wait);

  std::unique_ptr<BrowserProcess> process_;
  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<int64_t, std::shared_ptr<Pending>> pending_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<EventHandler>> routes_ ABSL_GUARDED_BY(mu_);
  bool exited_ ABSL_GUARDED_BY(mu_) = false;
  std::string exit_reason_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::browser::internal

#endif  // CRAWLER_LIB_BROWSER_INTERNAL_CDP_CONNECTION_H_
