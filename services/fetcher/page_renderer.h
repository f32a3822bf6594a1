// Rendering pages in a browser (docs/fetcher.md "Rendering"): which HTML pages are rendered, and
// the renderer that does it.
//
// RenderMode (the collection's `render`) says which pages: never (the default: the static extractor only), always (every
// HTML page fetched with 2xx), or auto, where RenderDecider picks: a page with no script is
// never rendered; on each host the first pages with scripts are rendered, and the host keeps
// being rendered while at least one render in ten found links the static HTML did not have; a
// host judged static is re-checked every `recheck_every` pages (a site's sections differ).
//
// PageRenderer is what PageProcessor calls; BrowserPageRenderer renders with headless Chromium
// (lib/browser), its requests served by a RenderLoader (render_loader.h). The page's own
// response is the one already fetched: rendering never fetches the page twice.
//
// Thread-safety: Render and the decider's methods may be called from any worker thread.
#ifndef CRAWLER_SERVICES_FETCHER_PAGE_RENDERER_H_
#define CRAWLER_SERVICES_FETCHER_PAGE_RENDERER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/browser/browser.h"
#include "lib/http/response_head.h"
#include "lib/net/address_policy.h"
#include "lib/warc/warc_writer.h"
#include "services/collections/collection.h"
#include "services/fetcher/render_loader.h"
#include "services/fetcher/resolver.h"

namespace crawler::fetcher {

using collections::RenderMode;  // a collection's choice (collection.h)

struct RenderDeciderOptions {
  // Pages with scripts rendered on a host before it is judged.
  uint32_t probe_pages = 3;
  // A host judged static is tried again after this many pages with scripts.
  uint32_t recheck_every = 50;
  // Hosts remembered (least recently seen forgotten first): bounds the memory.
  size_t max_hosts = 100'000;
};

// auto's per-host choice. Thread-safe.
class RenderDecider {
 public:
  explicit RenderDecider(const RenderDeciderOptions& options = {}) : options_(options) {}
  // Whether to render a page of `host` with `scripts` <script> elements.
  bool ShouldRender(const std::string& host, size_t scripts);
  // What rendering a page of `host` found: `gained` links the static HTML lacked.
  void Learn(const std::string& host, size_t gained);

 private:
  struct HostRecord {
    uint32_t rendered = 0;       // pages rendered so far
    uint32_t gained_pages = 0;   // of them, pages where rendering found more links
    uint32_t skipped = 0;        // pages with scripts not rendered since the last render
  };
  HostRecord& Find(const std::string& host) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RenderDeciderOptions options_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, HostRecord> hosts_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> order_ ABSL_GUARDED_BY(mu_);
};

// The number of <script elements in `html` (case-insensitive), the cheap test auto starts from.
size_t CountScripts(std::string_view html);

class PageRenderer {
 public:
  virtual ~PageRenderer() = default;
  // Renders the page at `url` from its response: `head` and the decoded body.
  virtual browser::RenderResult Render(const std::string& url, const http::ResponseHead& head,
                                       std::string_view decoded_body) = 0;
};

struct BrowserRenderOptions {
  browser::BrowserOptions browser;  // the process's: executable, tabs, memory
  browser::RenderLimits limits;     // the collection's (FetcherOptionsFor)
  RenderLoaderOptions loader;       // .http is the fetcher's own (Create fills it in)
};

class BrowserPageRenderer final : public PageRenderer {
 public:
  // Starts the browser (kNotFound without it) and the loader. `warc` may be null. All must
  // outlive the renderer.
  static absl::StatusOr<std::unique_ptr<BrowserPageRenderer>> Create(
      const BrowserRenderOptions& options, Resolver& resolver, const net::AddressPolicy& guard,
      warc::WarcWriter* warc);

  browser::RenderResult Render(const std::string& url, const http::ResponseHead& head,
                               std::string_view decoded_body) override;

  browser::BrowserStats browser_stats() const { return browser_->Stats(); }
  RenderLoaderStats loader_stats() const { return loader_->Stats(); }
  absl::Status archive_status() const { return loader_->archive_status(); }

 private:
  BrowserPageRenderer(browser::RenderLimits limits, std::unique_ptr<RenderLoader> loader,
                      std::unique_ptr<browser::Browser> browser)
      : limits_(std::move(limits)), loader_(std::move(loader)), browser_(std::move(browser)) {}

  const browser::RenderLimits limits_;
  std::unique_ptr<RenderLoader> loader_;       // outlives the browser: renders end first
  std::unique_ptr<browser::Browser> browser_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_PAGE_RENDERER_H_
