#include "services/fetcher/page_renderer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/encoding/ascii.h"

namespace crawler::fetcher {

size_t CountScripts(std::string_view html) {
  constexpr std::string_view kOpen = "<script";
  size_t count = 0;
  for (size_t at = html.find('<'); at != std::string_view::npos; at = html.find('<', at + 1)) {
    const std::string_view rest = html.substr(at);
    if (rest.size() <= kOpen.size() || !encoding::StartsWithIgnoreCase(rest, kOpen)) continue;
    const char after = rest[kOpen.size()];
    if (after == '>' || encoding::IsAsciiWhitespace(after)) ++count;
  }
  return count;
}

RenderDecider::HostRecord& RenderDecider::Find(const std::string& host) {
  auto [it, inserted] = hosts_.try_emplace(host);
  if (inserted) {
    order_.push_back(host);
    if (order_.size() > options_.max_hosts) {
      hosts_.erase(order_.front());
      order_.pop_front();
      it = hosts_.find(host);
    }
  }
  return it->second;
}

bool RenderDecider::ShouldRender(const std::string& host, size_t scripts) {
  if (scripts == 0) return false;
  absl::MutexLock lock(&mu_);
  HostRecord& h = Find(host);
  // Rendered while at least one render in ten found links: a site's pages differ (an article
  // may link only statically while its section pages build their menus), and a page missed
  // here is a page missed for good.
  if (h.rendered < options_.probe_pages || h.gained_pages * 10 >= h.rendered) return true;
  // Judged static: tried again now and then.
  if (++h.skipped >= options_.recheck_every) {
    h.skipped = 0;
    return true;
  }
  return false;
}

void RenderDecider::Learn(const std::string& host, size_t gained) {
  absl::MutexLock lock(&mu_);
  HostRecord& h = Find(host);
  ++h.rendered;
  if (gained > 0) ++h.gained_pages;
}

absl::StatusOr<std::unique_ptr<BrowserPageRenderer>> BrowserPageRenderer::Create(
    const BrowserRenderOptions& options, Resolver& resolver, const net::AddressPolicy& guard,
    warc::WarcWriter* warc) {
  absl::StatusOr<std::unique_ptr<RenderLoader>> loader =
      RenderLoader::Create(options.loader, resolver, guard, warc);
  if (!loader.ok()) return loader.status();
  absl::StatusOr<std::unique_ptr<browser::Browser>> browser =
      browser::Browser::Launch(options.browser);
  if (!browser.ok()) return browser.status();
  return std::unique_ptr<BrowserPageRenderer>(
      new BrowserPageRenderer(options.limits, *std::move(loader), *std::move(browser)));
}

browser::RenderResult BrowserPageRenderer::Render(const std::string& url,
                                                  const http::ResponseHead& head,
                                                  std::string_view decoded_body) {
  browser::RenderRequest request{.url = url,
                                 .document = {.status = head.status(),
                                              .headers = head.fields(),
                                              .body = std::string(decoded_body)}};
  return browser_->Render(request, *loader_, limits_);
}

}  // namespace crawler::fetcher
