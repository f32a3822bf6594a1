#include "lib/browser/internal/cdp_connection.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "lib/json/json_string.h"

namespace crawler::browser::internal {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

const Value* Field(const Struct& s, std::string_view name) {
  auto it = s.fields().find(std::string(name));
  return it == s.fields().end() ? nullptr : &it->second;
}

}  // namespace

std::string StringField(const Struct& s, std::string_view name) {
  const Value* v = Field(s, name);
  return v != nullptr && v->has_string_value() ? v->string_value() : std::string();
}

double NumberField(const Struct& s, std::string_view name) {
  const Value* v = Field(s, name);
  return v != nullptr && v->has_number_value() ? v->number_value() : 0;
}

bool BoolField(const Struct& s, std::string_view name) {
  const Value* v = Field(s, name);
  return v != nullptr && v->has_bool_value() && v->bool_value();
}

const Struct& StructField(const Struct& s, std::string_view name) {
  const Value* v = Field(s, name);
  return v != nullptr && v->has_struct_value() ? v->struct_value() : Struct::default_instance();
}

absl::StatusOr<std::unique_ptr<CdpConnection>> CdpConnection::Start(
    const BrowserProcessOptions& options) {
  std::unique_ptr<CdpConnection> connection(new CdpConnection());
  CdpConnection* self = connection.get();
  absl::StatusOr<std::unique_ptr<BrowserProcess>> process = BrowserProcess::Start(
      options, [self](std::string message) { self->OnMessage(std::move(message)); },
      [self](std::string why) { self->OnExit(std::move(why)); });
  if (!process.ok()) return process.status();
  connection->process_ = *std::move(process);
  return connection;
}

CdpConnection::~CdpConnection() {
  // Stops the reader (it calls back into this object) before the members go.
  process_.reset();
}

bool CdpConnection::alive() const {
  absl::MutexLock lock(&mu_);
  return !exited_;
}

std::string CdpConnection::exit_reason() const {
  absl::MutexLock lock(&mu_);
  return exit_reason_;
}

int64_t CdpConnection::Write(std::string_view method, std::string_view params_json,
                             std::string_view session, bool wait) {
  int64_t id;
  {
    absl::MutexLock lock(&mu_);
    id = next_id_++;
    if (wait) pending_[id] = std::make_shared<Pending>();
  }
  std::string message = absl::StrCat("{\"id\":", id, ",\"method\":", json::JsonString(method),
                                     ",\"params\":");
  message += params_json.empty() ? std::string_view("{}") : params_json;
  if (!session.empty()) absl::StrAppend(&message, ",\"sessionId\":", json::JsonString(session));
  message.push_back('}');
  if (!process_->Send(message).ok() && wait) {
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(id);
    if (it != pending_.end() && !it->second->done) {
      it->second->done = true;
      it->second->result = absl::UnavailableError("the browser is gone");
    }
  }
  return id;
}

void CdpConnection::Post(std::string_view method, std::string_view params_json,
                         std::string_view session) {
  Write(method, params_json, session, /*wait=*/false);
}

absl::StatusOr<Struct> CdpConnection::Call(std::string_view method, std::string_view params_json,
                                           std::string_view session, absl::Duration timeout) {
  const int64_t id = Write(method, params_json, session, /*wait=*/true);
  absl::MutexLock lock(&mu_);
  std::shared_ptr<Pending> pending = pending_[id];
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](Pending* p) { return p->done; }, pending.get()),
                       timeout);
  pending_.erase(id);
  if (!pending->done) {
    if (exited_) return absl::UnavailableError(absl::StrCat("the browser is gone: ", exit_reason_));
    return absl::DeadlineExceededError(
        std::string(method) + ": no answer from the browser within " + absl::FormatDuration(timeout));
  }
  return std::move(pending->result);
}

void CdpConnection::RouteSession(const std::string& session_id,
                                 std::shared_ptr<EventHandler> handler) {
  absl::MutexLock lock(&mu_);
  routes_[session_id] = std::move(handler);
}

void CdpConnection::RouteContext(const std::string& context_id,
                                 std::shared_ptr<EventHandler> handler) {
  absl::MutexLock lock(&mu_);
  routes_[context_id] = std::move(handler);
}

void CdpConnection::Unroute(const std::string& session_or_context_id) {
  absl::MutexLock lock(&mu_);
  routes_.erase(session_or_context_id);
}

void CdpConnection::OnMessage(std::string message) {
  Struct parsed;
  if (!google::protobuf::util::JsonStringToMessage(message, &parsed).ok()) return;
  if (const double id = NumberField(parsed, "id"); id > 0) {
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(static_cast<int64_t>(id));
    if (it == pending_.end()) return;  // posted, or its caller gave up waiting
    Pending& pending = *it->second;
    pending.done = true;
    const Struct& error = StructField(parsed, "error");
    if (!error.fields().empty()) {
      pending.result = absl::FailedPreconditionError(StringField(error, "message"));
    } else {
      pending.result = StructField(parsed, "result");
    }
    return;
  }
  CdpEvent event{.method = StringField(parsed, "method"),
                 .session_id = StringField(parsed, "sessionId"),
                 .params = StructField(parsed, "params")};
  // A session's events go to its route; the browser's Target.* events name the context (new
  // targets: a render's page, or a popup it opened) or the session they are about.
  std::string key = event.session_id;
  if (key.empty()) {
    key = StringField(StructField(event.params, "targetInfo"), "browserContextId");
    if (key.empty()) key = StringField(event.params, "sessionId");
  }
  std::shared_ptr<EventHandler> handler;
  {
    absl::MutexLock lock(&mu_);
    auto it = routes_.find(key);
    if (it == routes_.end()) return;
    handler = it->second;
  }
  (*handler)(std::move(event));
}

void CdpConnection::OnExit(std::string why) {
  std::vector<std::shared_ptr<EventHandler>> handlers;
  {
    absl::MutexLock lock(&mu_);
    exited_ = true;
    exit_reason_ = why;
    for (auto& [id, pending] : pending_) {
      if (pending->done) continue;
      pending->done = true;
      pending->result = absl::UnavailableError(absl::StrCat("the browser is gone: ", why));
    }
    for (auto& [key, handler] : routes_) handlers.push_back(handler);
  }
  // Every render waiting on the browser learns that it is gone.
  for (auto& handler : handlers) (*handler)(CdpEvent{.method = "Browser.gone"});
}

}  // namespace crawler::browser::internal
