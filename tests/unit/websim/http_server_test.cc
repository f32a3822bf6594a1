// The server in process on an ephemeral loopback port, driven over plain sockets. Every wait is
// a poll() with a deadline; nothing sleeps.
#include "tools/websim/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tools/websim/ground_truth.h"
#include "tools/websim/request_log.h"
#include "tools/websim/site_model.h"
#include "tools/websim/websim_handler.h"

namespace crawler::websim {
namespace {

constexpr int kIoTimeoutMs = 5000;

struct Response {
  int status = 0;
  std::string head;  // status line and headers
  std::string body;
  std::optional<std::string> Header(absl::string_view name) const {
    for (absl::string_view line : absl::StrSplit(head, "\r\n")) {
      const size_t colon = line.find(':');
      if (colon != absl::string_view::npos &&
          absl::EqualsIgnoreCase(line.substr(0, colon), name)) {
        return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
      }
    }
    return std::nullopt;
  }
};

class Client {
 public:
  explicit Client(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() { close(fd_); }
  bool connected() const { return connected_; }

  void Send(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      ASSERT_GT(n, 0);
      sent += static_cast<size_t>(n);
    }
  }

  // Reads one response; `head_request` responses have no body whatever Content-Length says.
  std::optional<Response> Read(bool head_request = false) {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return std::nullopt;
    }
    Response r;
    r.head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    std::vector<std::string> status_line = absl::StrSplit(r.head, absl::MaxSplits(' ', 2));
    if (status_line.size() < 2 || !absl::SimpleAtoi(status_line[1], &r.status)) return std::nullopt;
    size_t length = 0;
    std::optional<std::string> cl = r.Header("Content-Length");
    // RFC 9110 §15.4.5: a 304 has no content; websim sends no Content-Length with it.
    if (r.status == 304) {
      if (cl) return std::nullopt;
      return r;
    }
    if (!cl || !absl::SimpleAtoi(*cl, &length)) return std::nullopt;
    if (head_request) length = 0;
    while (buffer_.size() < length) {
      if (!Fill()) return std::nullopt;
    }
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return r;
  }

  // True if the server closes the connection (EOF) with no further bytes within the timeout.
  bool ClosedByPeer() {
    char c;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, kIoTimeoutMs) != 1) return false;
    return recv(fd_, &c, 1, 0) == 0 && buffer_.empty();
  }

 private:
  bool Fill() {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, kIoTimeoutMs) != 1) return false;
    char buf[65536];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

std::string Get(absl::string_view host, absl::string_view target,
                absl::string_view extra_headers = "") {
  return absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: ", host, "\r\nUser-Agent: test\r\n",
                      extra_headers, "\r\n");
}

class WebsimHttpServerTest : public testing::Test {
 protected:
  void StartServer(WebsimOptions options, int threads = 1) {
    absl::StatusOr<SiteModel> model = SiteModel::Create(std::move(options));
    ASSERT_TRUE(model.ok()) << model.status();
    model_.emplace(*std::move(model));
    log_path_ = absl::StrCat(testing::TempDir(), "/websim_log_",
                             testing::UnitTest::GetInstance()->current_test_info()->name(), ".tsv");
    absl::StatusOr<std::unique_ptr<RequestLog>> log = RequestLog::Open(log_path_);
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = *std::move(log);
    handler_ = std::make_unique<WebsimHandler>(&*model_, MonotonicNowNs());
    HttpServerOptions server_options;
    server_options.threads = threads;
    server_options.max_header_bytes = 4096;
    absl::StatusOr<std::unique_ptr<HttpServer>> server =
        HttpServer::Start(server_options, handler_.get(), log_.get());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ASSERT_GT(server_->port(), 0);
  }

  static WebsimOptions Small() {
    WebsimOptions options;
    options.num_hosts = 4;
    options.pages_per_host = 30;
    return options;
  }

  std::vector<std::vector<std::string>> StopAndReadLog() {
    server_->Stop();
    std::ifstream in(log_path_);
    std::vector<std::vector<std::string>> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(absl::StrSplit(line, '\t'));
    return lines;
  }

  std::string Page(int host, int page) const {
    return model_->RenderPage({host, page}, absl::ZeroDuration());
  }

  std::optional<SiteModel> model_;
  std::string log_path_;
  std::unique_ptr<RequestLog> log_;
  std::unique_ptr<WebsimHandler> handler_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(WebsimHttpServerTest, KeepAliveServesPagesRobotsAndSitemap) {
  StartServer(Small());
  Client c(server_->port());
  ASSERT_TRUE(c.connected());
  for (int page : {0, 5, 17}) {
    c.Send(Get("h1.websim.test", model_->PathOf({1, page})));
    std::optional<Response> r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, Page(1, page));
    EXPECT_EQ(r->Header("Content-Type"), "text/html; charset=utf-8");
    EXPECT_FALSE(r->Header("Connection").has_value());
  }
  c.Send(Get("H2.WEBSIM.TEST:8080", "/robots.txt"));
  std::optional<Response> robots = c.Read();
  ASSERT_TRUE(robots.has_value());
  EXPECT_EQ(robots->body, model_->RenderRobotsTxt(2));
  c.Send(Get("h2.websim.test", "/sitemap.xml"));
  std::optional<Response> sitemap = c.Read();
  ASSERT_TRUE(sitemap.has_value());
  EXPECT_EQ(sitemap->body, model_->RenderSitemap(2));
  c.Send(Get("h2.websim.test", "/no-such-page"));
  std::optional<Response> missing = c.Read();
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->status, 404);
  c.Send(Get("www.example.com", "/"));
  std::optional<Response> unknown = c.Read();
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->status, 404);
}

TEST_F(WebsimHttpServerTest, PipelinedRequestsAnsweredInOrder) {
  StartServer(Small());
  Client c(server_->port());
  std::string batch;
  for (int page = 0; page < 20; ++page) batch += Get("h0.websim.test", model_->PathOf({0, page}));
  c.Send(batch);
  for (int page = 0; page < 20; ++page) {
    std::optional<Response> r = c.Read();
    ASSERT_TRUE(r.has_value()) << page;
    EXPECT_EQ(r->body, Page(0, page)) << page;
  }
}

TEST_F(WebsimHttpServerTest, RequestSplitAcrossWrites) {
  StartServer(Small());
  Client c(server_->port());
  const std::string request = Get("h3.websim.test", "/");
  for (char ch : request) c.Send(std::string(1, ch));
  std::optional<Response> r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->body, Page(3, 0));
}

TEST_F(WebsimHttpServerTest, Rfc9110_9_3_2_HeadHasLengthButNoBody) {
  StartServer(Small());
  Client c(server_->port());
  c.Send("HEAD / HTTP/1.1\r\nHost: h1.websim.test\r\n\r\n");
  std::optional<Response> head = c.Read(/*head_request=*/true);
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("Content-Length"), absl::StrCat(Page(1, 0).size()));
  // Had a body been sent, it would now be read as the next response.
  c.Send(Get("h1.websim.test", "/robots.txt"));
  std::optional<Response> next = c.Read();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->body, model_->RenderRobotsTxt(1));
}

TEST_F(WebsimHttpServerTest, Rfc9112_9_6_ConnectionCloseHonoured) {
  StartServer(Small());
  Client c(server_->port());
  c.Send(Get("h1.websim.test", "/", "Connection: close\r\n") + Get("h1.websim.test", "/"));
  std::optional<Response> r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->Header("Connection"), "close");
  EXPECT_TRUE(c.ClosedByPeer());  // the second request is never answered
}

TEST_F(WebsimHttpServerTest, Http10ClosesUnlessKeepAlive) {
  StartServer(Small());
  {
    Client c(server_->port());
    c.Send("GET / HTTP/1.0\r\nHost: h0.websim.test\r\nConnection: keep-alive\r\n\r\n");
    std::optional<Response> r = c.Read();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->Header("Connection"), "keep-alive");
    c.Send("GET / HTTP/1.0\r\nHost: h0.websim.test\r\n\r\n");
    ASSERT_TRUE(c.Read().has_value());
    EXPECT_TRUE(c.ClosedByPeer());
  }
}

TEST_F(WebsimHttpServerTest, MalformedRequestsGetErrorAndClose) {
  StartServer(Small());
  const std::pair<std::string, int> cases[] = {
      {"GET / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: h1.websim.test\r\nX: " + std::string(5000, 'x') + "\r\n\r\n", 431},
      {"GET / HTTP/1.1\r\nHost: h1.websim.test\r\nX: " + std::string(5000, 'x'), 431},
      {"GET / HTTP/3.0\r\nHost: h1.websim.test\r\n\r\n", 505},
      {std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11), 400},  // TLS hello
  };
  for (const auto& [request, status] : cases) {
    Client c(server_->port());
    c.Send(request);
    std::optional<Response> r = c.Read();
    ASSERT_TRUE(r.has_value()) << status;
    EXPECT_EQ(r->status, status);
    EXPECT_EQ(r->Header("Connection"), "close");
    EXPECT_TRUE(c.ClosedByPeer()) << status;
  }
}

TEST_F(WebsimHttpServerTest, OtherMethodsGet405AndKeepTheConnection) {
  StartServer(Small());
  Client c(server_->port());
  c.Send("POST / HTTP/1.1\r\nHost: h0.websim.test\r\nContent-Length: 3\r\n\r\nabc" +
         Get("h0.websim.test", "/"));
  std::optional<Response> post = c.Read();
  ASSERT_TRUE(post.has_value());
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->Header("Allow"), "GET, HEAD");
  std::optional<Response> get = c.Read();
  ASSERT_TRUE(get.has_value());
  EXPECT_EQ(get->body, Page(0, 0));
}

TEST_F(WebsimHttpServerTest, LatencyDelaysResponsesWithoutReordering) {
  WebsimOptions options = Small();
  options.latency_min = absl::Milliseconds(20);
  options.latency_max = absl::Milliseconds(300);
  StartServer(options);
  // The slowest and the fastest host.
  int slow = 0, fast = 0;
  for (int h = 1; h < 4; ++h) {
    if (model_->LatencyOf(h) > model_->LatencyOf(slow)) slow = h;
    if (model_->LatencyOf(h) < model_->LatencyOf(fast)) fast = h;
  }
  ASSERT_GT(model_->LatencyOf(slow), model_->LatencyOf(fast));
  Client c(server_->port());
  const auto start = std::chrono::steady_clock::now();
  c.Send(Get(model_->HostName(slow), "/") + Get(model_->HostName(fast), "/"));
  std::optional<Response> first = c.Read();
  const auto first_at = std::chrono::steady_clock::now();
  std::optional<Response> second = c.Read();
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ(first->body, Page(slow, 0));
  EXPECT_EQ(second->body, Page(fast, 0));
  EXPECT_GE(first_at - start,
            std::chrono::microseconds(absl::ToInt64Microseconds(model_->LatencyOf(slow))));
  // A second connection to the fast host is not held up by the slow one.
  Client d(server_->port());
  const auto d_start = std::chrono::steady_clock::now();
  c.Send(Get(model_->HostName(slow), "/"));
  d.Send(Get(model_->HostName(fast), "/"));
  ASSERT_TRUE(d.Read().has_value());
  const auto fast_took = std::chrono::steady_clock::now() - d_start;
  ASSERT_TRUE(c.Read().has_value());
  const auto slow_took = std::chrono::steady_clock::now() - d_start;
  EXPECT_LT(fast_took, slow_took);
}

TEST_F(WebsimHttpServerTest, TruthAndSeedsEndpoints) {
  StartServer(Small());
  Client c(server_->port());
  c.Send(Get("anything", "/__websim/truth") + Get("h0.websim.test", "/__websim/seeds"));
  std::optional<Response> truth = c.Read();
  std::optional<Response> seeds = c.Read();
  ASSERT_TRUE(truth.has_value() && seeds.has_value());
  EXPECT_EQ(truth->body, FormatGroundTruth(*model_, ComputeGroundTruth(*model_)));
  EXPECT_EQ(seeds->body, FormatSeeds(*model_));
}

TEST_F(WebsimHttpServerTest, ManyConnectionsOnTwoThreads) {
  StartServer(Small(), /*threads=*/2);
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 16; ++i) clients.push_back(std::make_unique<Client>(server_->port()));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 16; ++i) clients[i]->Send(Get("h1.websim.test", model_->PathOf({1, i})));
    for (int i = 0; i < 16; ++i) {
      std::optional<Response> r = clients[i]->Read();
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(r->body, Page(1, i));
    }
  }
  // Connection ids in the log distinguish the 16 connections.
  std::set<std::string> ids;
  for (const auto& fields : StopAndReadLog()) ids.insert(fields.at(5));
  EXPECT_EQ(ids.size(), 16u);
}

TEST_F(WebsimHttpServerTest, LogHasOneLinePerRequestWithMonotonicTime) {
  StartServer(Small());
  const int64_t before = MonotonicNowNs();
  const int64_t wall_before = RealtimeNowNs();
  {
    Client c(server_->port());
    c.Send(Get("h2.websim.test", "/robots.txt") + Get("h2.websim.test", model_->PathOf({2, 3})) +
           "HEAD / HTTP/1.1\r\nHost: h2.websim.test\r\nX-Crawler-Partition: 3\r\n\r\n" +
           Get("h2.websim.test", "/missing"));
    ASSERT_TRUE(c.Read().has_value());
    ASSERT_TRUE(c.Read().has_value());
    ASSERT_TRUE(c.Read(true).has_value());
    ASSERT_TRUE(c.Read().has_value());
    Client bad(server_->port());
    bad.Send("GET / HTTP/1.1\r\n\r\n");
    ASSERT_TRUE(bad.Read().has_value());
  }
  const int64_t after = MonotonicNowNs();
  const int64_t wall_after = RealtimeNowNs();
  const std::vector<std::vector<std::string>> lines = StopAndReadLog();
  ASSERT_EQ(lines.size(), 5u);
  int64_t previous = 0;
  for (const auto& f : lines) {
    ASSERT_EQ(f.size(), 9u);
    int64_t ns = 0;
    ASSERT_TRUE(absl::SimpleAtoi(f[0], &ns));
    EXPECT_GE(ns, before);
    EXPECT_LE(ns, after);
    EXPECT_GE(ns, previous);
    previous = ns;
    // The same instant on the wall clock (a millisecond either way for a wall clock stepped by
    // its keeper meanwhile).
    int64_t wall = 0;
    ASSERT_TRUE(absl::SimpleAtoi(f[8], &wall));
    EXPECT_GE(wall, wall_before - 1'000'000);
    EXPECT_LE(wall, wall_after + 1'000'000);
    EXPECT_NEAR(static_cast<double>(wall - ns), static_cast<double>(wall_before - before), 1e6);
  }
  // The fields in order: time, host, target, status, body bytes, connection, method, partition,
  // wall time.
  EXPECT_EQ(lines[0][1], "h2.websim.test");
  EXPECT_EQ(lines[0][2], "/robots.txt");
  EXPECT_EQ(lines[0][3], "200");
  EXPECT_EQ(lines[0][4], absl::StrCat(model_->RenderRobotsTxt(2).size()));
  EXPECT_EQ(lines[0][6], "GET");
  EXPECT_EQ(lines[1][2], model_->PathOf({2, 3}));
  EXPECT_EQ(lines[1][4], absl::StrCat(Page(2, 3).size()));
  EXPECT_EQ(lines[2][4], "0");
  EXPECT_EQ(lines[2][6], "HEAD");
  EXPECT_EQ(lines[2][7], "3");
  EXPECT_EQ(lines[1][7], "-");
  EXPECT_EQ(lines[3][3], "404");
  EXPECT_EQ(lines[0][5], lines[3][5]);  // one connection
  EXPECT_EQ(lines[4][1], "-");
  EXPECT_EQ(lines[4][2], "-");
  EXPECT_EQ(lines[4][3], "400");
  EXPECT_NE(lines[4][5], lines[0][5]);
}

class EchoHandler : public HttpHandler {
 public:
  HttpResponse Handle(const HttpRequest& request) override {
    HttpResponse response;
    response.body = request.host + request.target;
    return response;
  }
};

TEST_F(WebsimHttpServerTest, Rfc9110_13_1_2_ConditionalGetOverTheWire) {
  WebsimOptions options = Small();
  // Rate 0: the page stays at version 0 whatever the wall clock does, so the test is exact.
  options.change_rates.kind = ChangeRates::Kind::kFixed;
  options.change_rates.rate_per_day = 0;
  options.time_scale = 1;
  StartServer(options);
  Client client(server_->port());
  ASSERT_TRUE(client.connected());
  client.Send(Get("h1.websim.test", "/"));
  std::optional<Response> full = client.Read();
  ASSERT_TRUE(full);
  EXPECT_EQ(full->status, 200);
  EXPECT_EQ(full->Header("ETag"), "\"v0\"");
  EXPECT_EQ(full->Header("Last-Modified"), "Sat, 01 Jan 2000 00:00:00 GMT");
  EXPECT_TRUE(absl::StrContains(full->body, "websim-noise"));

  // 304 without body or Content-Length, then the same connection serves on.
  client.Send(Get("h1.websim.test", "/", "If-None-Match: \"v0\"\r\n"));
  std::optional<Response> not_modified = client.Read();
  ASSERT_TRUE(not_modified);
  EXPECT_EQ(not_modified->status, 304);
  EXPECT_EQ(not_modified->Header("ETag"), "\"v0\"");
  client.Send(Get("h1.websim.test", "/",
                  "If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT\r\n"));
  std::optional<Response> since = client.Read();
  ASSERT_TRUE(since);
  EXPECT_EQ(since->status, 304);
  client.Send(Get("h1.websim.test", "/", "If-None-Match: \"v1\"\r\n"));
  std::optional<Response> changed = client.Read();
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->status, 200);

  client.Send(Get("h1.websim.test", "/__websim/changes"));
  std::optional<Response> log = client.Read();
  ASSERT_TRUE(log);
  EXPECT_TRUE(absl::StartsWith(log->body, "# websim change log v1\n"));
  EXPECT_TRUE(absl::StrContains(log->body, "\nhttp://h1.websim.test/\t0\t0\t\n"));
  client.Send(Get("h1.websim.test", "/__websim/rates"));
  std::optional<Response> rates = client.Read();
  ASSERT_TRUE(rates);
  EXPECT_TRUE(absl::StartsWith(rates->body, "http://h0.websim.test/\t0\n"));

  std::vector<std::vector<std::string>> lines = StopAndReadLog();
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1][3], "304");
  EXPECT_EQ(lines[1][4], "0");
}

TEST(WebsimHttpServer, RejectsBadOptions) {
  EchoHandler handler;
  HttpServerOptions options;
  EXPECT_TRUE(absl::IsInvalidArgument(HttpServer::Start(options, nullptr, nullptr).status()));
  options.threads = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(HttpServer::Start(options, &handler, nullptr).status()));
  options.threads = 1;
  options.address = "localhost";
  EXPECT_TRUE(absl::IsInvalidArgument(HttpServer::Start(options, &handler, nullptr).status()));
  options.address = "127.0.0.1";
  absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(options, &handler, nullptr);
  ASSERT_TRUE(server.ok()) << server.status();
  // Without a log, and with a handler that is not websim's, the server still answers.
  Client c((*server)->port());
  c.Send(Get("Some.Host", "/x?y"));
  std::optional<Response> r = c.Read();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->body, "some.host/x?y");
}

}  // namespace
}  // namespace crawler::websim
