// Browser: renders pages in headless Chromium with every request the page makes served by the
// crawler. The page's own document comes from the response the crawler already fetched; every
// other request (scripts, fetch()/XHR, frames, stylesheets) is paused by the DevTools protocol's
// Fetch domain and handed to a ResourceLoader, which the fetcher implements with its own HTTP
// path (SSRF guard, robots.txt, politeness, WARC records); types outside the render's policy
// (images, media, fonts by default) are refused without asking. Nothing else reaches the network:
// the browser is started with a proxy that does not exist (loopback included, so no bypass) and
// no name resolution, so a request that escaped interception would fail, not leave.
//
// What a page tries in order to leave is recorded instead: a navigation of its main frame
// (location = ..., a form submitted, a meta refresh) is answered 204 No Content, which keeps the
// document in place, and the URL kept; a window.open is kept and no window is made.
// Dialogs (alert, confirm, prompt, beforeunload) are dismissed. The DOM is read once the page
// has loaded and no request has been pending for `quiet`, or when the time limit ends.
//
// Each render runs in a browser context of its own (no cookies, storage or cache shared with any
// other page) and ends with it. A browser that crashed, stopped answering or grew past its
// memory limit is replaced for the next render; renders running on it end with that outcome.
//
// Thread-safety: Render may be called from many threads; at most `max_tabs` run at once, the
// others wait. ResourceLoader::Load is called on the rendering thread and may answer on any.
#ifndef CRAWLER_LIB_BROWSER_BROWSER_H_
#define CRAWLER_LIB_BROWSER_BROWSER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace crawler::browser {

namespace internal {
class CdpConnection;
}

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct BrowserOptions {
  // chromium-headless-shell (Debian's package of that name), or chromium, which is then given
  // --headless.
  std::string executable = "chromium-headless-shell";
  // Renders at once (one tab each). Each costs a renderer process: ~50-150 MiB.
  int max_tabs = 2;
  // Memory of the browser's processes: their proportional set sizes added up (a page shared by
  // N processes counts 1/N in each), so Chromium's code, mapped by each, counts once. Watched
  // every `memory_check_interval` while a page renders, and sooner while it grows towards the
  // limit (down to 10 ms apart): over it, the renderer holding the most is killed and its page
  // ends as memory_limit. Checked again after every render: still over it, the browser is
  // replaced. 0: unlimited.
  uint64_t max_memory_bytes = 1ull << 30;
  absl::Duration memory_check_interval = absl::Milliseconds(250);
  // V8's old-space limit per renderer (--max-old-space-size): a page whose script heap grows
  // without end crashes its renderer at this size. Memory outside that heap (ArrayBuffers, the
  // DOM, images) is bounded by the watch above.
  uint32_t js_heap_mib = 256;
  // Time for the browser to start and answer its first command.
  absl::Duration launch_timeout = absl::Seconds(20);
  // Time for one protocol command (open a tab, read the DOM) before the browser counts as hung.
  absl::Duration command_timeout = absl::Seconds(5);
  // Replaced after this many renders, whatever its memory says (renderer caches, leaks). 0: never.
  uint32_t renders_per_browser = 1000;
  // Started with --no-sandbox: needed in containers without user namespaces, and always so as
  // root (Chromium refuses to start its sandbox there). The renderer then has no sandbox of its
  // own; the interception above still holds every request.
  bool no_sandbox = false;
};

struct RenderLimits {
  absl::Duration time = absl::Seconds(15);     // from navigation to the DOM read
  absl::Duration quiet = absl::Milliseconds(500);  // loaded and nothing pending this long: done
  uint32_t max_requests = 100;                 // subresource requests handed to the loader
  uint64_t max_bytes = 16u << 20;              // bodies served to the page, document included
  uint64_t max_dom_bytes = 8u << 20;           // the rendered DOM kept (longer is cut, flagged)
  // CDP resource types served through the loader; the rest are refused unasked.
  absl::flat_hash_set<std::string> resource_types = {"Document", "Script", "XHR", "Fetch",
                                                     "Stylesheet", "EventSource", "Other"};
};

// A request the page made, as the loader receives it.
struct ResourceRequest {
  std::string url;
  std::string method;  // GET, POST ...
  HeaderList headers;  // as the browser would send them
  std::string post_data;
  std::string resource_type;  // CDP's: Document (a frame), Script, XHR, Fetch, Stylesheet ...
  std::string page_url;       // the page being rendered
};

// The loader's answer: a response, or `error` (a refusal or a failure, in one plain line).
struct ResourceResponse {
  int status = 0;
  HeaderList headers;
  std::string body;  // decoded (no transfer or content coding)
  std::string error;
  bool refused = false;  // `error` is a refusal (never sent: policy, the guard), not a failure
};

class ResourceLoader {
 public:
  virtual ~ResourceLoader() = default;
  // Answers `request` by calling `done` exactly once, on any thread, now or later. A render that
  // ended before the answer drops it.
  virtual void Load(ResourceRequest request,
                    absl::AnyInvocable<void(ResourceResponse) &&> done) = 0;
};

struct RenderRequest {
  std::string url;
  ResourceResponse document;  // the crawler's response for `url`, served to the browser as is
};

enum class RenderOutcome {
  kRendered,       // loaded and settled
  kTimeLimit,      // the time ran out first; the DOM is as it stood
  kScriptHung,     // the page's script held its thread: no DOM could be read
  kCrashed,        // the renderer died (out of memory, most often): no DOM
  kMemoryLimit,    // its renderer was killed, the browser being over max_memory_bytes: no DOM
  kBrowserFailed,  // the browser could not be started or stopped answering: no DOM
};
std::string_view RenderOutcomeName(RenderOutcome outcome);

struct RenderedRequest {
  std::string url;
  std::string method;
  std::string resource_type;
  std::string refused;  // why it was not served (policy, limit, the loader's error); "" if served
};

struct RenderResult {
  RenderOutcome outcome = RenderOutcome::kBrowserFailed;
  std::string error;      // why, for outcomes without a DOM
  std::string dom;        // document.documentElement.outerHTML, at most max_dom_bytes
  bool dom_truncated = false;
  std::string final_url;  // location.href when read (a client-side router may have changed it)
  std::string base_url;   // document.baseURI, for resolving the DOM's links
  // Navigations the page attempted (main frame, window.open), in order, absolute.
  std::vector<std::string> navigations;
  std::vector<RenderedRequest> requests;  // every subresource request, in order
  uint32_t requests_over_limit = 0;       // refused by max_requests
  bool byte_limit_hit = false;
  uint32_t dialogs = 0;
  uint32_t popups = 0;  // window.open calls
  uint64_t bytes_served = 0;
  absl::Duration elapsed = absl::ZeroDuration();
};

struct BrowserStats {
  uint64_t renders = 0;
  uint64_t launches = 0;  // the first start and every replacement
  uint64_t crashes = 0;   // renderers or browsers that died under a render
  uint64_t hangs = 0;
  uint64_t memory_recycles = 0;
  uint64_t memory_kills = 0;        // renderers killed by the memory watch
  uint64_t memory_bytes = 0;        // of the current browser, at the last check
  uint64_t peak_memory_bytes = 0;   // the most any check saw
};

// When the memory watch reads the browser's memory next, after a read of `total` bytes that came
// `since_last` after one of `last_total`: every `memory_check_interval`, and sooner while memory
// grows towards `max_memory_bytes` (after half the time it would take to reach it at the rate
// seen, 10 ms at the least), so that a page filling memory fast ends near the limit, not one
// interval's growth past it.
absl::Duration NextMemoryCheck(const BrowserOptions& options, uint64_t total, uint64_t last_total,
                               absl::Duration since_last);

class Browser {
 public:
  // Starts the browser once to check that it runs: kNotFound without the executable, kUnavailable
  // if it does not answer.
  static absl::StatusOr<std::unique_ptr<Browser>> Launch(BrowserOptions options);
  ~Browser();

  RenderResult Render(const RenderRequest& request, ResourceLoader& loader,
                      const RenderLimits& limits);

  BrowserStats Stats() const;

 private:
  struct Instance;
  explicit Browser(BrowserOptions options);
  absl::StatusOr<std::shared_ptr<Instance>> Acquire();
  void Retire(const std::shared_ptr<Instance>& instance);
  // The memory watch of `instance`, on a thread of its own while the instance lives.
  void Watch(Instance& instance);
  // Reads the memory of the browser's processes and kills the largest renderer when they are
  // over the limit; returns the memory that stays (0 after a kill: its memory is being freed).
  uint64_t CheckMemory(Instance& instance);

  const BrowserOptions options_;
  mutable absl::Mutex mu_;
  int tabs_in_use_ ABSL_GUARDED_BY(mu_) = 0;
  std::shared_ptr<Instance> current_ ABSL_GUARDED_BY(mu_);
  BrowserStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler::browser

#endif  // CRAWLER_LIB_BROWSER_BROWSER_H_
