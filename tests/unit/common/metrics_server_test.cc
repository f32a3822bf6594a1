#include "services/common/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/counter.h"

namespace crawler::metrics {
namespace {

using ::testing::HasSubstr;

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// GET http://<address><path>; the body, or the curl error as the body with status 0.
std::pair<long, std::string> Get(const std::string& address, const std::string& path) {
  std::string body;
  CURL* curl = curl_easy_init();
  const std::string url = absl::StrCat("http://", address, path);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
  long code = 0;
  if (CURLcode rc = curl_easy_perform(curl); rc != CURLE_OK) {
    body = curl_easy_strerror(rc);
  } else {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  }
  curl_easy_cleanup(curl);
  return {code, body};
}

TEST(MetricsServerTest, ServesTheRegistryInTextFormatOnAFreeLoopbackPort) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_GT((*server)->port(), 0);
  EXPECT_EQ((*server)->address(), absl::StrCat("127.0.0.1:", (*server)->port()));
  prometheus::BuildCounter()
      .Name("crawler_test_things_total")
      .Help("Things counted by the test.")
      .Register((*server)->registry())
      .Add({{"outcome", "success"}})
      .Increment(3);

  auto [code, body] = Get((*server)->address(), "/metrics");
  EXPECT_EQ(code, 200) << body;
  EXPECT_THAT(body, HasSubstr("# TYPE crawler_test_things_total counter"));
  EXPECT_THAT(body, HasSubstr("crawler_test_things_total{outcome=\"success\"} 3"));
  EXPECT_THAT(body,
              HasSubstr(absl::StrCat("crawler_build_info{version=\"", BuildVersion(), "\"} 1")));
}

// A connection to `port` on 127.0.0.1 that sent the start of a request and then nothing more
// (a slow or hostile client); -1 if it could not connect.
int HalfSentRequest(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  constexpr char kStart[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (::send(fd, kStart, sizeof(kStart) - 1, 0) < 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(MetricsServerTest, IdleHalfSentRequestsDoNotHoldAScrape) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status();
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) {
    const int fd = HalfSentRequest((*server)->port());
    ASSERT_GE(fd, 0);
    idle.push_back(fd);
  }
  // Answered while they hang (Get gives up after 10 s; they would hold the port 30 s).
  auto [code, body] = Get((*server)->address(), "/metrics");
  EXPECT_EQ(code, 200) << body;
  // And the server hangs up on them well before Prometheus's default scrape timeout.
  for (int fd : idle) {
    timeval wait{.tv_sec = 10, .tv_usec = 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    char byte;
    EXPECT_GE(::recv(fd, &byte, 1, 0), 0) << "still open after 10 s";
    ::close(fd);
  }
}

TEST(MetricsServerTest, StopServingClosesThePortAndKeepsCollectablesUsable) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status();
  std::optional<ScopedCollector> collector;
  collector.emplace(server->get(), [] { return std::vector<prometheus::MetricFamily>{}; });
  EXPECT_EQ(Get((*server)->address(), "/metrics").first, 200);

  (*server)->StopServing();
  auto [code, body] = Get((*server)->address(), "/metrics");
  EXPECT_EQ(code, 0) << "still served after StopServing: " << body;
  // What goes after the server stopped serving is still taken off it; adding is harmless.
  collector.reset();
  ScopedCollector late(server->get(), [] { return std::vector<prometheus::MetricFamily>{}; });
  (*server)->StopServing();  // twice is fine
}

TEST(MetricsServerTest, RpcMetricsAreMadeOncePerService) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status();
  RpcMetrics& a = (*server)->Rpc("dedup");
  EXPECT_EQ(&a, &(*server)->Rpc("dedup"));
  static const char kMethod[] = "/crawler.v1.Dedup/Check";
  a.Record(kMethod, 0.002, grpc::StatusCode::OK);
  a.Record(kMethod, 0.003, grpc::StatusCode::UNAVAILABLE);
  auto [code, body] = Get((*server)->address(), "/metrics");
  EXPECT_THAT(body, HasSubstr("crawler_dedup_rpc_duration_seconds_count{method=\"Check\"} 2"));
  EXPECT_THAT(body,
              HasSubstr("crawler_dedup_rpc_errors_total{code=\"UNAVAILABLE\",method=\"Check\"} 1"));
}

TEST(MetricsServerTest, AnAddressInUseIsAClearError) {
  absl::StatusOr<std::unique_ptr<MetricsServer>> first = MetricsServer::Start("127.0.0.1:0");
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string taken = (*first)->address();
  absl::StatusOr<std::unique_ptr<MetricsServer>> second = MetricsServer::Start(taken);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr(taken));
}

TEST(MetricsServerTest, AMalformedAddressIsInvalidArgument) {
  for (const char* bad : {"", "9100", ":9100", "127.0.0.1:http", "127.0.0.1:70000"}) {
    absl::StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start(bad);
    ASSERT_FALSE(server.ok()) << bad;
    EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace crawler::metrics
