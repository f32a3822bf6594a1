#include "services/fetcher/http_client.h"

#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
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

// GET http://HOST/ (port 80, for a client with connect_to), and its result.
std::vector<HttpResult> FetchRoot(HttpClient& client, const std::string& host, int id) {
  client.Start({.id = static_cast<uint64_t>(id),
                .url = absl::StrCat("http://", host, "/"),
                .host = host,
                .port = 80});
  return PollUntil(client, 1);
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

// docs/architecture.md §6: no automatic redirects.
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

// http_client.h: bodies share body_memory_bytes; a transfer past it pauses until results that
// hold memory are destroyed, and the held bytes never pass the budget plus one body.
TEST(HttpClient, BodyMemoryBudgetPausesTransfersUntilResultsAreReleased) {
  const size_t body_bytes = 1 << 20;
  const std::string big(body_bytes, 'x');
  TestHttpServer server([&](const std::string&) { return TestResponse{Ok(big)}; });
  auto client = Client({.max_body_bytes = body_bytes, .body_memory_bytes = 2 * body_bytes});
  constexpr int kTransfers = 8;
  for (int i = 0; i < kTransfers; ++i) client->Start(Get(server, "/", i));

  std::vector<HttpResult> kept;
  int finished = 0;
  size_t peak_held = 0;
  bool saw_paused = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  // Results are kept (their bodies held) until nothing moves any more: then the budget is spent
  // by what is kept and the rest waits, paused.
  while (finished < kTransfers && std::chrono::steady_clock::now() < deadline) {
    std::vector<HttpResult> done = client->Poll(absl::Milliseconds(50));
    peak_held = std::max(peak_held, client->body_memory_held());
    saw_paused = saw_paused || client->paused_for_memory() > 0;
    if (done.empty() && client->paused_for_memory() > 0 && !kept.empty()) {
      EXPECT_LE(client->body_memory_held(), 3 * body_bytes);
      kept.erase(kept.begin());  // releases its body's memory
      continue;
    }
    for (HttpResult& r : done) {
      EXPECT_EQ(r.error, TransportError::kNone) << r.error_message;
      EXPECT_EQ(r.body.size(), body_bytes);
      EXPECT_EQ(r.truncated, "");
      kept.push_back(std::move(r));
      ++finished;
    }
  }
  EXPECT_EQ(finished, kTransfers);
  EXPECT_TRUE(saw_paused);
  EXPECT_LE(peak_held, 3 * body_bytes);  // budget + one body (an overdraft)
  EXPECT_EQ(client->in_flight(), 0u);
  kept.clear();
  EXPECT_EQ(client->body_memory_held(), 0u);
}

TEST(HttpClient, BodyMemoryBudgetBelowTheBodyCapIsRefused) {
  absl::StatusOr<net::AddressPolicy> guard = net::AddressPolicy::Create({});
  ASSERT_TRUE(guard.ok());
  EXPECT_EQ(HttpClient::Create({.max_body_bytes = 2 << 20, .body_memory_bytes = 1 << 20}, *guard)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
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
  EXPECT_EQ(r[0].error_message, "response head larger than max_header_bytes (8192 bytes)");
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
  // The head came, the body did not: a body timeout, said plainly.
  EXPECT_EQ(r[0].error, TransportError::kBodyTimeout) << r[0].error_message;
  EXPECT_EQ(r[0].error_message,
            "body not complete within the time limit (300ms), 6 bytes received");
}

// Malformed chunked framing is named as such, not as a connection failure.
TEST(HttpClient, MalformedChunkingIsBadChunking) {
  TestHttpServer server([](const std::string&) {
    return TestResponse{
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nbad\r\n0\r\n\r\n"};
  });
  auto client = Client();
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kBadChunking) << r[0].error_message;
  EXPECT_TRUE(absl::StartsWith(r[0].error_message, "malformed chunked transfer coding after"))
      << r[0].error_message;
  EXPECT_EQ(TransportErrorName(r[0].error), "bad_chunking");
}

// One header line over libcurl's own limit (100 KiB) is a header too large, not "out of memory".
TEST(HttpClient, AnOverlongHeaderLineIsHeaderTooLarge) {
  TestHttpServer server([](const std::string&) {
    return TestResponse{"HTTP/1.1 200 OK\r\nX-Big: " + std::string(1 << 20, 'a') +
                        "\r\nContent-Length: 2\r\n\r\nok"};
  });
  auto client = Client({.max_header_bytes = 4 << 20});
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kHeaderTooLarge) << r[0].error_message;
  EXPECT_EQ(r[0].error_message, "a response header line longer than libcurl's limit (100 KiB)");
}

// docs/architecture.md §6: the SSRF guard refuses loopback unless allowed, also at connect time.
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
  EXPECT_FALSE(
      HttpClient::Create({.connect_to = "nonsense"}, *net::AddressPolicy::Create({})).ok());
}

// connect_to bypasses neither the SSRF guard nor its connect-time check.
TEST(HttpClient, ConnectToAddressIsStillCheckedByTheGuard) {
  TestHttpServer server([](const std::string&) { return TestResponse{Ok("secret")}; });
  auto client = Client({.connect_to = absl::StrCat("127.0.0.1:", server.port())}, /*allow=*/{});
  client->Start({.id = 1, .url = "http://h1.websim.test/", .host = "h1.websim.test", .port = 80});
  std::vector<HttpResult> r = PollUntil(*client, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kAddressRefused);
  EXPECT_EQ(server.requests(), 0);
  for (const char* bad : {"127.0.0.1:", "127.0.0.1:http", "127.0.0.1:70000", ":80", "127.0.0.1"}) {
    EXPECT_FALSE(HttpClient::Create({.connect_to = bad}, *net::AddressPolicy::Create({})).ok())
        << bad;
  }
}

// A proxy named by the environment would see the requests instead of the hosts (and the SSRF
// guard would check the proxy's address, not the host's): the client connects directly.
TEST(HttpClient, ProxyEnvironmentVariablesAreIgnored) {
  TestHttpServer proxy([](const std::string&) { return TestResponse{Ok("via proxy")}; });
  TestHttpServer server([](const std::string&) { return TestResponse{Ok("direct")}; });
  const std::string proxy_url = absl::StrCat("http://127.0.0.1:", proxy.port());
  const std::vector<std::string> names = {"http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY",
                                          "all_proxy"};
  for (const std::string& name : names) ::setenv(name.c_str(), proxy_url.c_str(), 1);
  ::unsetenv("no_proxy");
  ::unsetenv("NO_PROXY");
  auto client = Client();
  client->Start(Get(server, "/"));
  std::vector<HttpResult> r = PollUntil(*client, 1);
  for (const std::string& name : names) ::unsetenv(name.c_str());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, TransportError::kNone) << r[0].error_message;
  EXPECT_EQ(r[0].body, "direct");
  EXPECT_EQ(server.requests(), 1);
  EXPECT_EQ(proxy.requests(), 0);
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

TEST(HttpClient, ManyConcurrentTransfersOverManyConnectionsAndHosts) {
  TestHttpServer server([](const std::string& head) {
    const size_t h = head.find("Host: ");
    const std::string host = head.substr(h + 6, head.find("\r\n", h) - h - 6);
    return TestResponse{Ok(host + head.substr(4, head.find(' ', 4) - 4))};
  });
  auto client = Client({.connect_to = absl::StrCat("127.0.0.1:", server.port())});
  constexpr int kCount = 300;
  for (int i = 0; i < kCount; ++i) {
    const std::string host = absl::StrCat("h", i % 30, ".websim.test");
    client->Start({.id = static_cast<uint64_t>(i),
                   .url = absl::StrCat("http://", host, "/p", i),
                   .host = host,
                   .port = 80});
  }
  EXPECT_EQ(client->in_flight(), static_cast<size_t>(kCount));
  std::vector<HttpResult> r = PollUntil(*client, kCount);
  ASSERT_EQ(r.size(), static_cast<size_t>(kCount));
  std::set<uint64_t> ids;
  for (const HttpResult& result : r) {
    EXPECT_EQ(result.error, TransportError::kNone) << result.error_message;
    EXPECT_EQ(result.body, absl::StrCat("h", result.id % 30, ".websim.test/p", result.id));
    ids.insert(result.id);
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(client->in_flight(), 0u);
}

// With connect_to, connections are still kept and reused per URL host: a request for h2 never
// rides h1's connection (the Host header would differ from what the connection was opened for).
TEST(HttpClient, ConnectToReusesConnectionsPerHost) {
  TestHttpServer server([](const std::string& head) {
    const size_t h = head.find("Host: ");
    return TestResponse{Ok(head.substr(h + 6, head.find("\r\n", h) - h - 6))};
  });
  auto client = Client({.connect_to = absl::StrCat("127.0.0.1:", server.port())});
  for (int i = 0; i < 6; ++i) {
    const std::string host = i % 2 == 0 ? "h1.websim.test" : "h2.websim.test";
    std::vector<HttpResult> r = FetchRoot(*client, host, i);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].error, TransportError::kNone) << r[0].error_message;
    EXPECT_EQ(r[0].body, host);
    EXPECT_EQ(r[0].remote_ip, "127.0.0.1");
  }
  EXPECT_EQ(server.requests(), 6);
  EXPECT_EQ(server.connections(), 2);
}

// Transfers are spread over several multi handles by host, each with its own connection cache:
// a host's requests always go through the same one, so every host keeps one connection however
// many shards there are.
TEST(HttpClient, ShardsKeepEachHostsConnection) {
  for (const int shards : {1, 3, 16}) {
    TestHttpServer server([](const std::string& head) {
      const size_t h = head.find("Host: ");
      return TestResponse{Ok(head.substr(h + 6, head.find("\r\n", h) - h - 6))};
    });
    auto client = Client({.connect_to = absl::StrCat("127.0.0.1:", server.port()),
                          .connection_shards = shards});
    constexpr int kHosts = 12;
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < kHosts; ++i) {
        const std::string host = absl::StrCat("h", i, ".websim.test");
        std::vector<HttpResult> r = FetchRoot(*client, host, round * kHosts + i);
        ASSERT_EQ(r.size(), 1u);
        EXPECT_EQ(r[0].error, TransportError::kNone) << r[0].error_message;
        EXPECT_EQ(r[0].body, host);
      }
    }
    EXPECT_EQ(server.requests(), 3 * kHosts) << shards << " shards";
    EXPECT_EQ(server.connections(), kHosts) << shards << " shards";
  }
}

// Past max_cached_connections open sockets a transfer's connection is closed when it is done
// instead of cached: the cache never fills, so libcurl never evicts, and the hosts whose
// connections are cached keep them. Four hosts in turn, twice, with room for three: h4's first
// connection is closed after its request (the cache held h1-h3), h1's after its second (the cache
// was still full), and h4 connects anew; h2 and h3 reuse theirs. With libcurl's own eviction
// (oldest first) every request of the second round would have connected anew: 8 connections.
// The cap counts the connections of every shard (ShardsKeepEachHostsConnection).
TEST(HttpClient, ConnectionsPastTheCacheAreClosedRatherThanEvicted) {
  for (const int shards : {1, 4}) {
    TestHttpServer server([](const std::string&) { return TestResponse{Ok("x")}; });
    auto client = Client({.connect_to = absl::StrCat("127.0.0.1:", server.port()),
                          .max_cached_connections = 3,
                          .connection_shards = shards});
    for (int i = 0; i < 8; ++i) {
      std::vector<HttpResult> r =
          FetchRoot(*client, absl::StrCat("h", i % 4 + 1, ".websim.test"), i);
      ASSERT_EQ(r.size(), 1u);
      EXPECT_EQ(r[0].error, TransportError::kNone) << r[0].error_message;
    }
    EXPECT_EQ(server.requests(), 8) << shards << " shards";
    EXPECT_EQ(server.connections(), 5) << shards << " shards";
  }
}

// Easy handles are reused: nothing of one request (headers, pinned address, caps hit, results)
// may carry over to the next.
TEST(HttpClient, NothingCarriesOverBetweenTransfersOnAReusedHandle) {
  std::string padding;
  for (int i = 0; i < 2000; ++i) padding += "X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
  TestHttpServer server([&](const std::string& head) {
    if (absl::StartsWith(head, "GET /big-head ")) return TestResponse{Ok("x", padding)};
    if (absl::StartsWith(head, "GET /big-body ")) return TestResponse{Ok(std::string(50000, 'b'))};
    return TestResponse{Ok("small")};
  });
  auto client = Client({.max_body_bytes = 10000, .max_header_bytes = 8192});
  auto fetch = [&](HttpRequest request) {
    client->Start(std::move(request));
    std::vector<HttpResult> r = PollUntil(*client, 1);
    EXPECT_EQ(r.size(), 1u);
    return r.empty() ? HttpResult{} : std::move(r[0]);
  };
  HttpRequest conditional = Get(server, "/a", 1);
  conditional.extra_headers = {"If-None-Match: \"v1\""};
  HttpResult r = fetch(conditional);
  EXPECT_EQ(r.error, TransportError::kNone);
  EXPECT_TRUE(absl::StrContains(r.request_head, "If-None-Match: \"v1\""));

  r = fetch(Get(server, "/b", 2));
  EXPECT_EQ(r.id, 2u);
  EXPECT_FALSE(absl::StrContains(r.request_head, "If-None-Match")) << r.request_head;
  EXPECT_TRUE(absl::StrContains(r.request_head, "Accept-Encoding: gzip, deflate, br"));
  EXPECT_TRUE(absl::StartsWith(r.request_head, "GET /b HTTP/1.1\r\n")) << r.request_head;

  EXPECT_EQ(fetch(Get(server, "/big-head", 3)).error, TransportError::kHeaderTooLarge);
  r = fetch(Get(server, "/c", 4));
  EXPECT_EQ(r.error, TransportError::kNone);
  EXPECT_EQ(r.body, "small");

  r = fetch(Get(server, "/big-body", 5));
  EXPECT_EQ(r.truncated, "length");
  EXPECT_EQ(r.body.size(), 10000u);
  r = fetch(Get(server, "/d", 6));
  EXPECT_EQ(r.truncated, "");
  EXPECT_EQ(r.body, "small");
  EXPECT_TRUE(absl::StartsWith(r.raw_headers, "HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(r.raw_headers.find("HTTP/1.1", 1), std::string::npos);  // one response's headers

  // Pinning is per request: a forbidden address is refused even on a handle that just connected
  // to an allowed one, and the refusal does not stick to the handle.
  HttpRequest forbidden = Get(server, "/e", 7);
  forbidden.host = "b.test";
  forbidden.url = absl::StrCat("http://b.test:", server.port(), "/e");
  forbidden.ip = "10.1.2.3";
  EXPECT_EQ(fetch(forbidden).error, TransportError::kAddressRefused);
  r = fetch(Get(server, "/f", 8));
  EXPECT_EQ(r.error, TransportError::kNone);
  EXPECT_EQ(r.remote_ip, "127.0.0.1");
  EXPECT_EQ(server.requests(), 7);
}

// libcurl's timer, not socket activity, must end a wait: a server that answers nothing is cut off
// at total_timeout even though each Poll would wait far longer.
TEST(HttpClient, TimerEndsAWaitWithoutSocketActivity) {
  TestHttpServer server([](const std::string&) { return TestResponse{""}; });  // silent
  auto client = Client({.total_timeout = absl::Milliseconds(300)});
  client->Start(Get(server, "/"));
  const auto start = std::chrono::steady_clock::now();
  std::vector<HttpResult> r;
  for (int i = 0; i < 20 && r.empty(); ++i) r = client->Poll(absl::Seconds(30));
  ASSERT_EQ(r.size(), 1u);
  // Connected, no head: a header timeout.
  EXPECT_EQ(r[0].error, TransportError::kHeaderTimeout) << r[0].error_message;
  EXPECT_EQ(r[0].error_message, "response head not complete within the time limit (300ms)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(HttpClient, WakeupCutsAPollShortFromAnotherThread) {
  TestHttpServer server([](const std::string&) { return TestResponse{""}; });  // silent
  // No slow-transfer check: its 1 s timer would end the waits below without a wakeup.
  auto client = Client({.low_speed_bytes_per_second = 0});
  const auto started = std::chrono::steady_clock::now();
  client->Start(Get(server, "/"));  // a socket in the epoll set too, that stays quiet
  // Past the connect phase: libcurl keeps a timer at its happy-eyeballs timeout (200 ms after the
  // start) even once connected, and that timer would end the waits below without a wakeup.
  for (int i = 0; i < 100 && std::chrono::steady_clock::now() - started <
                                 std::chrono::milliseconds(400);
       ++i) {
    client->Poll(absl::Milliseconds(10));
  }
  const auto start = std::chrono::steady_clock::now();
  std::thread waker([&] { client->Wakeup(); });
  // Returns whether the wakeup lands before or during the wait: a pending wakeup is kept.
  EXPECT_TRUE(client->Poll(absl::Seconds(30)).empty());
  waker.join();
  // Well before the test server drops the idle connection (10 s), which would also end the wait.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(client->in_flight(), 1u);

  // Several wakeups before a Poll cost one early return, not one each.
  client->Wakeup();
  client->Wakeup();
  EXPECT_TRUE(client->Poll(absl::Seconds(30)).empty());
  const auto second = std::chrono::steady_clock::now();
  EXPECT_TRUE(client->Poll(absl::Milliseconds(200)).empty());
  EXPECT_GE(std::chrono::steady_clock::now() - second, std::chrono::milliseconds(150));
}

}  // namespace
}  // namespace crawler::fetcher
