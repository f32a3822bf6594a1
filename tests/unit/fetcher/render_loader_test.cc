// RenderLoader over the real HttpClient and a loopback server: a rendered page's requests go out
// through the crawler's own client (its User-Agent, its guard), GET only, archived as WARC
// request + response records, decoded for the browser; what the guard refuses never connects.
// Then the whole path: headless Chromium (lib/browser) rendering a page whose script and data
// come from the loopback server through this loader. And RenderDecider, auto's per-host choice.
#include "services/fetcher/render_loader.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/browser/browser.h"
#include "lib/clock/fake_clock.h"
#include "lib/warc/warc_reader.h"
#include "lib/warc/warc_writer.h"
#include "services/fetcher/page_renderer.h"
#include "tests/unit/fetcher/fetcher_fakes.h"
#include "tests/unit/fetcher/test_http_server.h"

namespace crawler::fetcher {
namespace {

namespace fs = std::filesystem;
using ::crawler::testing::TableResolver;
using ::crawler::testing::TestHttpServer;
using ::crawler::testing::TestResponse;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Response(const std::string& type, const std::string& body,
                     const std::string& extra = "") {
  return absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: ", type,
                      "\r\nContent-Length: ", body.size(), "\r\n", extra, "\r\n", body);
}

// The request line's path of a request head.
std::string PathOf(const std::string& head) {
  const size_t sp = head.find(' ');
  return head.substr(sp + 1, head.find(' ', sp + 1) - sp - 1);
}

class RenderLoaderTest : public ::testing::Test {
 protected:
  RenderLoaderTest() {
    dir_ = fs::temp_directory_path() / absl::StrCat("render_loader_test_", getpid(), "_",
                                                     ::testing::UnitTest::GetInstance()
                                                         ->current_test_info()
                                                         ->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    warc::WarcWriterOptions w;
    w.directory = dir_.string();
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer = warc::WarcWriter::Open(w, clock_, 7);
    EXPECT_TRUE(writer.ok()) << writer.status();
    warc_ = *std::move(writer);
    absl::StatusOr<net::AddressPolicy> guard = net::AddressPolicy::Create({"127.0.0.0/8"});
    EXPECT_TRUE(guard.ok());
    guard_ = *guard;
    resolver_.Set("a.test", std::vector<net::IpAddress>{*net::IpAddress::Parse("127.0.0.1")});
    resolver_.Set("private.test", std::vector<net::IpAddress>{*net::IpAddress::Parse("10.1.2.3")});
  }
  ~RenderLoaderTest() override { fs::remove_all(dir_); }

  std::unique_ptr<RenderLoader> Loader(RenderLoaderOptions options = {}) {
    options.http.user_agent = "testbot/1.0";
    absl::StatusOr<std::unique_ptr<RenderLoader>> loader =
        RenderLoader::Create(options, resolver_, guard_, warc_.get());
    EXPECT_TRUE(loader.ok()) << loader.status();
    return loader.ok() ? *std::move(loader) : nullptr;
  }

  // Loads one request and waits (at most 10 s) for its answer.
  static browser::ResourceResponse LoadOne(RenderLoader& loader, browser::ResourceRequest request) {
    absl::Notification done;
    browser::ResourceResponse answer;
    loader.Load(std::move(request), [&](browser::ResourceResponse r) {
      answer = std::move(r);
      done.Notify();
    });
    EXPECT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    return answer;
  }

  std::vector<warc::ParsedRecord> Records() {
    EXPECT_TRUE(warc_->Close().ok());
    std::vector<warc::ParsedRecord> records;
    for (const std::string& path : warc_->Files()) {
      absl::StatusOr<std::unique_ptr<warc::WarcReader>> reader = warc::WarcReader::Open(path);
      if (!reader.ok()) continue;
      while (true) {
        absl::StatusOr<std::optional<warc::ParsedRecord>> next = (*reader)->Next();
        if (!next.ok() || !next->has_value()) break;
        records.push_back(**next);
      }
    }
    return records;
  }

  FakeClock clock_;
  fs::path dir_;
  std::unique_ptr<warc::WarcWriter> warc_;
  net::AddressPolicy guard_;
  TableResolver resolver_;
};

TEST_F(RenderLoaderTest, AGetGoesOutThroughTheCrawlersClientDecodedAndArchived) {
  const std::string json = R"(["/a", "/b"])";
  TestHttpServer server([&](const std::string&) {
    return TestResponse{Response("application/json", Gzip(json), "Content-Encoding: gzip\r\n")};
  });
  std::unique_ptr<RenderLoader> loader = Loader();
  const std::string url = absl::StrCat("http://a.test:", server.port(), "/links.json");
  browser::ResourceResponse r = LoadOne(
      *loader, {.url = url, .method = "GET", .resource_type = "XHR", .page_url = "http://a.test/"});
  EXPECT_THAT(r.error, IsEmpty());
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, json);  // decoded for the browser
  ASSERT_EQ(server.heads().size(), 1u);
  EXPECT_THAT(server.heads()[0], HasSubstr("User-Agent: testbot/1.0"));
  EXPECT_THAT(server.heads()[0], HasSubstr("Referer: http://a.test/"));
  EXPECT_EQ(loader->Stats().fetched, 1u);

  loader.reset();
  const std::vector<warc::ParsedRecord> records = Records();
  int responses = 0;
  int requests = 0;
  for (const warc::ParsedRecord& rec : records) {
    if (rec.Field("WARC-Target-URI") != url) continue;
    if (rec.Field("WARC-Type") == "response") {
      ++responses;
      EXPECT_THAT(rec.block, HasSubstr("Content-Encoding: gzip"));  // as transferred
    }
    if (rec.Field("WARC-Type") == "request") ++requests;
  }
  EXPECT_EQ(responses, 1);
  EXPECT_EQ(requests, 1);
}

TEST_F(RenderLoaderTest, WhatTheGuardOrThePolicyRefusesNeverConnects) {
  TestHttpServer server([&](const std::string&) { return TestResponse{Response("text/plain", "x")}; });
  RenderLoaderOptions options;
  // Every request to the loopback server, as a crawl of the test web runs.
  options.http.connect_to = absl::StrCat("127.0.0.1:", server.port());
  std::unique_ptr<RenderLoader> loader = Loader(options);
  const struct {
    std::string url;
    std::string method;
    std::string why;
  } cases[] = {
      {"http://169.254.169.254/latest/meta-data/", "GET", "address refused (link-local)"},
      {"http://10.0.0.5:6379/", "GET", "address refused (private)"},
      {"http://[::1]/", "GET", "address refused (loopback)"},
      {"http://a.test/form", "POST", "method not sent: POST"},
      {"ftp://a.test/f", "GET", "not an http(s) URL"},
  };
  for (const auto& c : cases) {
    browser::ResourceResponse r = LoadOne(*loader, {.url = c.url, .method = c.method});
    EXPECT_THAT(r.error, HasSubstr(c.why)) << c.url;
    EXPECT_EQ(r.status, 0) << c.url;
  }
  EXPECT_EQ(server.connections(), 0);
  EXPECT_EQ(loader->Stats().refused, 5u);
}

TEST_F(RenderLoaderTest, ANameThatResolvesOnlyToARefusedAddressIsRefused) {
  std::unique_ptr<RenderLoader> loader = Loader();
  browser::ResourceResponse r =
      LoadOne(*loader, {.url = "http://private.test/x", .method = "GET"});
  EXPECT_THAT(r.error, HasSubstr("address refused (private): 10.1.2.3"));
  browser::ResourceResponse unknown =
      LoadOne(*loader, {.url = "http://nowhere.test/x", .method = "GET"});
  EXPECT_THAT(unknown.error, HasSubstr("dns:"));
}

// A script every page loads is fetched once and served from memory afterwards; data (XHR) and
// scripts marked no-store are fetched every time.
TEST_F(RenderLoaderTest, ScriptsAndStyleSheetsAreFetchedOncePerRun) {
  TestHttpServer server([&](const std::string& head) {
    const std::string path = PathOf(head);
    if (path == "/fresh.js") {
      return TestResponse{Response("application/javascript", "2", "Cache-Control: no-store\r\n")};
    }
    return TestResponse{Response("application/javascript", "1")};
  });
  std::unique_ptr<RenderLoader> loader = Loader();
  const std::string base = absl::StrCat("http://a.test:", server.port());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(LoadOne(*loader, {.url = base + "/app.js", .method = "GET", .resource_type = "Script"})
                  .body,
              "1");
    LoadOne(*loader, {.url = base + "/data", .method = "GET", .resource_type = "XHR"});
    LoadOne(*loader, {.url = base + "/fresh.js", .method = "GET", .resource_type = "Script"});
  }
  std::vector<std::string> paths;
  for (const std::string& head : server.heads()) paths.push_back(PathOf(head));
  EXPECT_EQ(std::count(paths.begin(), paths.end(), "/app.js"), 1);
  EXPECT_EQ(std::count(paths.begin(), paths.end(), "/data"), 3);
  EXPECT_EQ(std::count(paths.begin(), paths.end(), "/fresh.js"), 3);
  EXPECT_EQ(loader->Stats().cache_hits, 2u);
  EXPECT_EQ(loader->Stats().requests, 9u);
}

// The whole path: Chromium renders a page whose script and data come from the loopback server,
// every request through the loader; the links they build are in the DOM.
TEST_F(RenderLoaderTest, ABrowserRendersAPageWithEveryRequestThroughTheLoader) {
  TestHttpServer server([&](const std::string& head) {
    const std::string path = PathOf(head);
    if (path == "/app.js") {
      return TestResponse{Response(
          "application/javascript",
          "fetch('/menu.json').then(r => r.json()).then(l => l.forEach(u => {"
          " const a = document.createElement('a'); a.href = u; document.body.append(a); }));")};
    }
    if (path == "/menu.json") return TestResponse{Response("application/json", R"(["/m1","/m2"])")};
    return TestResponse{"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"};
  });
  std::unique_ptr<RenderLoader> loader = Loader();
  browser::BrowserOptions browser_options;
  browser_options.max_tabs = 1;
  absl::StatusOr<std::unique_ptr<browser::Browser>> browser =
      browser::Browser::Launch(browser_options);
  ASSERT_TRUE(browser.ok()) << browser.status();
  const std::string page = absl::StrCat("http://a.test:", server.port(), "/");
  browser::RenderLimits limits;
  limits.quiet = absl::Milliseconds(200);
  const browser::RenderResult r = (*browser)->Render(
      {.url = page,
       .document = {.status = 200,
                    .headers = {{"Content-Type", "text/html"}},
                    .body = "<html><body><script src='/app.js'></script></body></html>"}},
      *loader, limits);
  EXPECT_EQ(r.outcome, browser::RenderOutcome::kRendered) << r.error;
  EXPECT_THAT(r.dom, HasSubstr(R"(<a href="/m1">)"));
  EXPECT_THAT(r.dom, HasSubstr(R"(<a href="/m2">)"));
  // The page itself was not fetched again: only its script and data reached the server.
  std::vector<std::string> paths;
  for (const std::string& head : server.heads()) {
    paths.push_back(PathOf(head));
    EXPECT_THAT(head, HasSubstr("User-Agent: testbot/1.0"));
  }
  EXPECT_THAT(paths, ElementsAre("/app.js", "/menu.json"));
}

TEST(RenderDeciderTest, ScriptsAreCountedAsElementsOnly) {
  EXPECT_EQ(CountScripts("<p>no</p>"), 0u);
  EXPECT_EQ(CountScripts("<script>a</script><SCRIPT src=x></SCRIPT><script\ttype=module>"), 3u);
  EXPECT_EQ(CountScripts("<scripts><noscript>x</noscript>"), 0u);
  EXPECT_EQ(CountScripts("<script"), 0u);  // cut off: not an element yet
}

TEST(RenderDeciderTest, AHostIsProbedThenRenderedOnlyIfRenderingGains) {
  RenderDecider decider({.probe_pages = 2, .recheck_every = 3, .max_hosts = 10});
  EXPECT_FALSE(decider.ShouldRender("a.test", 0));  // no script: never
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(decider.ShouldRender("a.test", 1));
    decider.Learn("a.test", 0);
  }
  // Judged static: skipped, but tried again every third page with scripts.
  EXPECT_FALSE(decider.ShouldRender("a.test", 1));
  EXPECT_FALSE(decider.ShouldRender("a.test", 1));
  EXPECT_TRUE(decider.ShouldRender("a.test", 1));
  decider.Learn("a.test", 4);  // the recheck found links: rendered from now on
  EXPECT_TRUE(decider.ShouldRender("a.test", 1));
  EXPECT_TRUE(decider.ShouldRender("a.test", 1));
}

TEST(RenderDeciderTest, TheHostsRememberedAreBounded) {
  RenderDecider decider({.probe_pages = 1, .recheck_every = 1000, .max_hosts = 2});
  decider.ShouldRender("a.test", 1);
  decider.Learn("a.test", 0);
  EXPECT_FALSE(decider.ShouldRender("a.test", 1));
  decider.Learn("b.test", 0);
  decider.Learn("c.test", 0);  // a.test forgotten: probed again
  EXPECT_TRUE(decider.ShouldRender("a.test", 1));
}

}  // namespace
}  // namespace crawler::fetcher
