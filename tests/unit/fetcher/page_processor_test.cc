// PageProcessor tests: outcome classification (RFC 9110 status classes), link extraction into
// canonical in-scope outlinks, transfer/content codings, dedup verdicts and the WARC records
// written for each page (WARC 1.1 §6.3-§6.7), read back with an independent reader.
// In-memory collaborators only: a real Dedup on InMemoryKvStore (or a fake DedupClient), a real
// WarcWriter in a temporary directory, a FakeClock.
#include "services/fetcher/page_processor.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/fingerprint/payload_digest.h"
#include "lib/scope/scope.h"
#include "lib/url/url.h"
#include "lib/warc/warc_reader.h"
#include "lib/warc/warc_record.h"
#include "lib/warc/warc_writer.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/dedup/dedup.h"
#include "services/dedup/local_dedup_client.h"
#include "services/fetcher/fetch_event.h"
#include "services/frontier/frontier.h"
#include "services/frontier/url_record.h"
#include "tests/unit/fetcher/fetcher_fakes.h"
#include "tests/unit/frontier/flaky_clients.h"

namespace crawler::fetcher {
namespace {

namespace fs = std::filesystem;
using crawler::testing::RecordingObserver;
using frontier::OutcomeClass;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

const absl::Time kFetchTime = absl::FromUnixSeconds(1714567890);  // 2024-05-01T12:51:30Z

// ---------------------------------------------------------------------------------- helpers

std::string Head(const std::string& status_line, const std::vector<std::string>& fields) {
  std::string out = absl::StrCat(status_line, "\r\n");
  for (const std::string& f : fields) absl::StrAppend(&out, f, "\r\n");
  return out + "\r\n";
}

// A 200 response head with Content-Type and Content-Length for `body`.
std::string OkHead(const std::string& content_type, const std::string& body,
                   std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {absl::StrCat("Content-Type: ", content_type),
                               absl::StrCat("Content-Length: ", body.size())});
  return Head("HTTP/1.1 200 OK", extra);
}

FetchedPage Page(const std::string& url, std::string raw_headers, std::string body,
                 uint32_t depth = 0, uint64_t lease_id = 7) {
  const url::Url parsed = url::Url::Parse(url).value();
  frontier::LeasedTask task;
  task.lease_id = lease_id;
  task.canonical_url = url;
  task.host_key = std::string(parsed.host());
  task.depth = depth;
  HttpResult http;
  http.raw_headers = std::move(raw_headers);
  http.body = std::move(body);
  http.request_head = absl::StrCat("GET ", std::string(parsed.path()),
                                   " HTTP/1.1\r\nHost: ", std::string(parsed.host()),
                                   "\r\nUser-Agent: test\r\n\r\n");
  http.remote_ip = "192.0.2.10";
  http.total_time = absl::Milliseconds(12);
  return FetchedPage{
      .task = std::move(task), .url = parsed, .http = std::move(http), .fetch_time = kFetchTime};
}

FetchedPage TransportFailure(const std::string& url, TransportError error) {
  FetchedPage page = Page(url, "", "");
  page.http.error = error;
  page.http.error_message = "boom";
  page.http.request_head.clear();
  return page;
}

std::vector<std::string> CanonicalUrls(const std::vector<frontier::UrlToAdd>& links) {
  std::vector<std::string> out;
  for (const frontier::UrlToAdd& l : links) out.push_back(l.canonical_url);
  return out;
}

// Answers every query with a fixed verdict, or fails.
class FakeDedupClient final : public dedup::DedupClient {
 public:
  explicit FakeDedupClient(absl::StatusOr<dedup::ContentVerdict> answer)
      : answer_(std::move(answer)) {}
  absl::StatusOr<std::vector<dedup::ContentVerdict>> Check(
      const std::vector<dedup::ContentQuery>& queries) override {
    ++calls;
    last_queries = queries;
    if (!answer_.ok()) return answer_.status();
    return std::vector<dedup::ContentVerdict>(queries.size(), *answer_);
  }
  absl::StatusOr<size_t> Record(const std::vector<dedup::ContentQuery>& queries) override {
    if (!record_status.ok()) return record_status;
    recorded.insert(recorded.end(), queries.begin(), queries.end());
    return queries.size();
  }
  absl::StatusOr<std::vector<bool>> MarkLinksSeen(std::string_view,
                                                  const std::vector<std::string>& keys) override {
    return std::vector<bool>(keys.size(), true);
  }
  absl::Status record_status = absl::OkStatus();
  int calls = 0;
  std::vector<dedup::ContentQuery> recorded;
  std::vector<dedup::ContentQuery> last_queries;

 private:
  absl::StatusOr<dedup::ContentVerdict> answer_;
};

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            absl::StrCat("page_processor_test_", ::getpid(), "_", info->test_suite_name(), "_",
                         info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

// ----------------------------------------------------------------------------------- fixture

class PageProcessorTest : public ::testing::Test {
 protected:
  PageProcessorTest() : store_(dedup::Dedup::ColumnFamilies()) {
    absl::StatusOr<std::unique_ptr<dedup::Dedup>> d = dedup::Dedup::Open({}, store_);
    EXPECT_TRUE(d.ok()) << d.status();
    dedup_ = std::move(*d);
    local_dedup_ = std::make_unique<dedup::LocalDedupClient>(*dedup_);
    warc::WarcWriterOptions w;
    w.directory = dir_.str();
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer =
        warc::WarcWriter::Open(w, clock_, /*seed=*/42);
    EXPECT_TRUE(writer.ok()) << writer.status();
    warc_ = std::move(*writer);
    scope_options_.allowed_host_suffixes = {"a.test"};
  }

  // Builds the processor (after a test adjusted options_ / scope_options_ / dedup client).
  PageProcessor& Processor(dedup::DedupClient* dedup_client = nullptr, bool use_dedup = true) {
    absl::StatusOr<scope::Scope> s = scope::Scope::Create(scope_options_, {}, nullptr);
    EXPECT_TRUE(s.ok()) << s.status();
    scope_ = std::make_unique<scope::Scope>(*std::move(s));
    dedup::DedupClient* client =
        use_dedup ? (dedup_client != nullptr ? dedup_client : local_dedup_.get()) : nullptr;
    processor_ = std::make_unique<PageProcessor>(options_, *scope_, client, warc_.get(),
                                                 &observer_, &counters_);
    return *processor_;
  }

  ProcessedPage ProcessOne(FetchedPage page) {
    std::vector<FetchedPage> batch;
    batch.push_back(std::move(page));
    std::vector<ProcessedPage> out = processor_->Process(std::move(batch));
    EXPECT_EQ(out.size(), 1u);
    if (out.empty()) return ProcessedPage{};
    return std::move(out[0]);
  }

  // Replaces the WARC writer by a new one writing to a subdirectory (a later process, or the
  // same crawl after its disk was freed); Records() then reads only the new one's files.
  bool OpenAnotherWarcWriter(const std::string& subdirectory) {
    warc::WarcWriterOptions w;
    w.directory = dir_.str() + "/" + subdirectory;
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer =
        warc::WarcWriter::Open(w, clock_, /*seed=*/43);
    EXPECT_TRUE(writer.ok()) << writer.status();
    if (!writer.ok()) return false;
    warc_ = *std::move(writer);
    return true;
  }

  // Every record written (the warcinfo record first), after closing the writer.
  std::vector<warc::ParsedRecord> Records() {
    EXPECT_TRUE(warc_->Close().ok());
    std::vector<warc::ParsedRecord> records;
    for (const std::string& path : warc_->Files()) {
      absl::StatusOr<std::unique_ptr<warc::WarcReader>> reader = warc::WarcReader::Open(path);
      EXPECT_TRUE(reader.ok()) << reader.status();
      if (!reader.ok()) continue;
      while (true) {
        absl::StatusOr<std::optional<warc::ParsedRecord>> next = (*reader)->Next();
        EXPECT_TRUE(next.ok()) << next.status();
        if (!next.ok() || !next->has_value()) break;
        records.push_back(**next);
      }
    }
    return records;
  }

  // Records of one type for one target URI.
  static std::vector<warc::ParsedRecord> Find(const std::vector<warc::ParsedRecord>& records,
                                              const std::string& type, const std::string& uri) {
    std::vector<warc::ParsedRecord> out;
    for (const warc::ParsedRecord& r : records) {
      if (r.Field("WARC-Type") == type && r.Field("WARC-Target-URI") == uri) out.push_back(r);
    }
    return out;
  }

  static std::vector<std::string> Types(const std::vector<warc::ParsedRecord>& records,
                                        const std::string& uri) {
    std::vector<std::string> out;
    for (const warc::ParsedRecord& r : records) {
      if (r.Field("WARC-Target-URI") == uri) out.push_back(r.Field("WARC-Type"));
    }
    return out;
  }

  FakeClock clock_;
  TempDir dir_;
  kv::InMemoryKvStore store_;
  std::unique_ptr<dedup::Dedup> dedup_;
  std::unique_ptr<dedup::LocalDedupClient> local_dedup_;
  std::unique_ptr<warc::WarcWriter> warc_;
  RecordingObserver observer_;
  FetcherCounters counters_;
  PageProcessorOptions options_;
  scope::ScopeOptions scope_options_;
  std::unique_ptr<scope::Scope> scope_;
  std::unique_ptr<PageProcessor> processor_;
};

// ------------------------------------------------------------------- outcome classification

struct ClassifyCase {
  std::string name;
  std::string raw_headers;  // empty with a transport error
  TransportError error = TransportError::kNone;
  OutcomeClass outcome;
  bool retry;
  int http_status;
};

// RFC 9110 §15 status classes and the transport failures, as the frontier needs them: what is
// final, what is worth another attempt (429 and 5xx are the server's trouble, RFC 9110 §15.6,
// RFC 6585 §4), and that an address refused by the SSRF guard is out of scope for good.
TEST_F(PageProcessorTest, Rfc9110_15_OutcomeClassificationTable) {
  const std::vector<ClassifyCase> cases = {
      {"200", OkHead("text/plain", "body 200"), TransportError::kNone, OutcomeClass::kFetched, false,
       200},
      {"204", Head("HTTP/1.1 204 No Content", {}), TransportError::kNone, OutcomeClass::kFetched,
       false, 204},
      {"304", Head("HTTP/1.1 304 Not Modified", {"ETag: \"v1\""}), TransportError::kNone,
       OutcomeClass::kNotModified, false, 304},
      {"301", Head("HTTP/1.1 301 Moved Permanently", {"Location: /b"}), TransportError::kNone,
       OutcomeClass::kRedirect, false, 301},
      {"308", Head("HTTP/1.1 308 Permanent Redirect", {"Location: /b"}), TransportError::kNone,
       OutcomeClass::kRedirect, false, 308},
      {"404", Head("HTTP/1.1 404 Not Found", {"Content-Length: 0"}), TransportError::kNone,
       OutcomeClass::kHttpError, false, 404},
      {"410", Head("HTTP/1.1 410 Gone", {"Content-Length: 0"}), TransportError::kNone,
       OutcomeClass::kHttpError, false, 410},
      {"403", Head("HTTP/1.1 403 Forbidden", {"Content-Length: 0"}), TransportError::kNone,
       OutcomeClass::kHttpError, false, 403},
      {"429", Head("HTTP/1.1 429 Too Many Requests", {"Content-Length: 0"}),
       TransportError::kNone, OutcomeClass::kHttpError, true, 429},
      {"500", Head("HTTP/1.1 500 Internal Server Error", {"Content-Length: 0"}),
       TransportError::kNone, OutcomeClass::kHttpError, true, 500},
      {"503", Head("HTTP/1.1 503 Service Unavailable", {"Content-Length: 0"}),
       TransportError::kNone, OutcomeClass::kHttpError, true, 503},
      {"garbage head", "NOT HTTP AT ALL\r\n\r\n", TransportError::kNone,
       OutcomeClass::kNetworkError, true, 0},
      {"timeout", "", TransportError::kTimeout, OutcomeClass::kNetworkError, true, 0},
      {"connect failed", "", TransportError::kConnectFailed, OutcomeClass::kNetworkError, true, 0},
      {"other", "", TransportError::kOther, OutcomeClass::kNetworkError, true, 0},
      // Deterministic server misbehaviour: another attempt would get the same answer.
      {"header too large", "", TransportError::kHeaderTooLarge, OutcomeClass::kNetworkError,
       false, 0},
      {"protocol", "", TransportError::kProtocol, OutcomeClass::kNetworkError, false, 0},
      {"address refused", "", TransportError::kAddressRefused, OutcomeClass::kOutOfScope, false,
       0},
  };
  Processor();
  for (const ClassifyCase& c : cases) {
    SCOPED_TRACE(c.name);
    // Distinct bodies, so that no case is a duplicate of another.
    FetchedPage page = c.error == TransportError::kNone
                           ? Page("http://a.test/" + c.name.substr(0, 3), c.raw_headers,
                                  c.name == "204" || c.name == "304" ? "" : "body " + c.name)
                           : TransportFailure("http://a.test/t", c.error);
    ProcessedPage p = ProcessOne(std::move(page));
    EXPECT_EQ(p.outcome.outcome, c.outcome) << OutcomeClassName(p.outcome.outcome);
    EXPECT_EQ(p.outcome.retry, c.retry);
    EXPECT_EQ(p.outcome.http_status, c.http_status);
    EXPECT_EQ(p.outcome.lease_id, 7u);
    EXPECT_EQ(p.outcome.fetch_time, kFetchTime);
    EXPECT_EQ(p.event.outcome, c.outcome);
    EXPECT_EQ(p.event.http_status, c.http_status);
    if (c.error != TransportError::kNone) {
      EXPECT_THAT(p.event.detail, HasSubstr(std::string(TransportErrorName(c.error))));
      EXPECT_THAT(p.event.detail, HasSubstr("boom"));
    }
  }
}

TEST_F(PageProcessorTest, ValidatorsOfTheResponseAreReportedForTheNextConditionalGet) {
  Processor();
  ProcessedPage p = ProcessOne(Page(
      "http://a.test/v",
      OkHead("text/plain", "x", {"ETag: \"abc\"", "Last-Modified: Wed, 01 May 2024 10:00:00 GMT"}),
      "x"));
  EXPECT_EQ(p.outcome.etag, "\"abc\"");
  EXPECT_EQ(p.outcome.last_modified, "Wed, 01 May 2024 10:00:00 GMT");
  EXPECT_EQ(p.outcome.content_length, 1u);
}

// ----------------------------------------------------------------------------------- links

const char kLinkPage[] = R"(<!doctype html><html><head><title>t</title></head><body>
<a href="/a">a</a>
<a href="http://a.test/b#fragment">b</a>
<a href="/a">a again</a>
<a href="/c?utm_source=news&amp;id=1">tracked</a>
<a href="HTTP://A.TEST/d">upper</a>
<a href="http://www.a.test/e">subdomain</a>
<a href="http://other.test/x">out of scope</a>
<a href="/nf" rel="nofollow">nofollow</a>
<a href="mailto:me@a.test">mail</a>
<img src="/img.png">
</body></html>)";

TEST_F(PageProcessorTest, HtmlOutlinksAreCanonicalScopedAndUnique) {
  Processor();
  ProcessedPage p = ProcessOne(
      Page("http://a.test/dir/page", OkHead("text/html; charset=utf-8", kLinkPage), kLinkPage,
           /*depth=*/2));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(CanonicalUrls(p.outlinks),
              ElementsAre("http://a.test/a", "http://a.test/b", "http://a.test/c?id=1",
                          "http://a.test/d", "http://www.a.test/e"));
  for (const frontier::UrlToAdd& link : p.outlinks) {
    SCOPED_TRACE(link.canonical_url);
    EXPECT_EQ(link.depth, 3u);
    EXPECT_EQ(link.discovered_from, "http://a.test/dir/page");
    EXPECT_EQ(link.priority, 0);
  }
  EXPECT_EQ(p.outlinks[0].host_key, "a.test");
  EXPECT_EQ(p.outlinks[4].host_key, "www.a.test");
  EXPECT_EQ(p.event.outlinks, 5u);
  EXPECT_EQ(p.event.content_type, "text/html");
}

TEST_F(PageProcessorTest, ImagesAreFollowedOnlyWithFollowEmbeds) {
  options_.follow_embeds = true;
  Processor();
  ProcessedPage p =
      ProcessOne(Page("http://a.test/", OkHead("text/html", kLinkPage), kLinkPage));
  EXPECT_THAT(CanonicalUrls(p.outlinks),
              ElementsAre("http://a.test/a", "http://a.test/b", "http://a.test/c?id=1",
                          "http://a.test/d", "http://www.a.test/e", "http://a.test/img.png"));
}

// Navigations in click handlers and javascript: hrefs are followed as <a> links are: scoped,
// canonical, nofollow honoured.
TEST_F(PageProcessorTest, ScriptLinksAreFollowedLikeAnchors) {
  const std::string body =
      R"html(<button onclick="location.href='/s?utm_source=x'">s</button>)html"
      R"html(<a href="javascript:window.open('/j')">j</a>)html"
      R"html(<a href="#" rel="nofollow" onclick="location='/nf'">nf</a>)html"
      R"html(<div onclick="location='http://other.test/x'">out of scope</div>)html"
      R"html(<span onclick="location.href='/q?id=' + id">not a literal</span>)html";
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/", OkHead("text/html", body), body));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(CanonicalUrls(p.outlinks), ElementsAre("http://a.test/s", "http://a.test/j"));
}

// The per-page link cap holds, but what it cuts is said: in the page's crawl log detail and in
// the fetcher's counters.
TEST_F(PageProcessorTest, LinksPastThePerPageCapAreCountedAndLogged) {
  options_.extract.max_links = 100;
  Processor();
  std::string body;
  for (int i = 0; i < 1000; ++i) body += "<a href=/l" + std::to_string(i) + ">x</a>";
  ProcessedPage cut = ProcessOne(Page("http://a.test/many", OkHead("text/html", body), body));
  EXPECT_EQ(cut.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_EQ(cut.outlinks.size(), 100u);
  EXPECT_EQ(cut.event.links_cut, 900u);
  EXPECT_EQ(cut.event.detail, "links cut: 900 of 1000");
  ProcessedPage whole =
      ProcessOne(Page("http://a.test/few", OkHead("text/html", kLinkPage), kLinkPage));
  EXPECT_EQ(whole.event.links_cut, 0u);
  EXPECT_EQ(whole.event.detail, "");
  EXPECT_EQ(counters_.Snapshot().links_cut, 900u);
  EXPECT_EQ(counters_.Snapshot().pages_with_links_cut, 1u);
}

TEST_F(PageProcessorTest, MetaRobotsNofollowDropsEveryLink) {
  const std::string body =
      R"(<html><head><meta name="robots" content="nofollow"></head><body>)"
      R"(<a href="/a">a</a><a href="/b">b</a></body></html>)";
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/", OkHead("text/html", body), body));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(p.outlinks, IsEmpty());
}

TEST_F(PageProcessorTest, OutlinksBeyondMaxDepthAreDropped) {
  scope_options_.max_depth = 3;
  Processor();
  ProcessedPage shallow =
      ProcessOne(Page("http://a.test/p", OkHead("text/html", kLinkPage), kLinkPage, 2));
  EXPECT_EQ(shallow.outlinks.size(), 5u);
  EXPECT_EQ(shallow.event.links_too_deep, 0u);
  const std::string other = std::string(kLinkPage) + "<!-- not a copy -->";
  ProcessedPage deep = ProcessOne(Page("http://a.test/q", OkHead("text/html", other), other, 3));
  EXPECT_THAT(deep.outlinks, IsEmpty());
  EXPECT_EQ(deep.outcome.outcome, OutcomeClass::kFetched);
  // Counted, so that the crawl's urls_rejected_by_limit shows what max_depth cut.
  EXPECT_EQ(deep.event.links_too_deep, 6u);  // every link found, "/a" twice
}

TEST_F(PageProcessorTest, HostKeyKeepsANonDefaultPort) {
  const std::string body = R"(<a href="http://a.test:8080/x">x</a>)";
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/", OkHead("text/html", body), body));
  ASSERT_EQ(p.outlinks.size(), 1u);
  EXPECT_EQ(p.outlinks[0].canonical_url, "http://a.test:8080/x");
  EXPECT_EQ(p.outlinks[0].host_key, "a.test:8080");
}

// Sitemaps protocol: each <loc> is a URL to crawl (through scope like any link).
TEST_F(PageProcessorTest, SitemapLocsBecomeOutlinks) {
  const std::string body =
      R"(<?xml version="1.0" encoding="UTF-8"?>)"
      R"(<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">)"
      R"(<url><loc>http://a.test/s1</loc></url>)"
      R"(<url><loc>http://a.test/s2?utm_medium=x</loc><lastmod>2024-01-01</lastmod></url>)"
      R"(<url><loc>http://other.test/s3</loc></url>)"
      R"(</urlset>)";
  Processor();
  ProcessedPage p =
      ProcessOne(Page("http://a.test/sitemap.xml", OkHead("application/xml", body), body, 1));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_EQ(p.event.content_type, "application/sitemap+xml");
  EXPECT_THAT(CanonicalUrls(p.outlinks), ElementsAre("http://a.test/s1", "http://a.test/s2"));
  for (const frontier::UrlToAdd& link : p.outlinks) EXPECT_EQ(link.depth, 2u);
}

FetchedPage SitemapLease(const std::string& url, const std::string& body, uint8_t level,
                         uint32_t depth = 1, const std::string& type = "application/xml") {
  FetchedPage page = Page(url, OkHead(type, body), body, depth);
  page.task.sitemap_level = level;
  return page;
}

std::string Urlset(const std::string& entries) {
  return R"(<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">)" + entries +
         "</urlset>";
}

std::string Index(int children) {
  std::string out = R"(<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">)";
  for (int i = 1; i <= children; ++i) {
    absl::StrAppend(&out, "<sitemap><loc>http://a.test/part-", i, ".xml</loc></sitemap>");
  }
  return out + "</sitemapindex>";
}

// sitemaps.org "XML tag definitions": lastmod, changefreq and priority travel with the page to
// the frontier (lastmod as evidence, the others recorded); the page is one hop from the sitemap.
TEST_F(PageProcessorTest, SitemapEntriesCarryTheirHints) {
  const std::string body = Urlset(
      "<url><loc>http://a.test/n</loc><lastmod>2024-03-02T10:00:00+01:00</lastmod>"
      "<changefreq>daily</changefreq><priority>0.8</priority></url>"
      "<url><loc>http://a.test/bare</loc></url>");
  Processor();
  ProcessedPage p = ProcessOne(SitemapLease("http://a.test/sitemap.xml", body, 1));
  ASSERT_EQ(p.outlinks.size(), 2u);
  const frontier::UrlToAdd& n = p.outlinks[0];
  EXPECT_EQ(n.canonical_url, "http://a.test/n");
  EXPECT_EQ(n.sitemap_level, 0);
  EXPECT_EQ(n.depth, 2u);
  EXPECT_EQ(n.sitemap.lastmod,
            absl::FromCivil(absl::CivilSecond(2024, 3, 2, 9, 0, 0), absl::UTCTimeZone()));
  EXPECT_EQ(n.sitemap.changefreq, 1 + static_cast<int>(sitemap::ChangeFreq::kDaily));
  EXPECT_EQ(n.sitemap.priority_permille, 800);
  EXPECT_TRUE(p.outlinks[1].sitemap.empty());
  EXPECT_TRUE(p.event.sitemap);
  EXPECT_EQ(p.event.sitemap_urls, 2u);
  EXPECT_THAT(p.event.detail, StartsWith("urlset: 2 urls, 0 sitemaps"));
}

// "Using Sitemap index files": an index's children are sitemaps one level down, at the index's
// own depth (a table of contents is not a hop), at most max_sitemaps_per_index of them.
TEST_F(PageProcessorTest, IndexChildrenAreSitemapsOfTheNextLevelAndBounded) {
  options_.max_sitemaps_per_index = 2;
  Processor();
  ProcessedPage p = ProcessOne(SitemapLease("http://a.test/index.xml", Index(3), 1));
  ASSERT_EQ(p.outlinks.size(), 2u);
  for (const frontier::UrlToAdd& child : p.outlinks) {
    EXPECT_EQ(child.sitemap_level, 2);
    EXPECT_EQ(child.depth, 1u);
  }
  EXPECT_THAT(CanonicalUrls(p.outlinks),
              ElementsAre("http://a.test/part-1.xml", "http://a.test/part-2.xml"));
  EXPECT_THAT(p.event.detail, StartsWith("sitemapindex: 0 urls, 2 sitemaps (1 not followed"));
}

// Nesting is bounded: an index at the deepest level adds no more sitemaps (the protocol allows
// no nesting at all; kMaxSitemapLevel allows some, never an endless chain).
TEST_F(PageProcessorTest, IndexesNestAtMostToTheMaximumLevel) {
  Processor();
  ProcessedPage deep =
      ProcessOne(SitemapLease("http://a.test/deep.xml", Index(2), frontier::kMaxSitemapLevel));
  EXPECT_THAT(deep.outlinks, IsEmpty());
  ProcessedPage above =
      ProcessOne(SitemapLease("http://a.test/above.xml", Index(2), frontier::kMaxSitemapLevel - 1));
  EXPECT_EQ(above.outlinks.size(), 2u);
}

// A sitemap lease is read whatever its type says, gzip included, and is never a duplicate:
// two hosts may publish the same sitemap bytes and both must be read.
TEST_F(PageProcessorTest, SitemapLeasesAreReadWhateverTheTypeAndNotDeduplicated) {
  const std::string body = Urlset("<url><loc>http://a.test/g</loc></url>");
  Processor();
  ProcessedPage first = ProcessOne(
      SitemapLease("http://a.test/s.txt", body, 1, 1, "application/octet-stream"));
  EXPECT_THAT(CanonicalUrls(first.outlinks), ElementsAre("http://a.test/g"));
  ProcessedPage again = ProcessOne(
      SitemapLease("http://a.test/copy.xml", body, 1, 1, "application/octet-stream"));
  EXPECT_EQ(again.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(CanonicalUrls(again.outlinks), ElementsAre("http://a.test/g"));
}

// A sitemap that moved is still a sitemap at its new address.
TEST_F(PageProcessorTest, ARedirectedSitemapStaysASitemap) {
  Processor();
  FetchedPage page = Page("http://a.test/sitemap.xml",
                          Head("HTTP/1.1 301 Moved", {"Location: /sitemaps/main.xml"}), "", 1);
  page.task.sitemap_level = 1;
  ProcessedPage p = ProcessOne(std::move(page));
  ASSERT_EQ(p.outlinks.size(), 1u);
  EXPECT_EQ(p.outlinks[0].canonical_url, "http://a.test/sitemaps/main.xml");
  EXPECT_EQ(p.outlinks[0].sitemap_level, 1);
  EXPECT_TRUE(p.event.sitemap);
  EXPECT_THAT(p.event.detail, StartsWith("redirect"));
}

TEST_F(PageProcessorTest, NonHtmlBodiesYieldNoLinks) {
  const std::string body = "see http://a.test/z and <a href=\"/y\">y</a>";
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/f.txt", OkHead("text/plain", body), body));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_EQ(p.event.content_type, "text/plain");
  EXPECT_THAT(p.outlinks, IsEmpty());
}

// ------------------------------------------------------------------------------- redirects

// RFC 9110 §15.4: the Location of a 3xx, resolved against the request URL (§10.2.2), is a new
// URL for the frontier; the crawler does not follow it itself.
TEST_F(PageProcessorTest, Rfc9110_15_4_RedirectTargetBecomesAnOutlink) {
  Processor();
  ProcessedPage p = ProcessOne(Page(
      "http://a.test/old/page",
      Head("HTTP/1.1 301 Moved Permanently", {"Location: ../new?utm_campaign=x", "Content-Length: 0"}),
      "", /*depth=*/1));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kRedirect);
  EXPECT_FALSE(p.outcome.retry);
  ASSERT_EQ(p.outlinks.size(), 1u);
  EXPECT_EQ(p.outlinks[0].canonical_url, "http://a.test/new");
  EXPECT_EQ(p.outlinks[0].depth, 2u);
  EXPECT_EQ(p.outlinks[0].discovered_from, "http://a.test/old/page");
  EXPECT_EQ(p.event.detail, "http://a.test/new?utm_campaign=x");
  EXPECT_EQ(p.event.outlinks, 1u);
}

TEST_F(PageProcessorTest, Rfc9110_15_4_RedirectOutOfScopeOrWithoutLocationAddsNothing) {
  Processor();
  ProcessedPage away = ProcessOne(Page(
      "http://a.test/x", Head("HTTP/1.1 302 Found", {"Location: http://other.test/"}), ""));
  EXPECT_EQ(away.outcome.outcome, OutcomeClass::kRedirect);
  EXPECT_THAT(away.outlinks, IsEmpty());
  ProcessedPage bare = ProcessOne(Page("http://a.test/y", Head("HTTP/1.1 302 Found", {}), ""));
  EXPECT_EQ(bare.outcome.outcome, OutcomeClass::kRedirect);
  EXPECT_THAT(bare.outlinks, IsEmpty());
}

// A chain of redirects, each to a new URL, is followed max_redirect_hops hops; the hop after
// that is not queued (the seen-set stops loops, this stops endless chains of fresh URLs).
TEST_F(PageProcessorTest, Rfc9110_15_4_RedirectChainsAreCutAfterMaxHops) {
  options_.max_redirect_hops = 3;
  Processor();
  // r0 -> r1 -> r2 -> r3 are followed; r3 -> r4 would be the fourth hop (r4 is then never
  // queued, so the chain ends there).
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    const std::string target = absl::StrCat("http://a.test/r", i + 1);
    ProcessedPage p = ProcessOne(Page(absl::StrCat("http://a.test/r", i),
                                      Head("HTTP/1.1 302 Found", {"Location: " + target}), ""));
    EXPECT_EQ(p.outcome.outcome, OutcomeClass::kRedirect);
    if (i < 3) {
      EXPECT_THAT(CanonicalUrls(p.outlinks), ElementsAre(target));
    } else {
      EXPECT_THAT(p.outlinks, IsEmpty());
      EXPECT_THAT(p.event.detail, HasSubstr("not followed"));
    }
  }
  // An unrelated redirect starts its own count.
  ProcessedPage fresh = ProcessOne(
      Page("http://a.test/other", Head("HTTP/1.1 301 Moved", {"Location: /elsewhere"}), ""));
  EXPECT_THAT(CanonicalUrls(fresh.outlinks), ElementsAre("http://a.test/elsewhere"));
}

TEST_F(PageProcessorTest, RedirectBodyLinksAreNotFollowed) {
  const std::string body = R"(<html><body><a href="/elsewhere">moved</a></body></html>)";
  Processor();
  ProcessedPage p = ProcessOne(Page(
      "http://a.test/r",
      Head("HTTP/1.1 301 Moved", {"Location: /target", "Content-Type: text/html",
                                  absl::StrCat("Content-Length: ", body.size())}),
      body));
  EXPECT_THAT(CanonicalUrls(p.outlinks), ElementsAre("http://a.test/target"));
}

// --------------------------------------------------------------------------- codings, digest

// WARC 1.1 §5.9: the payload digest covers the entity body with the transfer coding removed;
// the response record's block keeps the message as transferred (§6.3.2).
TEST_F(PageProcessorTest, Warc_5_9_ChunkedBodyIsDechunkedForTheDigestButStoredRaw) {
  const std::string chunked = "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
  const std::string head =
      Head("HTTP/1.1 200 OK", {"Content-Type: text/plain", "Transfer-Encoding: chunked"});
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/chunked", head, chunked));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_EQ(p.outcome.content_length, 11u);
  EXPECT_EQ(p.event.bytes, chunked.size());

  std::vector<warc::ParsedRecord> records = Records();
  std::vector<warc::ParsedRecord> response = Find(records, "response", "http://a.test/chunked");
  ASSERT_EQ(response.size(), 1u);
  EXPECT_EQ(response[0].Field("WARC-Payload-Digest"),
            fingerprint::ComputePayloadDigest("hello world").sha1.ToWarcString());
  EXPECT_EQ(response[0].block, head + chunked);
}

// RFC 9110 §8.4: Content-Encoding is part of the representation; links are read from the
// decoded HTML, but the payload digest is over the entity as sent (still gzipped).
TEST_F(PageProcessorTest, GzipContentIsDecodedForParsingButDigestedEncoded) {
  const std::string html = R"(<html><body><a href="/zipped-link">z</a></body></html>)";
  const std::string gz = warc::GzipMember(html, 6);
  const std::string head = OkHead("text/html", gz, {"Content-Encoding: gzip"});
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/gz", head, gz));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(CanonicalUrls(p.outlinks), ElementsAre("http://a.test/zipped-link"));
  EXPECT_EQ(p.outcome.content_length, gz.size());

  std::vector<warc::ParsedRecord> records = Records();
  std::vector<warc::ParsedRecord> response = Find(records, "response", "http://a.test/gz");
  ASSERT_EQ(response.size(), 1u);
  EXPECT_EQ(response[0].Field("WARC-Payload-Digest"),
            fingerprint::ComputePayloadDigest(gz).sha1.ToWarcString());
  EXPECT_NE(response[0].Field("WARC-Payload-Digest"),
            fingerprint::ComputePayloadDigest(html).sha1.ToWarcString());
  EXPECT_EQ(response[0].block, head + gz);
}

TEST_F(PageProcessorTest, UndecodableContentIsStoredButNotParsed) {
  const std::string junk = "this is not gzip <a href=\"/x\">x</a>";
  const std::string head = OkHead("text/html", junk, {"Content-Encoding: gzip"});
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/badgz", head, junk));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(p.outlinks, IsEmpty());
  EXPECT_THAT(p.event.detail, HasSubstr("not parsed"));
  std::vector<warc::ParsedRecord> records = Records();
  EXPECT_EQ(Find(records, "response", "http://a.test/badgz").size(), 1u);
}

// WARC 1.1 §5.13: a body cut short is recorded with WARC-Truncated and its reason.
TEST_F(PageProcessorTest, Warc_5_13_TruncatedBodyIsMarked) {
  const std::string body(1000, 'x');
  FetchedPage page = Page("http://a.test/big", OkHead("text/plain", std::string(5000, 'x')), body);
  page.http.truncated = "length";
  Processor();
  ProcessOne(std::move(page));
  std::vector<warc::ParsedRecord> records = Records();
  std::vector<warc::ParsedRecord> response = Find(records, "response", "http://a.test/big");
  ASSERT_EQ(response.size(), 1u);
  EXPECT_EQ(response[0].Field("WARC-Truncated"), "length");
}

// --------------------------------------------------------------------------------- records

// WARC 1.1 §6.3 / §6.4 / §6.6: a response, the request that produced it, and a metadata record
// with the outlinks; request and metadata name the response in WARC-Concurrent-To (§5.7).
TEST_F(PageProcessorTest, Warc_6_RequestResponseMetadataAreLinkedByConcurrentTo) {
  const std::string body = R"(<html><body><a href="/one">1</a><a href="/two">2</a></body></html>)";
  const std::string head = OkHead("text/html", body);
  Processor();
  FetchedPage page = Page("http://a.test/page", head, body);
  const std::string request_head = page.http.request_head;
  ProcessOne(std::move(page));

  std::vector<warc::ParsedRecord> records = Records();
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records[0].Field("WARC-Type"), "warcinfo");
  EXPECT_THAT(Types(records, "http://a.test/page"),
              UnorderedElementsAre("request", "response", "metadata"));
  const warc::ParsedRecord response = Find(records, "response", "http://a.test/page").at(0);
  const warc::ParsedRecord request = Find(records, "request", "http://a.test/page").at(0);
  const warc::ParsedRecord metadata = Find(records, "metadata", "http://a.test/page").at(0);

  const std::string response_id = response.Field("WARC-Record-ID");
  ASSERT_FALSE(response_id.empty());
  EXPECT_EQ(request.Field("WARC-Concurrent-To"), response_id);
  EXPECT_EQ(metadata.Field("WARC-Concurrent-To"), response_id);
  EXPECT_NE(request.Field("WARC-Record-ID"), response_id);
  EXPECT_NE(metadata.Field("WARC-Record-ID"), response_id);

  EXPECT_EQ(response.Field("Content-Type"), "application/http;msgtype=response");
  EXPECT_EQ(response.Field("WARC-Date"), "2024-05-01T12:51:30Z");
  EXPECT_EQ(response.Field("WARC-IP-Address"), "192.0.2.10");
  EXPECT_EQ(response.Field("WARC-Payload-Digest"),
            fingerprint::ComputePayloadDigest(body).sha1.ToWarcString());
  EXPECT_EQ(response.block, head + body);

  EXPECT_EQ(request.Field("Content-Type"), "application/http;msgtype=request");
  EXPECT_EQ(request.block, request_head);

  EXPECT_EQ(metadata.Field("Content-Type"), "application/warc-fields");
  EXPECT_THAT(metadata.block, HasSubstr("outlink: http://a.test/one\r\n"));
  EXPECT_THAT(metadata.block, HasSubstr("outlink: http://a.test/two\r\n"));
}

// The metadata record's first field is the page's link distance from a seed: "depth: 0" marks
// a seed (a WACZ package lists seeds from it), other pages carry their depth.
TEST_F(PageProcessorTest, MetadataRecordStartsWithTheDepth) {
  const std::string seed = R"(<html><body><a href="/one">1</a></body></html>)";
  const std::string deep = R"(<html><body><a href="/two">2</a></body></html>)";
  Processor();
  ProcessOne(Page("http://a.test/seed", OkHead("text/html", seed), seed));
  ProcessOne(Page("http://a.test/deep", OkHead("text/html", deep), deep, /*depth=*/3,
                  /*lease_id=*/8));

  std::vector<warc::ParsedRecord> records = Records();
  EXPECT_THAT(Find(records, "metadata", "http://a.test/seed").at(0).block,
              StartsWith("depth: 0\r\noutlink: http://a.test/one\r\n"));
  EXPECT_THAT(Find(records, "metadata", "http://a.test/deep").at(0).block,
              StartsWith("depth: 3\r\noutlink: "));
}

TEST_F(PageProcessorTest, ErrorResponsesAreArchivedWithoutMetadata) {
  const std::string body = "<html>not here</html>";
  Processor();
  ProcessOne(Page("http://a.test/missing",
                  Head("HTTP/1.1 404 Not Found",
                       {"Content-Type: text/html", absl::StrCat("Content-Length: ", body.size())}),
                  body));
  std::vector<warc::ParsedRecord> records = Records();
  EXPECT_THAT(Types(records, "http://a.test/missing"), UnorderedElementsAre("request", "response"));
}

TEST_F(PageProcessorTest, TransportFailuresWriteNoRecords) {
  Processor();
  ProcessOne(TransportFailure("http://a.test/down", TransportError::kConnectFailed));
  std::vector<warc::ParsedRecord> records = Records();
  EXPECT_THAT(Types(records, "http://a.test/down"), IsEmpty());
}

// A WARC write that fails (here: the writer is closed; in production a full disk) marks every
// page whose records it held, so that the fetcher does not complete them; pages with nothing to
// archive are unaffected. The crawl log line says why.
TEST_F(PageProcessorTest, PagesWhoseRecordsCannotBeWrittenSaySo) {
  Processor();
  ASSERT_TRUE(warc_->Close().ok());
  const std::string one = "<html><body><p>one</p><a href=/x>x</a></body></html>";
  const std::string two = "<html><body><p>two, another page</p><a href=/x>x</a></body></html>";
  std::vector<FetchedPage> batch;
  batch.push_back(Page("http://a.test/1", OkHead("text/html", one), one, 0, 1));
  batch.push_back(TransportFailure("http://a.test/down", TransportError::kConnectFailed));
  batch.push_back(Page("http://a.test/2", OkHead("text/html", two), two, 0, 2));
  std::vector<ProcessedPage> out = processor_->Process(std::move(batch));
  ASSERT_EQ(out.size(), 3u);
  for (size_t i : {0u, 2u}) {
    EXPECT_FALSE(out[i].archive_status.ok()) << i;
    EXPECT_EQ(out[i].outcome.outcome, OutcomeClass::kFetched) << i;
    EXPECT_THAT(out[i].event.detail, HasSubstr("not archived: WARC writer is closed")) << i;
    EXPECT_THAT(CanonicalUrls(out[i].outlinks), ElementsAre("http://a.test/x")) << i;
  }
  EXPECT_TRUE(out[1].archive_status.ok()) << out[1].archive_status;

  // Fetched again once WARC files can be written: archived in full, not as revisits of the
  // records that were never written.
  ASSERT_TRUE(OpenAnotherWarcWriter("again"));
  Processor();
  std::vector<FetchedPage> again;
  again.push_back(Page("http://a.test/1", OkHead("text/html", one), one, 0, 3));
  again.push_back(Page("http://a.test/2", OkHead("text/html", two), two, 0, 4));
  out = processor_->Process(std::move(again));
  ASSERT_EQ(out.size(), 2u);
  const std::vector<warc::ParsedRecord> records = Records();
  for (const char* uri : {"http://a.test/1", "http://a.test/2"}) {
    EXPECT_THAT(Types(records, uri), UnorderedElementsAre("response", "request", "metadata"))
        << uri;
  }
}

// A process killed after its dedup check and before its WARC write left nothing in the archive:
// the page fetched again by the next process is archived in full, not as a revisit of a record
// that was never written (the content index learns of content only once it is archived).
TEST_F(PageProcessorTest, ContentCheckedByAKilledProcessIsNotAnOriginal) {
  const std::string body = "<html><body><p>checked, never archived</p></body></html>";
  // What the killed process sent to the content index: its batch's Check, nothing after.
  FakeDedupClient capture(dedup::ContentVerdict{});
  Processor(&capture);
  ProcessOne(Page("http://a.test/p", OkHead("text/html", body), body, 0, 1));
  ASSERT_EQ(capture.last_queries.size(), 1u);
  ASSERT_FALSE(capture.last_queries[0].warc_record_id.empty());
  ASSERT_TRUE(local_dedup_->Check(capture.last_queries).ok());

  ASSERT_TRUE(OpenAnotherWarcWriter("next"));
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/p", OkHead("text/html", body), body, 0, 2));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(Types(Records(), "http://a.test/p"), UnorderedElementsAre("response", "request"));
}

// The content index records a batch's new content after its records are written, and only then.
TEST_F(PageProcessorTest, NewContentIsRecordedOnceArchived) {
  const std::string one = "<html><body><p>one</p></body></html>";
  const std::string two = "<html><body><p>two, another page</p></body></html>";
  FakeDedupClient fake(dedup::ContentVerdict{});
  Processor(&fake);
  std::vector<FetchedPage> batch;
  batch.push_back(Page("http://a.test/1", OkHead("text/html", one), one, 0, 1));
  batch.push_back(Page("http://a.test/2", OkHead("text/html", two), two, 0, 2));
  processor_->Process(std::move(batch));
  ASSERT_EQ(fake.recorded.size(), 2u);
  const std::vector<warc::ParsedRecord> records = Records();
  for (const dedup::ContentQuery& q : fake.recorded) {
    std::vector<warc::ParsedRecord> response = Find(records, "response", q.url);
    ASSERT_EQ(response.size(), 1u) << q.url;
    EXPECT_EQ(response[0].Field("WARC-Record-ID"), q.warc_record_id);
  }

  // A batch that cannot be archived (Records() closed the writer) records nothing.
  fake.recorded.clear();
  Processor(&fake);
  std::vector<FetchedPage> lost;
  lost.push_back(Page("http://a.test/3", OkHead("text/html", one), one, 0, 3));
  std::vector<ProcessedPage> out = processor_->Process(std::move(lost));
  EXPECT_FALSE(out[0].archive_status.ok());
  EXPECT_THAT(fake.recorded, IsEmpty());
}

// The index unreachable when a batch's content is to be recorded: the pages are archived and
// done; their log lines say the content was not recorded (its later copies are archived in full).
TEST_F(PageProcessorTest, ContentThatCannotBeRecordedIsStillArchived) {
  const std::string body = "<html><body><p>one</p></body></html>";
  FakeDedupClient fake(dedup::ContentVerdict{});
  fake.record_status = absl::UnavailableError("dedup down");
  Processor(&fake);
  ProcessedPage p = ProcessOne(Page("http://a.test/1", OkHead("text/html", body), body, 0, 1));
  EXPECT_TRUE(p.archive_status.ok()) << p.archive_status;
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(p.event.detail, HasSubstr("dedup: not recorded: dedup down"));
  EXPECT_THAT(Types(Records(), "http://a.test/1"), UnorderedElementsAre("response", "request"));
}

// WARC 1.1 §6.7.3: a 304 to a conditional GET is a revisit record with the server-not-modified
// profile, holding only the response header.
TEST_F(PageProcessorTest, Warc_6_7_3_NotModifiedIsARevisitServerNotModified) {
  const std::string head =
      Head("HTTP/1.1 304 Not Modified", {"ETag: \"v2\"", "Date: Wed, 01 May 2024 12:51:30 GMT"});
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/same", head, ""));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kNotModified);
  EXPECT_EQ(p.outcome.etag, "\"v2\"");
  EXPECT_THAT(p.outlinks, IsEmpty());

  std::vector<warc::ParsedRecord> records = Records();
  std::vector<warc::ParsedRecord> revisit = Find(records, "revisit", "http://a.test/same");
  ASSERT_EQ(revisit.size(), 1u);
  EXPECT_EQ(revisit[0].Field("WARC-Profile"), warc::kProfileServerNotModified);
  EXPECT_EQ(revisit[0].block, head);
  EXPECT_EQ(revisit[0].Field("WARC-Payload-Digest"), "");
  EXPECT_THAT(Find(records, "response", "http://a.test/same"), IsEmpty());
  std::vector<warc::ParsedRecord> request = Find(records, "request", "http://a.test/same");
  ASSERT_EQ(request.size(), 1u);
  EXPECT_EQ(request[0].Field("WARC-Concurrent-To"), revisit[0].Field("WARC-Record-ID"));
}

// ---------------------------------------------------------------------------------- dedup

const char kArticle[] = R"(<html><body><p>
The quick brown fox jumps over the lazy dog while the committee debates the budget of the
municipal library, which has been underfunded for years; volunteers keep the reading room open
on weekends and the children's section is full of donated books.</p>
<a href="/next">next</a></body></html>)";

// WARC 1.1 §6.7.2: an exact copy of content already archived under another URL is a revisit
// record (identical-payload-digest) referring to the first capture; its links are not followed
// again (docs/architecture.md §3 dedup).
TEST_F(PageProcessorTest, Warc_6_7_2_ExactDuplicateOfAnotherUrlIsARevisitOfTheOriginal) {
  const std::string head = OkHead("text/html", kArticle);
  Processor();
  ProcessedPage first = ProcessOne(Page("http://a.test/original", head, kArticle));
  EXPECT_EQ(first.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(CanonicalUrls(first.outlinks), ElementsAre("http://a.test/next"));
  EXPECT_NE(first.outcome.content_fingerprint, 0u);  // long enough for a SimHash

  clock_.Advance(absl::Minutes(1));
  FetchedPage copy_page = Page("http://a.test/copy", head, kArticle);
  copy_page.fetch_time = kFetchTime + absl::Minutes(1);
  ProcessedPage copy = ProcessOne(std::move(copy_page));
  EXPECT_EQ(copy.outcome.outcome, OutcomeClass::kDuplicate);
  EXPECT_EQ(copy.event.outcome, OutcomeClass::kDuplicate);
  EXPECT_THAT(copy.event.detail, HasSubstr("exact duplicate of http://a.test/original"));
  EXPECT_THAT(copy.outlinks, IsEmpty());
  EXPECT_EQ(copy.event.outlinks, 0u);

  std::vector<warc::ParsedRecord> records = Records();
  std::vector<warc::ParsedRecord> original = Find(records, "response", "http://a.test/original");
  ASSERT_EQ(original.size(), 1u);
  std::vector<warc::ParsedRecord> revisit = Find(records, "revisit", "http://a.test/copy");
  ASSERT_EQ(revisit.size(), 1u);
  EXPECT_THAT(Find(records, "response", "http://a.test/copy"), IsEmpty());
  EXPECT_EQ(revisit[0].Field("WARC-Profile"), warc::kProfileIdenticalPayloadDigest);
  EXPECT_EQ(revisit[0].Field("WARC-Refers-To"), original[0].Field("WARC-Record-ID"));
  EXPECT_EQ(revisit[0].Field("WARC-Refers-To-Target-URI"), "http://a.test/original");
  EXPECT_EQ(revisit[0].Field("WARC-Refers-To-Date"), original[0].Field("WARC-Date"));
  EXPECT_EQ(revisit[0].Field("WARC-Payload-Digest"), original[0].Field("WARC-Payload-Digest"));
  EXPECT_EQ(revisit[0].block, head);
  EXPECT_THAT(Find(records, "metadata", "http://a.test/copy"), IsEmpty());
}

// The content index unreachable: a copy of archived content is archived in full (a response
// record, not a revisit; its links are followed), its log line says why, the fetcher counts it,
// and the batch does not wait out a second failing call to record its content.
TEST_F(PageProcessorTest, DedupUnavailableArchivesInFullAndSaysSo) {
  const std::string head = OkHead("text/html", kArticle);
  Processor();
  ASSERT_EQ(ProcessOne(Page("http://a.test/original", head, kArticle)).outcome.outcome,
            OutcomeClass::kFetched);

  crawler::testing::FlakyDedupClient down(*local_dedup_, /*every=*/1);  // every call fails
  Processor(&down);
  std::vector<FetchedPage> batch;
  batch.push_back(Page("http://a.test/copy", head, kArticle, 0, 1));
  batch.push_back(Page("http://a.test/new", OkHead("text/html", "<p>new</p>"), "<p>new</p>", 0, 2));
  std::vector<ProcessedPage> out = processor_->Process(std::move(batch));
  ASSERT_EQ(out.size(), 2u);
  for (const ProcessedPage& p : out) {
    EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
    EXPECT_TRUE(p.archive_status.ok()) << p.archive_status;
    EXPECT_THAT(p.event.detail, HasSubstr("dedup unavailable: injected outage: Check"));
  }
  EXPECT_THAT(CanonicalUrls(out[0].outlinks), ElementsAre("http://a.test/next"));
  EXPECT_EQ(down.failures(), 1);  // the Check; no Record was tried
  EXPECT_EQ(counters_.Snapshot().dedup_unavailable, 2u);

  const std::vector<warc::ParsedRecord> records = Records();
  EXPECT_THAT(Types(records, "http://a.test/copy"),
              UnorderedElementsAre("response", "request", "metadata"));
  EXPECT_THAT(Find(records, "revisit", "http://a.test/copy"), IsEmpty());
  EXPECT_EQ(Find(records, "response", "http://a.test/new").size(), 1u);

  // The batch's new content was not recorded: once the index answers again, it is still new.
  absl::StatusOr<std::vector<dedup::ContentVerdict>> later = local_dedup_->Check(
      {dedup::ContentQuery{.url = "http://a.test/other",
                           .content_key = fingerprint::ComputeContentKey("<p>new</p>")}});
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_EQ((*later)[0].verdict, dedup::Verdict::kUnique);
}

// A mapping crawl (fingerprints off): no SimHash, no duplicate detection; a copy's links are
// followed and it is archived in full.
TEST_F(PageProcessorTest, WithoutFingerprintsCopiesAreOrdinaryPages) {
  const std::string head = OkHead("text/html", kArticle);
  options_.fingerprints = false;
  Processor();
  ProcessedPage first = ProcessOne(Page("http://a.test/original", head, kArticle));
  EXPECT_EQ(first.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_EQ(first.outcome.content_fingerprint, 0u);
  FetchedPage copy_page = Page("http://a.test/copy", head, kArticle);
  ProcessedPage copy = ProcessOne(std::move(copy_page));
  EXPECT_EQ(copy.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(CanonicalUrls(copy.outlinks), ElementsAre("http://a.test/next"));
  EXPECT_EQ(Find(Records(), "response", "http://a.test/copy").size(), 1u);
}

TEST_F(PageProcessorTest, Warc_6_7_2_ExactDuplicateWithinOneBatchRefersToTheFirst) {
  const std::string head = OkHead("text/html", kArticle);
  Processor();
  std::vector<FetchedPage> batch;
  batch.push_back(Page("http://a.test/one", head, kArticle, 0, 1));
  batch.push_back(Page("http://a.test/two", head, kArticle, 0, 2));
  std::vector<ProcessedPage> out = processor_->Process(std::move(batch));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].outcome.outcome, OutcomeClass::kFetched);
  EXPECT_EQ(out[0].outcome.lease_id, 1u);
  EXPECT_EQ(out[1].outcome.outcome, OutcomeClass::kDuplicate);
  EXPECT_EQ(out[1].outcome.lease_id, 2u);

  std::vector<warc::ParsedRecord> records = Records();
  std::vector<warc::ParsedRecord> original = Find(records, "response", "http://a.test/one");
  std::vector<warc::ParsedRecord> revisit = Find(records, "revisit", "http://a.test/two");
  ASSERT_EQ(original.size(), 1u);
  ASSERT_EQ(revisit.size(), 1u);
  EXPECT_EQ(revisit[0].Field("WARC-Refers-To"), original[0].Field("WARC-Record-ID"));
}

// The same URL with unchanged content is a re-visit, not a duplicate: the page stays a page of
// the collection and its links are still followed.
TEST_F(PageProcessorTest, SameUrlUnchangedIsNotADuplicate) {
  const std::string head = OkHead("text/html", kArticle);
  Processor();
  ProcessOne(Page("http://a.test/stable", head, kArticle));
  ProcessedPage again = ProcessOne(Page("http://a.test/stable", head, kArticle));
  EXPECT_EQ(again.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(CanonicalUrls(again.outlinks), ElementsAre("http://a.test/next"));
  EXPECT_THAT(again.event.detail, ::testing::Not(HasSubstr("duplicate")));
}

// An empty payload carries no content to be a copy of: two unrelated URLs answering with an
// empty body (204, an empty page) are not duplicates of each other, and an empty page is not
// archived as a revisit pointing at an unrelated URL.
TEST_F(PageProcessorTest, EmptyBodiesAreNotDuplicatesOfEachOther) {
  Processor();
  ProcessedPage first =
      ProcessOne(Page("http://a.test/empty-1", Head("HTTP/1.1 204 No Content", {}), ""));
  ProcessedPage second = ProcessOne(
      Page("http://a.test/empty-2", OkHead("text/html", ""), ""));
  EXPECT_EQ(first.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_EQ(second.outcome.outcome, OutcomeClass::kFetched) << second.event.detail;
  std::vector<warc::ParsedRecord> records = Records();
  EXPECT_EQ(Find(records, "response", "http://a.test/empty-2").size(), 1u);
}

TEST_F(PageProcessorTest, NearDuplicateIsADuplicateButArchivedInFull) {
  dedup::ContentVerdict near;
  near.verdict = dedup::Verdict::kNearDuplicate;
  near.original = dedup::Original{.url = "http://a.test/first",
                                  .fetch_time = kFetchTime - absl::Hours(1),
                                  .warc_record_id = "<urn:uuid:00000000-0000-4000-8000-000000000001>",
                                  .payload_digest = "sha1:AAAA"};
  near.distance_bits = 2;
  FakeDedupClient fake(near);
  const std::string head = OkHead("text/html", kArticle);
  Processor(&fake);
  ProcessedPage p = ProcessOne(Page("http://a.test/similar", head, kArticle));
  EXPECT_EQ(fake.calls, 1);
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kDuplicate);
  EXPECT_THAT(p.event.detail, HasSubstr("near duplicate of http://a.test/first"));
  EXPECT_THAT(p.outlinks, IsEmpty());

  std::vector<warc::ParsedRecord> records = Records();
  std::vector<warc::ParsedRecord> response = Find(records, "response", "http://a.test/similar");
  ASSERT_EQ(response.size(), 1u);
  EXPECT_EQ(response[0].block, head + kArticle);
  EXPECT_EQ(response[0].Field("WARC-Refers-To"), "");
  EXPECT_THAT(Find(records, "revisit", "http://a.test/similar"), IsEmpty());
}

TEST_F(PageProcessorTest, DedupIsAskedOncePerBatchWithTheRecordIdsThatGetWritten) {
  FakeDedupClient fake(dedup::ContentVerdict{});
  Processor(&fake);
  std::vector<FetchedPage> batch;
  for (int i = 0; i < 3; ++i) {
    const std::string body = absl::StrCat("page ", i);
    batch.push_back(Page(absl::StrCat("http://a.test/", i), OkHead("text/plain", body), body, 0,
                         static_cast<uint64_t>(i + 1)));
  }
  batch.push_back(TransportFailure("http://a.test/failed", TransportError::kTimeout));
  processor_->Process(std::move(batch));
  EXPECT_EQ(fake.calls, 1);
  ASSERT_EQ(fake.last_queries.size(), 3u);  // no content, no query

  std::vector<warc::ParsedRecord> records = Records();
  for (const dedup::ContentQuery& q : fake.last_queries) {
    SCOPED_TRACE(q.url);
    std::vector<warc::ParsedRecord> response = Find(records, "response", q.url);
    ASSERT_EQ(response.size(), 1u);
    EXPECT_EQ(response[0].Field("WARC-Record-ID"), q.warc_record_id);
    EXPECT_EQ(response[0].Field("WARC-Payload-Digest"), q.payload_digest);
    EXPECT_EQ(q.fetch_time, kFetchTime);
  }
}

// A dedup outage must not lose pages: they are recorded as unique, archived in full, and their
// links followed.
TEST_F(PageProcessorTest, DedupFailureKeepsPagesAsUnique) {
  FakeDedupClient failing(absl::UnavailableError("dedup down"));
  const std::string head = OkHead("text/html", kArticle);
  Processor(&failing);
  ProcessedPage p = ProcessOne(Page("http://a.test/during-outage", head, kArticle));
  EXPECT_EQ(failing.calls, 1);
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(CanonicalUrls(p.outlinks), ElementsAre("http://a.test/next"));
  std::vector<warc::ParsedRecord> records = Records();
  EXPECT_EQ(Find(records, "response", "http://a.test/during-outage").size(), 1u);
}

TEST_F(PageProcessorTest, WithoutDedupEveryPageIsArchived) {
  const std::string head = OkHead("text/html", kArticle);
  Processor(nullptr, /*use_dedup=*/false);
  ProcessOne(Page("http://a.test/x1", head, kArticle));
  ProcessedPage second = ProcessOne(Page("http://a.test/x2", head, kArticle));
  EXPECT_EQ(second.outcome.outcome, OutcomeClass::kFetched);
  std::vector<warc::ParsedRecord> records = Records();
  EXPECT_EQ(Find(records, "response", "http://a.test/x1").size(), 1u);
  EXPECT_EQ(Find(records, "response", "http://a.test/x2").size(), 1u);
}

// ------------------------------------------------------------------------ store filter, observer

TEST_F(PageProcessorTest, StoreContentTypesFiltersArchivedPagesBySniffedType) {
  options_.store_content_types = {"text/html"};
  Processor();
  const std::string html = "<html><body>hello</body></html>";
  const std::string text = "plain words";
  ProcessedPage p_html = ProcessOne(Page("http://a.test/h", OkHead("text/html", html), html));
  ProcessedPage p_text = ProcessOne(Page("http://a.test/t", OkHead("text/plain", text), text));
  // Declared text/plain, but sniffing is only for unknown types: still text/plain.
  EXPECT_EQ(p_html.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_EQ(p_text.outcome.outcome, OutcomeClass::kFetched);
  std::vector<warc::ParsedRecord> records = Records();
  EXPECT_THAT(Types(records, "http://a.test/h"), UnorderedElementsAre("request", "response"));
  EXPECT_THAT(Types(records, "http://a.test/t"), IsEmpty());
}

// WARC 1.1 §6.7.2: a revisit record stands for a payload stored elsewhere in the archive. When
// the first copy was not archived (here: its declared type is filtered out by
// store_content_types), a later copy of the same bytes must not become a revisit of a record
// that does not exist: the payload would be in no record at all.
TEST_F(PageProcessorTest, Warc_6_7_2_RevisitsOnlyReferToRecordsInTheArchive) {
  options_.store_content_types = {"text/html"};
  Processor();
  const std::string body = "<html><body><p>same bytes, two declared types</p></body></html>";
  ProcessOne(Page("http://a.test/as-text", OkHead("text/plain", body), body));
  ProcessedPage html = ProcessOne(Page("http://a.test/as-html", OkHead("text/html", body), body));
  EXPECT_EQ(html.event.content_type, "text/html");

  std::vector<warc::ParsedRecord> records = Records();
  std::set<std::string> ids;
  for (const warc::ParsedRecord& r : records) ids.insert(r.Field("WARC-Record-ID"));
  for (const warc::ParsedRecord& r : records) {
    if (r.Field("WARC-Type") != "revisit") continue;
    const std::string refers_to = r.Field("WARC-Refers-To");
    if (refers_to.empty()) continue;
    EXPECT_EQ(ids.count(refers_to), 1u)
        << r.Field("WARC-Target-URI") << " is a revisit of " << refers_to
        << ", which is not in the archive";
  }
  // The HTML copy's payload is in the archive one way or another.
  EXPECT_EQ(Find(records, "response", "http://a.test/as-html").size() +
                Find(records, "response", "http://a.test/as-text").size(),
            1u);
}

TEST_F(PageProcessorTest, ObserverGetsOneEventPerPage) {
  Processor();
  std::vector<FetchedPage> batch;
  batch.push_back(Page("http://a.test/ok", OkHead("text/html", kLinkPage), kLinkPage, 0, 1));
  batch.push_back(Page("http://a.test/gone", Head("HTTP/1.1 410 Gone", {}), "", 0, 2));
  batch.push_back(TransportFailure("http://a.test/slow", TransportError::kTimeout));
  processor_->Process(std::move(batch));
  std::vector<FetchEvent> events = observer_.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].url, "http://a.test/ok");
  EXPECT_EQ(events[0].outcome, OutcomeClass::kFetched);
  EXPECT_EQ(events[0].http_status, 200);
  EXPECT_EQ(events[0].bytes, sizeof(kLinkPage) - 1);
  EXPECT_EQ(events[0].outlinks, 5u);
  EXPECT_EQ(events[0].duration, absl::Milliseconds(12));
  EXPECT_EQ(events[0].time, kFetchTime);
  EXPECT_FALSE(events[0].robots_txt);
  EXPECT_EQ(events[1].url, "http://a.test/gone");
  EXPECT_EQ(events[1].outcome, OutcomeClass::kHttpError);
  EXPECT_EQ(events[1].http_status, 410);
  EXPECT_EQ(events[2].url, "http://a.test/slow");
  EXPECT_EQ(events[2].outcome, OutcomeClass::kNetworkError);
  EXPECT_EQ(events[2].http_status, 0);
}

TEST_F(PageProcessorTest, EmptyBatchIsFine) {
  Processor();
  EXPECT_THAT(processor_->Process({}), IsEmpty());
  EXPECT_THAT(observer_.events(), IsEmpty());
}

// ----------------------------------------------------------------------------------- rendering

// Stands in for the browser: answers every render with a fixed DOM and navigations, and records
// what it was asked to render.
class FakeRenderer final : public PageRenderer {
 public:
  browser::RenderResult Render(const std::string& url, const http::ResponseHead& head,
                               std::string_view decoded_body) override {
    absl::MutexLock lock(&mu_);
    rendered_.push_back(url);
    EXPECT_EQ(head.status(), 200);
    last_body_ = std::string(decoded_body);
    return answer_;
  }
  void Answer(browser::RenderResult answer) {
    absl::MutexLock lock(&mu_);
    answer_ = std::move(answer);
  }
  std::vector<std::string> rendered() {
    absl::MutexLock lock(&mu_);
    return rendered_;
  }

 private:
  absl::Mutex mu_;
  browser::RenderResult answer_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> rendered_ ABSL_GUARDED_BY(mu_);
  std::string last_body_ ABSL_GUARDED_BY(mu_);
};

browser::RenderResult Rendered(std::string dom, std::string base,
                               std::vector<std::string> navigations = {}) {
  return browser::RenderResult{.outcome = browser::RenderOutcome::kRendered,
                               .dom = std::move(dom),
                               .final_url = base,
                               .base_url = base,
                               .navigations = std::move(navigations)};
}

// The rendered DOM's links and the page's attempted navigations join the static links (each
// once, scoped as any link), the DOM is archived beside the response naming it, and the
// fingerprints stay those of the static HTML.
TEST_F(PageProcessorTest, RenderingAddsTheLinksScriptsBuiltAndArchivesTheDom) {
  const std::string body =
      "<html><body><a href='/static'>s</a><div id=m></div><script src='/app.js'></script>"
      "</body></html>";
  FakeRenderer renderer;
  renderer.Answer(Rendered(
      "<html><body><a href=\"/static\">s</a><div id=m><a href=\"built\">b</a>"
      "<a href=\"http://other.test/out\">o</a></div></body></html>",
      "http://a.test/app/view", {"http://a.test/went", "http://a.test/static"}));
  options_.render = RenderMode::kAlways;
  options_.renderer = &renderer;
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/", OkHead("text/html", body), body));
  EXPECT_EQ(p.outcome.outcome, OutcomeClass::kFetched);
  EXPECT_THAT(renderer.rendered(), ElementsAre("http://a.test/"));
  // "built" resolves against the document's base after the router moved it; other.test is out
  // of scope.
  EXPECT_THAT(CanonicalUrls(p.outlinks),
              ElementsAre("http://a.test/static", "http://a.test/app/built", "http://a.test/went"));
  EXPECT_THAT(p.event.detail, HasSubstr("rendered: rendered, +3 links"));
  EXPECT_EQ(counters_.Snapshot().pages_rendered, 1u);
  EXPECT_EQ(counters_.Snapshot().rendered_links, 3u);
  EXPECT_EQ(counters_.Snapshot().renders_cut, 0u);

  const std::vector<warc::ParsedRecord> records = Records();
  const std::vector<warc::ParsedRecord> response = Find(records, "response", "http://a.test/");
  ASSERT_EQ(response.size(), 1u);
  const std::vector<warc::ParsedRecord> dom = Find(records, "resource", "urn:rendered:http://a.test/");
  ASSERT_EQ(dom.size(), 1u);
  EXPECT_EQ(dom[0].Field("WARC-Refers-To"), response[0].Field("WARC-Record-ID"));
  EXPECT_EQ(dom[0].Field("WARC-Refers-To-Target-URI"), "http://a.test/");
  EXPECT_EQ(dom[0].Field("WARC-Render-Outcome"), "rendered");
  EXPECT_THAT(dom[0].Field("Content-Type"), StartsWith("text/html"));
  EXPECT_THAT(dom[0].block, HasSubstr("href=\"built\""));
}

// A render cut by its limit still gives what its DOM had; the cut is counted and said.
TEST_F(PageProcessorTest, ACutRenderIsCountedAndItsDomStillUsed) {
  const std::string body = "<html><body><script>for(;;);</script></body></html>";
  FakeRenderer renderer;
  browser::RenderResult cut = Rendered("<a href=\"/early\">e</a>", "http://a.test/");
  cut.outcome = browser::RenderOutcome::kTimeLimit;
  renderer.Answer(cut);
  options_.render = RenderMode::kAlways;
  options_.renderer = &renderer;
  Processor();
  ProcessedPage p = ProcessOne(Page("http://a.test/", OkHead("text/html", body), body));
  EXPECT_THAT(CanonicalUrls(p.outlinks), ElementsAre("http://a.test/early"));
  EXPECT_THAT(p.event.detail, HasSubstr("rendered: time_limit, +1 links"));
  EXPECT_EQ(counters_.Snapshot().renders_cut, 1u);
}

// With render never (the default) the renderer is never asked, whatever it is given; non-HTML
// and error pages are never rendered.
TEST_F(PageProcessorTest, OnlyHtmlPagesFetchedWithSuccessAreRendered) {
  FakeRenderer renderer;
  renderer.Answer(Rendered("<a href=\"/x\">x</a>", "http://a.test/"));
  options_.renderer = &renderer;
  Processor();
  const std::string html = "<script></script><a href='/a'>a</a>";
  ProcessOne(Page("http://a.test/never", OkHead("text/html", html), html));
  EXPECT_THAT(renderer.rendered(), IsEmpty());

  options_.render = RenderMode::kAlways;
  Processor();
  ProcessOne(Page("http://a.test/data.json", OkHead("application/json", "{}"), "{}"));
  ProcessOne(Page("http://a.test/gone", "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n",
                  html));
  EXPECT_THAT(renderer.rendered(), IsEmpty());
  ProcessOne(Page("http://a.test/yes", OkHead("text/html", html), html));
  EXPECT_THAT(renderer.rendered(), ElementsAre("http://a.test/yes"));
}

// auto: pages without scripts are not rendered; a host whose first rendered pages gained no
// links stops being rendered; one whose pages gained links goes on being rendered.
TEST_F(PageProcessorTest, AutoRendersHostsWhereRenderingFindsLinks) {
  FakeRenderer renderer;
  options_.render = RenderMode::kAuto;
  options_.render_decider.probe_pages = 2;
  options_.render_decider.recheck_every = 1000;
  options_.renderer = &renderer;
  scope_options_.allowed_host_suffixes = {"a.test", "b.test"};
  Processor();
  const std::string plain = "<a href='/p'>p</a>";
  const std::string scripted = "<a href='/p'>p</a><script src='/app.js'></script>";
  ProcessOne(Page("http://a.test/plain", OkHead("text/html", plain), plain));
  EXPECT_THAT(renderer.rendered(), IsEmpty());

  // a.test: rendering finds nothing new.
  renderer.Answer(Rendered("<a href=\"/p\">p</a>", "http://a.test/"));
  for (int i = 0; i < 5; ++i) {
    const std::string url = absl::StrCat("http://a.test/s", i);
    ProcessOne(Page(url, OkHead("text/html", scripted), scripted));
  }
  EXPECT_EQ(renderer.rendered().size(), 2u);  // the probes only

  // b.test: rendering finds links every time.
  renderer.Answer(Rendered("<a href=\"/p\">p</a><a href=\"/only-scripted\">s</a>", "http://b.test/"));
  for (int i = 0; i < 5; ++i) {
    const std::string url = absl::StrCat("http://b.test/s", i);
    ProcessOne(Page(url, OkHead("text/html", scripted), scripted));
  }
  EXPECT_EQ(renderer.rendered().size(), 2u + 5u);
}

}  // namespace
}  // namespace crawler::fetcher
