#include "services/fetcher/http_client.h"

#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/net/address_policy.h"
#include "tests/unit/fetcher/test_http_server.h"

namespace crawler::fetcher {
namespace {

using ::crawler::testing::TestHttpServer;
using ::crawler::testing::TestResponse;

std::string Ok(const std::string& body, const std::string& extra = "") {
  return absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ", body.size(), "\r\n", extra, "\r\n",
                      body);
}

std::unique_ptr<HttpClient> Client(HttpClientOptions options = {},
                                   std::vector<std::string> allow = {"127.0.0.0/8"}) {
  absl::StatusOr<net::AddressPolicy> guard = net::AddressPolicy::Create(allow);
  EXPECT_TRUE(guard.ok());
  absl::StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Create(options, *guard);
  EXPECT_TRUE(client.ok()) << client.status();
  return std::move(*client);
}

HttpRequest Get(const TestHttpServer& server, const std::string& path, uint64_t id = 1) {
  return HttpRequest{.id = id,
                     .url = absl::StrCat("http://a.test:", server.port(), path),
                     .host = "a.test",
                     .port = server.port(),
                     .ip = "127.0.0.1"};
}

// Polls until `count` results arrived, for at most 10 s.
std::vector<HttpResult> PollUntil(HttpClient& client, size_t count) {
  std::vector<HttpResult> results;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (results.size() < count && std::chrono::steady_clock::now() < deadline) {
    for (HttpResult& r : client.Poll(absl::Milliseconds(50))) results.push_back(std::move(r));
  }
  return results;
}

TEST(HttpClient, GetKeepsConnectionsAliveAndReturnsRawMessage) {
  TestHttpServer server([](const std::string&) { return TestResponse{Ok("hello")}; });
  auto client = Client({.user_agent = "TestBot/1.0 (+http://example.org/bot)"});
  for (int i = 0; i < 5; ++i) {
    client->Start(Get(server, "/p" + std::to_string(i), i));
    std::vector<HttpResult> r = PollUntil(*client, 1);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].error, TransportError::kNone) << r[0].error_message;
    EXPECT_EQ(r[0].id, static_cast<uint64_t>(i));
    EXPECT_EQ(r[0].body, "hello");
    EXPECT_TRUE(absl::StartsWith(r[0].raw_headers, "HTTP/1.1 200 OK\r\n"));
    EXPECT_TRUE(absl::StartsWith(r[0].request_head, "GET /p" + std::to_string(i) + " HTTP/1.1\r\n"))
        << r[0].request_head;
    EXPECT_TRUE(absl::StrContains(r[0].request_head, "Host: a.test:"));
    EXPECT_TRUE(absl::StrContains(r[0].request_head, "Accept-Encoding: gzip, deflate, br"));
    EXPECT_TRUE(absl::StrContains(r[0].request_head, "User-Agent: TestBot/1.0"));
    EXPECT_EQ(r[0].remote_ip, "127.0.0.1");
  }
  EXPECT_EQ(server.requests(), 5);
  EXPECT_EQ(server.connections(), 1);  // keep-alive
  EXPECT_EQ(client->in_flight(), 0u);
}

TEST(HttpClient, ManyConcurrentTransfers) {
  TestHttpServer server([](const std::string& head) {
    return TestResponse{Ok(head.substr(4, head.find(' ', 4) - 4))};  // echo the path
  });
  auto client = Client();
  for (int i = 0; i < 50; ++i) client->Start(Get(server, "/x" + std::to_string(i), i));
  std::vector<HttpResult> r = PollUntil(*client, 50);
  ASSERT_EQ(r.size(), 50u);
  for (const HttpResult& result : r) {
    EXPECT_EQ(result.body, "/x" + std::to_string(result.id));
  }
}

// DESIGN.md §6: no automatic redirects.
TEST(HttpClient, RedirectsAreNotFollowed) {
  TestHttpServer server([](const std::string&) {
    return TestResponse{"HTTP/1.1 301 Moved\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n"};
  });
  auto client = Client();
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(r[0].raw_headers, "HTTP/1.1 301"));
  EXPECT_EQ(server.requests(), 1);
}

TEST(HttpClient, ContentCodingsAreNotUndone) {
  const std::string fake_gzip("\x1f\x8b\x08\x00rawbytes", 12);
  TestHttpServer server([&](const std::string&) {
    return TestResponse{Ok(fake_gzip, "Content-Encoding: gzip\r\n")};
  });
  auto client = Client();
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kNone) << r[0].error_message;
  EXPECT_EQ(r[0].body, fake_gzip);
}

TEST(HttpClient, ChunkedBodiesKeepTheirFraming) {
  const std::string chunked = "5\r\nhello\r\n0\r\n\r\n";
  TestHttpServer server([&](const std::string&) {
    return TestResponse{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked};
  });
  auto client = Client();
  for (int i = 0; i < 2; ++i) {  // and the connection stays usable: framing was understood
    client->Start(Get(server, "/", i));
    std::vector<HttpResult> r = PollUntil(*client, 1);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].error, TransportError::kNone) << r[0].error_message;
    EXPECT_EQ(r[0].body, chunked);
  }
  EXPECT_EQ(server.connections(), 1);
}

TEST(HttpClient, BodyCapKeepsPrefixAndMarksTruncated) {
  const std::string big(200000, 'x');
  TestHttpServer server([&](const std::string&) { return TestResponse{Ok(big)}; });
  auto client = Client({.max_body_bytes = 10000});
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kNone);
  EXPECT_EQ(r[0].truncated, "length");
  EXPECT_EQ(r[0].body.size(), 10000u);
}

TEST(HttpClient, HeaderCapAbortsTheTransfer) {
  std::string headers;
  for (int i = 0; i < 2000; ++i) headers += "X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
  TestHttpServer server([&](const std::string&) { return TestResponse{Ok("x", headers)}; });
  auto client = Client({.max_header_bytes = 8192});
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kHeaderTooLarge);
}

TEST(HttpClient, ServerClosingEarlyIsADisconnectTruncation) {
  TestHttpServer server([](const std::string&) {
    return TestResponse{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly-ten!!", true};
  });
  auto client = Client();
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kNone);
  EXPECT_EQ(r[0].truncated, "disconnect");
  EXPECT_EQ(r[0].body, "only-ten!!");
}

TEST(HttpClient, StalledServerTimesOut) {
  TestHttpServer server([](const std::string&) {
    return TestResponse{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nstalls"};
  });
  auto client = Client({.total_timeout = absl::Milliseconds(300)});
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kTimeout) << r[0].error_message;
}

// DESIGN.md §6: the SSRF guard refuses loopback unless allowed, also at connect time.
TEST(HttpClient, GuardRefusesForbiddenAddressesAtConnect) {
  TestHttpServer server([](const std::string&) { return TestResponse{Ok("secret")}; });
  auto client = Client({}, /*allow=*/{});
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kAddressRefused);
  EXPECT_TRUE(r[0].body.empty());
  EXPECT_EQ(server.requests(), 0);
}

TEST(HttpClient, ConnectToSendsEveryHostToOneAddress) {
  TestHttpServer server([](const std::string& head) {
    const size_t h = head.find("Host: ");
    return TestResponse{Ok(head.substr(h + 6, head.find("\r\n", h) - h - 6))};
  });
  auto client = Client({.connect_to = absl::StrCat("127.0.0.1:", server.port())});
  client->Start({.id = 1, .url = "http://h1.websim.test/", .host = "h1.websim.test", .port = 80});
  client->Start({.id = 2, .url = "http://h2.websim.test/a", .host = "h2.websim.test", .port = 80});
  std::vector<HttpResult> r = PollUntil(*client, 2);
  ASSERT_EQ(r.size(), 2u);
  for (const HttpResult& result : r) {
    EXPECT_EQ(result.body, result.id == 1 ? "h1.websim.test" : "h2.websim.test");
  }
  EXPECT_FALSE(HttpClient::Create({.connect_to = "nonsense"}, *net::AddressPolicy::Create({})).ok());
}

TEST(HttpClient, RefusedConnectionIsAConnectFailure) {
  uint16_t port = 0;
  {
    TestHttpServer closed([](const std::string&) { return TestResponse{}; });
    port = closed.port();
  }  // closed: nothing listens on `port` now
  auto client = Client({.connect_timeout = absl::Seconds(2)});
  client->Start({.id = 1,
                 .url = absl::StrCat("http://a.test:", port, "/"),
                 .host = "a.test",
                 .port = port,
                 .ip = "127.0.0.1"});
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kConnectFailed);
}

}  // namespace
}  // namespace crawler::fetcher
