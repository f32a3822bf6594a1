#include "lib/browser/browser.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <optional>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/browser/internal/cdp_connection.h"
#include "lib/json/json_string.h"

namespace crawler::browser {

using internal::BoolField;
using internal::CdpConnection;
using internal::CdpEvent;
using internal::NumberField;
using internal::StringField;
using internal::StructField;

std::string_view RenderOutcomeName(RenderOutcome outcome) {
  switch (outcome) {
    case RenderOutcome::kRendered: return "rendered";
    case RenderOutcome::kTimeLimit: return "time_limit";
    case RenderOutcome::kScriptHung: return "script_hung";
    case RenderOutcome::kCrashed: return "crashed";
    case RenderOutcome::kMemoryLimit: return "memory_limit";
    case RenderOutcome::kBrowserFailed: return "browser_failed";
  }
  return "unknown";
}

// One running browser, with its memory watch (Browser::Watch). Destroyed when the last render
// on it returns, never under Browser::mu_ (the watch takes that lock).
struct Browser::Instance {
  ~Instance() {
    {
      absl::MutexLock lock(&mu);
      stopping = true;
    }
    if (watch.joinable()) watch.join();
  }

  std::unique_ptr<CdpConnection> cdp;
  uint32_t renders = 0;  // guarded by Browser::mu_
  std::thread watch;
  absl::Mutex mu;
  int rendering ABSL_GUARDED_BY(mu) = 0;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  std::string last_kill ABSL_GUARDED_BY(mu);  // what the watch killed last, and why
  std::atomic<uint64_t> memory_kills{0};
  std::atomic<bool> over_memory{false};  // over the limit with no renderer to blame
  std::vector<pid_t> killed;  // renderers the watch killed (its thread only): freed soon
};

namespace {

// The browser's command line besides the pipe and the profile. Every switch that would make the
// browser talk to anyone on its own (updates, safe browsing, metrics, DNS prefetch) is off; the
// proxy names a host that never resolves, and no name resolves at all, so the only way out is
// the interception.
std::vector<std::string> BrowserArgs(const BrowserOptions& options) {
  std::vector<std::string> args;
  if (!absl::StrContains(options.executable, "headless-shell")) args.push_back("--headless");
  for (const char* arg : {
           "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--disable-extensions",
           "--disable-default-apps", "--disable-breakpad", "--disable-domain-reliability",
           "--mute-audio", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars",
           "--proxy-server=http://proxy.invalid:1", "--proxy-bypass-list=<-loopback>",
           "--host-resolver-rules=MAP * ~NOTFOUND",
           // window.open creates nothing (Page.windowOpen still reports the URL): a storm of
           // them costs no windows, and no opener waits on a new window being attached.
           "--block-new-web-contents",
           // One renderer process per tab holds its frames: their requests are then paused by
           // the tab's own interception (out-of-process frames are attached and intercepted too).
           "--disable-site-isolation-trials",
           "--disable-features=IsolateOrigins,site-per-process,HttpsUpgrades,DnsOverHttps,"
           "OptimizationHints,MediaRouter,Translate",
       }) {
    args.emplace_back(arg);
  }
  args.push_back(absl::StrCat("--js-flags=--max-old-space-size=", options.js_heap_mib));
  // Chromium's sandbox refuses to run as root.
  if (options.no_sandbox || geteuid() == 0) args.emplace_back("--no-sandbox");
  return args;
}

std::string Ms(absl::Duration d) { return absl::StrCat(absl::ToInt64Milliseconds(d)); }

// A loader's answer on its way back to the rendering thread.
struct LoadDone {
  std::string request_id;
  std::string session_id;
  ResourceResponse response;
};

// A render's inbox: its CDP events (from the reader thread) and its loaders' answers (from any
// thread), consumed by the rendering thread. Closed when the render ends: later items dropped.
class Inbox {
 public:
  using Item = std::variant<CdpEvent, LoadDone>;
  void Push(Item item) {
    absl::MutexLock lock(&mu_);
    if (!closed_) items_.push_back(std::move(item));
  }
  std::optional<Item> Pop(absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithDeadline(absl::Condition(
                              +[](std::deque<Item>* items) { return !items->empty(); }, &items_),
                          deadline);
    if (items_.empty()) return std::nullopt;
    Item item = std::move(items_.front());
    items_.pop_front();
    return item;
  }
  void Close() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    items_.clear();
  }

 private:
  absl::Mutex mu_;
  std::deque<Item> items_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

std::string FetchPatterns() {
  return R"({"patterns":[{"urlPattern":"*","requestStage":"Request"}]})";
}

// The headers of a response the browser gets decoded: the coding and framing that described the
// bytes on the wire no longer do.
bool KeepHeader(const std::string& name) {
  return !absl::EqualsIgnoreCase(name, "content-encoding") &&
         !absl::EqualsIgnoreCase(name, "transfer-encoding") &&
         !absl::EqualsIgnoreCase(name, "content-length");
}

// One render, on the calling thread, from opening the tab to disposing of its context.
class PageRender {
 public:
  PageRender(CdpConnection& cdp, const BrowserOptions& options, const RenderRequest& request,
             ResourceLoader& loader, const RenderLimits& limits, RenderResult& result)
      : cdp_(cdp), options_(options), request_(request), loader_(loader), limits_(limits),
        result_(result), inbox_(std::make_shared<Inbox>()),
        route_(std::make_shared<CdpConnection::EventHandler>(
            [inbox = inbox_](CdpEvent event) { inbox->Push(std::move(event)); })) {}

  // Returns true when the browser itself should be replaced (hung or gone).
  bool Run() {
    const absl::Time start = absl::Now();
    if (Open()) {
      cdp_.Post("Page.navigate", absl::StrCat("{\"url\":", json::JsonString(request_.url), "}"),
                session_);
      Settle(start + limits_.time);
      if (!gone_ && !crashed_) ReadDom();
    }
    if (crashed_) {
      result_.outcome = RenderOutcome::kCrashed;
      result_.error = "the page's renderer crashed";
    }
    if (gone_) {
      result_.outcome = RenderOutcome::kBrowserFailed;
      result_.error = absl::StrCat("the browser is gone: ", cdp_.exit_reason());
    }
    Close();
    result_.elapsed = absl::Now() - start;
    return gone_ || hung_browser_;
  }

 private:
  absl::StatusOr<google::protobuf::Struct> Call(std::string_view method, std::string_view params,
                                                std::string_view session) {
    return cdp_.Call(method, params, session, options_.command_timeout);
  }

  bool Fail(const absl::Status& status, RenderOutcome outcome) {
    result_.outcome = outcome;
    result_.error = std::string(status.message());
    if (absl::IsDeadlineExceeded(status)) hung_browser_ = true;
    if (absl::IsUnavailable(status)) gone_ = true;
    return false;
  }

  bool Open() {
    absl::StatusOr<google::protobuf::Struct> context =
        Call("Target.createBrowserContext", R"({"disposeOnDetach":true})", "");
    if (!context.ok()) return Fail(context.status(), RenderOutcome::kBrowserFailed);
    context_ = StringField(*context, "browserContextId");
    cdp_.RouteContext(context_, route_);
    absl::StatusOr<google::protobuf::Struct> target = Call(
        "Target.createTarget",
        absl::StrCat(R"({"url":"about:blank","browserContextId":)", json::JsonString(context_), "}"),
        "");
    if (!target.ok()) return Fail(target.status(), RenderOutcome::kBrowserFailed);
    target_ = StringField(*target, "targetId");
    // The browser attaches every new target, paused (Browser::Acquire's Target.setAutoAttach):
    // nothing of the tab runs before its interception is on.
    const absl::Time deadline = absl::Now() + options_.command_timeout;
    while (session_.empty()) {
      std::optional<Inbox::Item> item = inbox_->Pop(deadline);
      if (!item) {
        return Fail(absl::DeadlineExceededError("the new tab was not attached"),
                    RenderOutcome::kBrowserFailed);
      }
      if (auto* event = std::get_if<CdpEvent>(&*item)) {
        const google::protobuf::Struct& info = StructField(event->params, "targetInfo");
        if (event->method == "Target.attachedToTarget" &&
            StringField(info, "targetId") == target_) {
          session_ = StringField(event->params, "sessionId");
        } else if (event->method == "Browser.gone") {
          return Fail(absl::UnavailableError(cdp_.exit_reason()), RenderOutcome::kBrowserFailed);
        }
      }
    }
    cdp_.RouteSession(session_, route_);
    for (const auto& [method, params] : std::vector<std::pair<std::string, std::string>>{
             {"Fetch.enable", FetchPatterns()},
             {"Page.enable", "{}"},
             {"Inspector.enable", "{}"},
             {"Target.setAutoAttach",
              R"({"autoAttach":true,"waitForDebuggerOnStart":true,"flatten":true})"},
             {"Runtime.runIfWaitingForDebugger", "{}"}}) {
      absl::StatusOr<google::protobuf::Struct> done = Call(method, params, session_);
      if (!done.ok()) return Fail(done.status(), RenderOutcome::kBrowserFailed);
    }
    return true;
  }

  // Serves the page until it has loaded and been quiet, or until `deadline`.
  void Settle(absl::Time deadline) {
    absl::Time last_activity = absl::Now();
    while (!gone_ && !crashed_) {
      const absl::Time now = absl::Now();
      if (now >= deadline) {
        result_.outcome = RenderOutcome::kTimeLimit;
        return;
      }
      const bool idle = loaded_ && pending_ == 0;
      if (idle && now - last_activity >= limits_.quiet) {
        result_.outcome = RenderOutcome::kRendered;
        return;
      }
      std::optional<Inbox::Item> item =
          inbox_->Pop(idle ? std::min(deadline, last_activity + limits_.quiet) : deadline);
      if (!item) continue;
      last_activity = absl::Now();
      if (auto* event = std::get_if<CdpEvent>(&*item)) {
        Handle(*event);
      } else {
        Serve(std::get<LoadDone>(std::move(*item)));
      }
    }
  }

  void Handle(const CdpEvent& event) {
    const std::string& m = event.method;
    if (m == "Fetch.requestPaused") {
      OnPaused(event);
    } else if (m == "Page.loadEventFired" && event.session_id == session_) {
      loaded_ = true;
    } else if (m == "Page.windowOpen") {
      ++result_.popups;
      result_.navigations.push_back(StringField(event.params, "url"));
    } else if (m == "Page.javascriptDialogOpening") {
      ++result_.dialogs;
      const bool leave = StringField(event.params, "type") == "beforeunload";
      cdp_.Post("Page.handleJavaScriptDialog", leave ? R"({"accept":true})" : R"({"accept":false})",
                event.session_id);
    } else if (m == "Inspector.targetCrashed" && event.session_id == session_) {
      crashed_ = true;
    } else if (m == "Target.attachedToTarget") {
      OnAttached(event);
    } else if (m == "Browser.gone") {
      gone_ = true;
    }
  }

  void OnAttached(const CdpEvent& event) {
    const google::protobuf::Struct& info = StructField(event.params, "targetInfo");
    const std::string session = StringField(event.params, "sessionId");
    if (StringField(info, "targetId") == target_) return;
    if (StringField(info, "type") == "page") {
      // A window that got made despite --block-new-web-contents: closed before it loads.
      cdp_.Post("Target.closeTarget",
                absl::StrCat("{\"targetId\":", json::JsonString(StringField(info, "targetId")), "}"),
                "");
      return;
    }
    // A frame in a process of its own, or a worker: intercepted like the page, then let run.
    cdp_.RouteSession(session, route_);
    child_sessions_.push_back(session);
    cdp_.Post("Fetch.enable", FetchPatterns(), session);
    cdp_.Post("Target.setAutoAttach",
              R"({"autoAttach":true,"waitForDebuggerOnStart":true,"flatten":true})", session);
    cdp_.Post("Runtime.runIfWaitingForDebugger", "{}", session);
  }

  void OnPaused(const CdpEvent& event) {
    const google::protobuf::Struct& params = event.params;
    const google::protobuf::Struct& http = StructField(params, "request");
    const std::string request_id = StringField(params, "requestId");
    const std::string type = StringField(params, "resourceType");
    const std::string url = StringField(http, "url");
    if (type == "Document" && event.session_id == session_ && StringField(params, "frameId") == target_) {
      if (!document_served_) {
        // The page itself: the crawler fetched it already.
        document_served_ = true;
        if (!request_.document.error.empty()) {
          Refuse(event.session_id, request_id, "Failed");
        } else {
          result_.bytes_served += request_.document.body.size();
          Fulfill(event.session_id, request_id, request_.document);
        }
      } else {
        // The page navigating away: kept as a link, answered so that the document stays.
        result_.navigations.push_back(url);
        Fulfill(event.session_id, request_id, ResourceResponse{.status = 204});
      }
      return;
    }
    RenderedRequest record{
        .url = url, .method = StringField(http, "method"), .resource_type = type};
    if (!limits_.resource_types.contains(type)) {
      record.refused = "resource type not rendered";
    } else if (result_.requests.size() - refused_ >= limits_.max_requests) {
      record.refused = "request limit";
      ++result_.requests_over_limit;
    } else if (result_.byte_limit_hit) {
      record.refused = "byte limit";
    }
    result_.requests.push_back(record);
    if (!record.refused.empty()) {
      ++refused_;
      Refuse(event.session_id, request_id, "BlockedByClient");
      return;
    }
    ResourceRequest resource{.url = url,
                             .method = record.method,
                             .post_data = StringField(http, "postData"),
                             .resource_type = type,
                             .page_url = request_.url};
    for (const auto& [name, value] : StructField(http, "headers").fields()) {
      if (value.has_string_value()) resource.headers.emplace_back(name, value.string_value());
    }
    ++pending_;
    index_of_[request_id] = result_.requests.size() - 1;
    loader_.Load(std::move(resource),
                 [inbox = inbox_, request_id, session = event.session_id](ResourceResponse r) {
                   inbox->Push(LoadDone{.request_id = request_id,
                                        .session_id = session,
                                        .response = std::move(r)});
                 });
  }

  void Serve(LoadDone done) {
    --pending_;
    RenderedRequest& record = result_.requests[index_of_[done.request_id]];
    if (!done.response.error.empty() || done.response.status <= 0) {
      record.refused = done.response.error.empty() ? "no response" : done.response.error;
      Refuse(done.session_id, done.request_id, "AccessDenied");
      return;
    }
    if (result_.bytes_served + done.response.body.size() > limits_.max_bytes) {
      record.refused = "byte limit";
      result_.byte_limit_hit = true;
      Refuse(done.session_id, done.request_id, "BlockedByClient");
      return;
    }
    result_.bytes_served += done.response.body.size();
    Fulfill(done.session_id, done.request_id, done.response);
  }

  void Fulfill(const std::string& session, const std::string& request_id,
               const ResourceResponse& response) {
    std::string params = absl::StrCat("{\"requestId\":", json::JsonString(request_id),
                                      ",\"responseCode\":", response.status,
                                      ",\"responseHeaders\":[");
    bool first = true;
    for (const auto& [name, value] : response.headers) {
      if (!KeepHeader(name)) continue;
      absl::StrAppend(&params, first ? "" : ",", "{\"name\":", json::JsonString(name),
                      ",\"value\":", json::JsonString(value), "}");
      first = false;
    }
    absl::StrAppend(&params, "],\"body\":\"", absl::Base64Escape(response.body), "\"}");
    cdp_.Post("Fetch.fulfillRequest", params, session);
  }

  void Refuse(const std::string& session, const std::string& request_id, std::string_view reason) {
    cdp_.Post("Fetch.failRequest",
              absl::StrCat("{\"requestId\":", json::JsonString(request_id),
                           ",\"errorReason\":", json::JsonString(reason), "}"),
              session);
  }

  void ReadDom() {
    // Read by value in one evaluation; a page whose script holds its thread never answers.
    const uint64_t cap = limits_.max_dom_bytes;
    const std::string expression = absl::StrCat(
        "(() => { const e = document.documentElement; const h = e ? e.outerHTML : '';"
        " return {dom: h.length > ", cap, " ? h.slice(0, ", cap, ") : h, cut: h.length > ", cap,
        ", href: location.href, base: document.baseURI}; })()");
    absl::StatusOr<google::protobuf::Struct> evaluated = Call(
        "Runtime.evaluate",
        absl::StrCat("{\"expression\":", json::JsonString(expression),
                     ",\"returnByValue\":true,\"timeout\":", Ms(options_.command_timeout), "}"),
        session_);
    if (!evaluated.ok()) {
      result_.outcome =
          absl::IsUnavailable(evaluated.status()) ? RenderOutcome::kBrowserFailed
                                                  : RenderOutcome::kScriptHung;
      result_.error = absl::StrCat("reading the DOM: ", evaluated.status().message());
      if (absl::IsUnavailable(evaluated.status())) gone_ = true;
      return;
    }
    const google::protobuf::Struct& value =
        StructField(StructField(*evaluated, "result"), "value");
    const google::protobuf::Struct& thrown = StructField(*evaluated, "exceptionDetails");
    if (!thrown.fields().empty()) {
      result_.outcome = RenderOutcome::kScriptHung;
      result_.error = absl::StrCat("reading the DOM: ", StringField(thrown, "text"));
      return;
    }
    result_.dom = StringField(value, "dom");
    result_.dom_truncated = BoolField(value, "cut");
    if (result_.dom.size() > cap) {  // the cap above counts UTF-16 units, this one bytes
      result_.dom.resize(cap);
      result_.dom_truncated = true;
    }
    result_.final_url = StringField(value, "href");
    result_.base_url = StringField(value, "base");
  }

  void Close() {
    inbox_->Close();
    for (const std::string& session : child_sessions_) cdp_.Unroute(session);
    if (!session_.empty()) cdp_.Unroute(session_);
    if (!context_.empty()) {
      cdp_.Unroute(context_);
      if (!gone_) {
        // Closes the tab, its frames and workers, and forgets its cookies and cache. A browser
        // that cannot do that in time is replaced.
        absl::StatusOr<google::protobuf::Struct> disposed = Call(
            "Target.disposeBrowserContext",
            absl::StrCat("{\"browserContextId\":", json::JsonString(context_), "}"), "");
        if (!disposed.ok()) hung_browser_ = true;
      }
    }
  }

  CdpConnection& cdp_;
  const BrowserOptions& options_;
  const RenderRequest& request_;
  ResourceLoader& loader_;
  const RenderLimits& limits_;
  RenderResult& result_;
  std::shared_ptr<Inbox> inbox_;
  std::shared_ptr<CdpConnection::EventHandler> route_;
  std::string context_;
  std::string target_;
  std::string session_;
  std::vector<std::string> child_sessions_;
  absl::flat_hash_map<std::string, size_t> index_of_;  // request id -> result_.requests
  size_t refused_ = 0;
  int pending_ = 0;
  bool loaded_ = false;
  bool document_served_ = false;
  bool crashed_ = false;
  bool gone_ = false;
  bool hung_browser_ = false;
};

}  // namespace

Browser::Browser(BrowserOptions options) : options_(std::move(options)) {}
Browser::~Browser() = default;

absl::Duration NextMemoryCheck(const BrowserOptions& options, uint64_t total, uint64_t last_total,
                               absl::Duration since_last) {
  // A page can fill memory at gigabytes a second: the overshoot is one short check's growth
  // (kMinMemoryCheck), not one interval's.
  constexpr absl::Duration kMinMemoryCheck = absl::Milliseconds(10);
  const absl::Duration interval = options.memory_check_interval;
  if (options.max_memory_bytes == 0 || total <= last_total || since_last <= absl::ZeroDuration() ||
      since_last == absl::InfiniteDuration()) {
    return interval;
  }
  if (total >= options.max_memory_bytes) return std::min(kMinMemoryCheck, interval);
  const double bytes_per_second =
      static_cast<double>(total - last_total) / absl::ToDoubleSeconds(since_last);
  const absl::Duration to_limit =
      absl::Seconds(static_cast<double>(options.max_memory_bytes - total) / bytes_per_second);
  return std::clamp(to_limit / 2, std::min(kMinMemoryCheck, interval), interval);
}

absl::StatusOr<std::unique_ptr<Browser>> Browser::Launch(BrowserOptions options) {
  if (options.max_tabs < 1) return absl::InvalidArgumentError("max_tabs must be at least 1");
  std::unique_ptr<Browser> browser(new Browser(std::move(options)));
  absl::StatusOr<std::shared_ptr<Instance>> first = browser->Acquire();
  if (!first.ok()) return first.status();
  return browser;
}

absl::StatusOr<std::shared_ptr<Browser::Instance>> Browser::Acquire() {
  std::shared_ptr<Instance> gone;  // released after the lock: its watch takes it
  absl::MutexLock lock(&mu_);
  if (current_ != nullptr && current_->cdp->alive()) return current_;
  gone = std::move(current_);
  absl::StatusOr<std::unique_ptr<CdpConnection>> cdp = CdpConnection::Start(
      BrowserProcessOptions{.executable = options_.executable, .args = BrowserArgs(options_)});
  if (!cdp.ok()) return cdp.status();
  // Every target the browser makes is attached paused: a tab, and any window a page opens, does
  // nothing before the render has its interception on (or has closed it).
  absl::StatusOr<google::protobuf::Struct> attached = (*cdp)->Call(
      "Target.setAutoAttach", R"({"autoAttach":true,"waitForDebuggerOnStart":true,"flatten":true})",
      "", options_.launch_timeout);
  if (!attached.ok()) {
    return absl::UnavailableError(absl::StrCat("the browser (", options_.executable,
                                               ") did not answer: ", attached.status().message()));
  }
  ++stats_.launches;
  current_ = std::make_shared<Instance>();
  current_->cdp = *std::move(cdp);
  current_->watch = std::thread([this, instance = current_.get()] { Watch(*instance); });
  return current_;
}

void Browser::Retire(const std::shared_ptr<Instance>& instance) {
  std::shared_ptr<Instance> retired;  // released after the lock (the caller holds one anyway)
  absl::MutexLock lock(&mu_);
  // The instance lives on until its last render returns; new renders get a new browser.
  if (current_ == instance) retired = std::move(current_);
}

void Browser::Watch(Instance& instance) {
  // The memory at the last check and when it was read: how fast it grows sets the next check.
  uint64_t last_total = 0;
  absl::Time last_check = absl::InfinitePast();
  absl::Duration wait = options_.memory_check_interval;
  instance.mu.Lock();
  while (true) {
    // Asleep while nothing renders on this browser; a check every `wait` while a page does.
    instance.mu.Await(absl::Condition(
        +[](Instance* i) ABSL_EXCLUSIVE_LOCKS_REQUIRED(i->mu) {
          return i->stopping || i->rendering > 0;
        },
        &instance));
    if (!instance.stopping) instance.mu.AwaitWithTimeout(absl::Condition(&instance.stopping), wait);
    if (instance.stopping) break;
    instance.mu.Unlock();
    const uint64_t total = CheckMemory(instance);
    const absl::Time now = absl::Now();
    wait = NextMemoryCheck(options_, total, last_total, now - last_check);
    last_total = total;
    last_check = now;
    instance.mu.Lock();
  }
  instance.mu.Unlock();
}

uint64_t Browser::CheckMemory(Instance& instance) {
  const std::vector<TreeProcess> tree = instance.cdp->TreeProcesses();
  uint64_t total = 0;
  uint64_t dying = 0;  // held by renderers killed already, not yet reaped
  const TreeProcess* largest = nullptr;
  for (const TreeProcess& process : tree) {
    total += process.memory_bytes;
    if (absl::c_linear_search(instance.killed, process.pid)) {
      dying += process.memory_bytes;
    } else if (process.renderer &&
               (largest == nullptr || process.memory_bytes > largest->memory_bytes)) {
      largest = &process;
    }
  }
  bool killed = false;
  if (options_.max_memory_bytes > 0 && total - dying > options_.max_memory_bytes) {
    // A page's memory lives in its renderer: the largest is the page that grew. Memory held
    // elsewhere (the browser process, the GPU process) replaces the browser after the render.
    if (largest != nullptr) {
      // Killed and counted under the instance's lock: a render whose renderer died takes that
      // lock before it asks whether the watch killed it, so it cannot ask between the kill and
      // the count (and take the kill for a crash).
      absl::MutexLock lock(&instance.mu);
      if (instance.cdp->KillDescendant(largest->pid)) {
        killed = true;
        instance.killed.push_back(largest->pid);
        instance.last_kill = absl::StrCat(
            "its renderer was killed holding ", largest->memory_bytes >> 20, " MiB: the browser's "
            "processes held ", total >> 20, " MiB, over the limit of ",
            options_.max_memory_bytes >> 20, " MiB");
        instance.memory_kills.fetch_add(1);
      }
    }
    if (!killed) instance.over_memory.store(true);
  }
  absl::MutexLock lock(&mu_);
  stats_.memory_bytes = total;
  stats_.peak_memory_bytes = std::max(stats_.peak_memory_bytes, total);
  if (killed) ++stats_.memory_kills;
  return killed ? 0 : total - dying;
}

RenderResult Browser::Render(const RenderRequest& request, ResourceLoader& loader,
                             const RenderLimits& limits) {
  RenderResult result;
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](Browser* b) ABSL_EXCLUSIVE_LOCKS_REQUIRED(b->mu_) {
          return b->tabs_in_use_ < b->options_.max_tabs;
        },
        this));
    ++tabs_in_use_;
  }
  absl::Cleanup release = [this] {
    absl::MutexLock lock(&mu_);
    --tabs_in_use_;
  };
  absl::StatusOr<std::shared_ptr<Instance>> instance = Acquire();
  if (!instance.ok()) {
    result.outcome = RenderOutcome::kBrowserFailed;
    result.error = std::string(instance.status().message());
    return result;
  }
  Instance& running = **instance;
  const uint64_t kills_before = running.memory_kills.load();
  {
    absl::MutexLock lock(&running.mu);
    ++running.rendering;
  }
  const bool replace = PageRender(*running.cdp, options_, request, loader, limits, result).Run();
  {
    absl::MutexLock lock(&running.mu);
    --running.rendering;
    // A renderer that died after the watch killed one: this page's was the largest.
    if (result.outcome == RenderOutcome::kCrashed && running.memory_kills.load() > kills_before) {
      result.outcome = RenderOutcome::kMemoryLimit;
      result.error = running.last_kill;
    }
  }
  const uint64_t memory = replace ? 0 : running.cdp->TreeMemoryBytes();
  bool over_memory = running.over_memory.load() ||
                     (options_.max_memory_bytes > 0 && memory > options_.max_memory_bytes);
  bool worn = false;
  {
    absl::MutexLock lock(&mu_);
    ++stats_.renders;
    if (result.outcome == RenderOutcome::kCrashed ||
        result.outcome == RenderOutcome::kBrowserFailed) {
      ++stats_.crashes;
    }
    if (result.outcome == RenderOutcome::kScriptHung) ++stats_.hangs;
    if (over_memory) ++stats_.memory_recycles;
    if (memory > 0) stats_.memory_bytes = memory;
    stats_.peak_memory_bytes = std::max(stats_.peak_memory_bytes, memory);
    worn = options_.renders_per_browser > 0 && ++running.renders >= options_.renders_per_browser;
  }
  if (replace || over_memory || worn) Retire(*instance);
  return result;
}

BrowserStats Browser::Stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace crawler::browser
