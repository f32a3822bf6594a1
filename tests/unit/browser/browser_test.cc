// Browser against Debian's real chromium-headless-shell (installed by scripts/install-deps.sh),
// with an in-memory ResourceLoader standing in for the fetcher's HTTP path: links that exist only
// after scripts run reach the DOM, every request the page makes reaches the loader or is refused
// and recorded, and hostile pages (navigating away, window.open storms, dialogs, endless scripts,
// memory hogs, loads that never finish) end with their outcome while the browser goes on.
#include "lib/browser/browser.h"

#include <unistd.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace crawler::browser {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Serves a fixed web from memory; URLs it does not have get 404, URLs in `refused` the error a
// guard would give, URLs in `never` no answer at all. Records every URL asked for.
class MapLoader : public ResourceLoader {
 public:
  void Add(const std::string& url, std::string content_type, std::string body) {
    pages_[url] = ResourceResponse{
        .status = 200, .headers = {{"Content-Type", std::move(content_type)}}, .body = std::move(body)};
  }
  void Refuse(const std::string& url, std::string why) { refused_[url] = std::move(why); }
  void Never(const std::string& url) { never_.push_back(url); }

  void Load(ResourceRequest request, absl::AnyInvocable<void(ResourceResponse) &&> done) override {
    {
      absl::MutexLock lock(&mu_);
      asked_.push_back(request.url);
    }
    if (auto it = refused_.find(request.url); it != refused_.end()) {
      std::move(done)(ResourceResponse{.error = it->second});
    } else if (std::find(never_.begin(), never_.end(), request.url) != never_.end()) {
      absl::MutexLock lock(&mu_);
      unanswered_.push_back(std::move(done));
    } else if (auto page = pages_.find(request.url); page != pages_.end()) {
      std::move(done)(page->second);
    } else {
      std::move(done)(ResourceResponse{.status = 404, .body = "not here"});
    }
  }
  std::vector<std::string> asked() {
    absl::MutexLock lock(&mu_);
    return asked_;
  }

 private:
  std::map<std::string, ResourceResponse> pages_;
  std::map<std::string, std::string> refused_;
  std::vector<std::string> never_;
  absl::Mutex mu_;
  std::vector<std::string> asked_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::AnyInvocable<void(ResourceResponse) &&>> unanswered_ ABSL_GUARDED_BY(mu_);
};

RenderRequest Page(const std::string& url, std::string html) {
  return RenderRequest{.url = url,
                       .document = {.status = 200,
                                    .headers = {{"Content-Type", "text/html; charset=utf-8"}},
                                    .body = std::move(html)}};
}

BrowserOptions TestOptions() {
  BrowserOptions options;
  options.max_tabs = 1;
  options.no_sandbox = geteuid() == 0;  // Chromium refuses to run as root with its sandbox
  options.command_timeout = absl::Seconds(3);
  return options;
}

RenderLimits FastLimits() {
  RenderLimits limits;
  limits.time = absl::Seconds(10);
  limits.quiet = absl::Milliseconds(200);
  return limits;
}

std::unique_ptr<Browser> Launch(BrowserOptions options = TestOptions()) {
  absl::StatusOr<std::unique_ptr<Browser>> browser = Browser::Launch(std::move(options));
  EXPECT_TRUE(browser.ok()) << browser.status();
  return browser.ok() ? *std::move(browser) : nullptr;
}

TEST(BrowserTest, LinksBuiltByScriptsAreInTheRenderedDom) {
  std::unique_ptr<Browser> browser = Launch();
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  loader.Add("http://a.test/app.js", "application/javascript",
             "fetch('/links.json').then(r => r.json()).then(list => {"
             "  for (const u of list) { const a = document.createElement('a'); a.href = u;"
             "    document.getElementById('menu').appendChild(a); } });"
             "document.write('<a href=\"/written\">w</a>');"
             "history.pushState({}, '', '/routed/view');");
  loader.Add("http://a.test/links.json", "application/json", R"(["/j1", "http://b.test/j2"])");
  const RenderResult r = browser->Render(
      Page("http://a.test/", "<html><body><a href='/static'>s</a><div id='menu'></div>"
                             "<script src='/app.js'></script></body></html>"),
      loader, FastLimits());
  EXPECT_EQ(r.outcome, RenderOutcome::kRendered) << r.error;
  EXPECT_THAT(r.dom, HasSubstr(R"(<a href="/static">)"));
  EXPECT_THAT(r.dom, HasSubstr(R"(<a href="/written">)"));
  EXPECT_THAT(r.dom, HasSubstr(R"(<a href="/j1">)"));
  EXPECT_THAT(r.dom, HasSubstr(R"(<a href="http://b.test/j2">)"));
  EXPECT_EQ(r.final_url, "http://a.test/routed/view");
  EXPECT_EQ(r.base_url, "http://a.test/routed/view");
  EXPECT_THAT(loader.asked(), ElementsAre("http://a.test/app.js", "http://a.test/links.json"));
  ASSERT_EQ(r.requests.size(), 2u);
  EXPECT_EQ(r.requests[0].resource_type, "Script");
  EXPECT_EQ(r.requests[1].resource_type, "XHR");  // CDP's name for fetch() too
  EXPECT_THAT(r.requests[1].refused, IsEmpty());
  EXPECT_FALSE(r.dom_truncated);
}

TEST(BrowserTest, ANavigationAwayIsKeptAsALinkAndTheDocumentStays) {
  std::unique_ptr<Browser> browser = Launch();
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  const RenderResult r = browser->Render(
      Page("http://a.test/p",
           "<html><body><p id='here'>stays</p><script>"
           "addEventListener('load', () => { location.href = '/next?x=1'; });</script></body></html>"),
      loader, FastLimits());
  EXPECT_EQ(r.outcome, RenderOutcome::kRendered) << r.error;
  EXPECT_THAT(r.navigations, ElementsAre("http://a.test/next?x=1"));
  EXPECT_THAT(r.dom, HasSubstr("stays"));
  EXPECT_EQ(r.final_url, "http://a.test/p");
  EXPECT_THAT(loader.asked(), IsEmpty());  // the navigation went nowhere
}

TEST(BrowserTest, AWindowOpenStormIsKeptAndOpensNoWindow) {
  std::unique_ptr<Browser> browser = Launch();
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  const RenderResult r = browser->Render(
      Page("http://a.test/",
           "<html><body><script>for (let i = 0; i < 30; i++) window.open('/pop' + i);"
           "</script><p>after</p></body></html>"),
      loader, FastLimits());
  EXPECT_EQ(r.outcome, RenderOutcome::kRendered) << r.error;
  EXPECT_THAT(r.navigations, Contains("http://a.test/pop0"));
  EXPECT_EQ(r.popups, 30u);
  EXPECT_EQ(r.navigations.size(), 30u);
  EXPECT_THAT(r.dom, HasSubstr("after"));
  EXPECT_THAT(loader.asked(), IsEmpty());  // no popup loaded anything
  // The browser goes on.
  const RenderResult next = browser->Render(Page("http://a.test/2", "<p>two</p>"), loader,
                                            FastLimits());
  EXPECT_EQ(next.outcome, RenderOutcome::kRendered) << next.error;
}

TEST(BrowserTest, DialogsAreDismissed) {
  std::unique_ptr<Browser> browser = Launch();
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  const RenderResult r = browser->Render(
      Page("http://a.test/",
           "<html><body><script>alert('a'); const ok = confirm('b');"
           "document.body.append(ok ? 'yes' : 'no'); prompt('c');</script></body></html>"),
      loader, FastLimits());
  EXPECT_EQ(r.outcome, RenderOutcome::kRendered) << r.error;
  EXPECT_EQ(r.dialogs, 3u);
  EXPECT_THAT(r.dom, HasSubstr("no"));
}

TEST(BrowserTest, TypesOutsideThePolicyAreRefusedUnaskedAndLimitsHold) {
  std::unique_ptr<Browser> browser = Launch();
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  RenderLimits limits = FastLimits();
  limits.max_requests = 3;
  std::string html = "<html><body><img src='/i.png'><script>";
  for (int i = 0; i < 8; ++i) absl::StrAppend(&html, "fetch('/f", i, "').catch(() => 0);");
  absl::StrAppend(&html, "</script></body></html>");
  const RenderResult r = browser->Render(Page("http://a.test/", html), loader, limits);
  EXPECT_EQ(r.outcome, RenderOutcome::kRendered) << r.error;
  EXPECT_EQ(loader.asked().size(), 3u);
  EXPECT_EQ(r.requests_over_limit, 5u);
  int images = 0;
  for (const RenderedRequest& req : r.requests) {
    if (req.resource_type == "Image") {
      ++images;
      EXPECT_EQ(req.refused, "resource type not rendered");
    }
  }
  EXPECT_EQ(images, 1);
}

TEST(BrowserTest, WhatTheLoaderRefusesFailsInThePageAndIsRecorded) {
  std::unique_ptr<Browser> browser = Launch();
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  loader.Refuse("http://169.254.169.254/latest/meta-data/", "address refused: link-local");
  const RenderResult r = browser->Render(
      Page("http://a.test/",
           "<html><body><script>fetch('http://169.254.169.254/latest/meta-data/')"
           ".then(() => document.body.append('leaked'), () => document.body.append('blocked'));"
           "</script></body></html>"),
      loader, FastLimits());
  EXPECT_EQ(r.outcome, RenderOutcome::kRendered) << r.error;
  EXPECT_THAT(r.dom, HasSubstr("blocked"));
  ASSERT_EQ(r.requests.size(), 1u);
  EXPECT_EQ(r.requests[0].refused, "address refused: link-local");
}

TEST(BrowserTest, APageThatNeverFinishesLoadingEndsAtTheTimeLimitWithItsDom) {
  std::unique_ptr<Browser> browser = Launch();
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  loader.Never("http://a.test/slow.js");
  RenderLimits limits = FastLimits();
  // Long enough for the document to be parsed up to the script on a loaded machine (at 1 s, one
  // run in a few under a parallel build read the DOM before its first element existed).
  limits.time = absl::Seconds(3);
  const RenderResult r = browser->Render(
      Page("http://a.test/", "<html><body><a href='/x'>x</a><script src='/slow.js'></script>"
                             "</body></html>"),
      loader, limits);
  EXPECT_EQ(r.outcome, RenderOutcome::kTimeLimit);
  EXPECT_THAT(r.dom, HasSubstr(R"(<a href="/x">)"));
  EXPECT_GE(r.elapsed, absl::Seconds(3));
}

TEST(BrowserTest, AnEndlessScriptIsCutAndTheBrowserGoesOn) {
  BrowserOptions options = TestOptions();
  options.command_timeout = absl::Seconds(2);
  std::unique_ptr<Browser> browser = Launch(options);
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  RenderLimits limits = FastLimits();
  limits.time = absl::Seconds(1);
  const RenderResult r = browser->Render(
      Page("http://a.test/", "<html><body><script>while (true) {}</script></body></html>"), loader,
      limits);
  EXPECT_EQ(r.outcome, RenderOutcome::kScriptHung) << r.error;
  EXPECT_THAT(r.dom, IsEmpty());
  const RenderResult next =
      browser->Render(Page("http://a.test/2", "<p>fine</p>"), loader, FastLimits());
  EXPECT_EQ(next.outcome, RenderOutcome::kRendered) << next.error;
  EXPECT_THAT(next.dom, HasSubstr("fine"));
  EXPECT_EQ(browser->Stats().hangs, 1u);
}

TEST(BrowserTest, AMemoryHogCrashesItsRendererOnly) {
  BrowserOptions options = TestOptions();
  options.js_heap_mib = 64;
  std::unique_ptr<Browser> browser = Launch(options);
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  const RenderResult r = browser->Render(
      Page("http://a.test/",
           "<html><body><script>const hoard = []; while (true) hoard.push(new Array(1e6).fill(1));"
           "</script></body></html>"),
      loader, FastLimits());
  EXPECT_EQ(r.outcome, RenderOutcome::kCrashed) << RenderOutcomeName(r.outcome) << ": " << r.error;
  const RenderResult next =
      browser->Render(Page("http://a.test/2", "<p>fine</p>"), loader, FastLimits());
  EXPECT_EQ(next.outcome, RenderOutcome::kRendered) << next.error;
  EXPECT_EQ(browser->Stats().crashes, 1u);
}

// The watch's pace alone, no browser: every interval while memory stays put, faster as it nears
// the limit at the rate it grows, 10 ms apart at the limit and over it.
TEST(NextMemoryCheckTest, ComesSoonerAsGrowingMemoryNearsTheLimit) {
  constexpr uint64_t kMiB = 1ull << 20;
  BrowserOptions options;
  options.max_memory_bytes = 1024 * kMiB;
  options.memory_check_interval = absl::Milliseconds(250);
  const absl::Duration interval = options.memory_check_interval;
  // The first read, memory that does not grow, and no limit: the interval.
  EXPECT_EQ(NextMemoryCheck(options, 300 * kMiB, 0, absl::InfiniteDuration()), interval);
  EXPECT_EQ(NextMemoryCheck(options, 300 * kMiB, 300 * kMiB, interval), interval);
  EXPECT_EQ(NextMemoryCheck(options, 300 * kMiB, 400 * kMiB, interval), interval);
  BrowserOptions unlimited = options;
  unlimited.max_memory_bytes = 0;
  EXPECT_EQ(NextMemoryCheck(unlimited, 900 * kMiB, 100 * kMiB, interval), interval);
  // Slow growth, far from the limit: the interval still.
  EXPECT_EQ(NextMemoryCheck(options, 310 * kMiB, 300 * kMiB, interval), interval);
  // 1 GiB/s (256 MiB in 250 ms) with 512 MiB left: half of the 500 ms it takes to reach it.
  EXPECT_EQ(NextMemoryCheck(options, 512 * kMiB, 256 * kMiB, interval), absl::Milliseconds(250));
  // The same rate with 128 MiB left: 62.5 ms; with 8 MiB left, the 10 ms floor.
  EXPECT_EQ(NextMemoryCheck(options, 896 * kMiB, 640 * kMiB, interval), absl::Microseconds(62500));
  EXPECT_EQ(NextMemoryCheck(options, 1016 * kMiB, 760 * kMiB, interval), absl::Milliseconds(10));
  // At the limit or over it, while it grows: 10 ms, or the interval if that is shorter.
  EXPECT_EQ(NextMemoryCheck(options, 1100 * kMiB, 1000 * kMiB, absl::Milliseconds(10)),
            absl::Milliseconds(10));
  options.memory_check_interval = absl::Milliseconds(5);
  EXPECT_EQ(NextMemoryCheck(options, 1100 * kMiB, 1000 * kMiB, absl::Milliseconds(5)),
            absl::Milliseconds(5));
}

// ArrayBuffers live outside V8's heap, so its cap does not stop this page: the memory watch does,
// close to the limit, and the browser goes on.
TEST(BrowserTest, AMemoryHogOutsideTheScriptHeapIsKilledAtTheLimit) {
  constexpr uint64_t kLimit = 400ull << 20;
  BrowserOptions options = TestOptions();
  options.max_memory_bytes = kLimit;
  options.memory_check_interval = absl::Milliseconds(250);
  std::unique_ptr<Browser> browser = Launch(options);
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  loader.Never("http://a.test/late.js");  // keeps the page loading: no settling early
  RenderLimits limits = FastLimits();
  limits.time = absl::Seconds(60);
  const RenderResult r = browser->Render(
      Page("http://a.test/",
           "<html><body><script>var hog = []; setInterval(function () {"
           " for (var i = 0; i < 64; i++) hog.push(new Float64Array(1 << 17).fill(i)); }, 0);"
           "</script><script async src=\"http://a.test/late.js\"></script></body></html>"),
      loader, limits);
  EXPECT_EQ(r.outcome, RenderOutcome::kMemoryLimit)
      << RenderOutcomeName(r.outcome) << ": " << r.error;
  EXPECT_THAT(r.error, HasSubstr("over the limit of 400 MiB"));
  EXPECT_LT(r.elapsed, absl::Seconds(50));
  const BrowserStats stats = browser->Stats();
  EXPECT_EQ(stats.memory_kills, 1u);
  RecordProperty("peak_memory_mib", static_cast<int>(stats.peak_memory_bytes >> 20));
  RecordProperty("kill", r.error);
  EXPECT_GT(stats.peak_memory_bytes, kLimit);
  // Within one short check's growth of the limit (10 ms at the least apart near it), not one
  // interval's: measured 0-5 MiB over it, against 4-63 MiB with checks every 250 ms.
  EXPECT_LT(stats.peak_memory_bytes, kLimit + (100ull << 20));
  const RenderResult next =
      browser->Render(Page("http://a.test/2", "<p>fine</p>"), loader, FastLimits());
  EXPECT_EQ(next.outcome, RenderOutcome::kRendered) << next.error;
  EXPECT_THAT(next.dom, HasSubstr("fine"));
}

TEST(BrowserTest, ABrowserIsReplacedAfterItsRenders) {
  BrowserOptions options = TestOptions();
  options.renders_per_browser = 1;
  std::unique_ptr<Browser> browser = Launch(options);
  ASSERT_NE(browser, nullptr);
  MapLoader loader;
  for (int i = 0; i < 3; ++i) {
    const RenderResult r =
        browser->Render(Page(absl::StrCat("http://a.test/", i), "<p>x</p>"), loader, FastLimits());
    EXPECT_EQ(r.outcome, RenderOutcome::kRendered) << r.error;
  }
  EXPECT_EQ(browser->Stats().launches, 3u);  // the first, then one after each of two renders
  EXPECT_EQ(browser->Stats().renders, 3u);
}

TEST(BrowserTest, AMissingExecutableIsNamed) {
  BrowserOptions options = TestOptions();
  options.executable = "no-such-browser-here";
  absl::StatusOr<std::unique_ptr<Browser>> browser = Browser::Launch(options);
  EXPECT_TRUE(absl::IsNotFound(browser.status())) << browser.status();
  EXPECT_THAT(browser.status().message(), HasSubstr("no-such-browser-here"));
}

}  // namespace
}  // namespace crawler::browser
