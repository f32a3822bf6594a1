// ServerRunner on loopback: endpoints bound to free ports, health served (grpc.health.v1, through
// a generic call so no health stubs are needed), each endpoint a server of its own, clean drain,
// and clear errors for bad options.
#include "services/common/grpc/server_runner.h"

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "crawler/v1/admin.grpc.pb.h"
#include "crawler/v1/dedup.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace crawler::grpc_server {
namespace {

// grpc.health.v1.HealthCheckRequest{service: NAME} is field 1, a string (0a, length, NAME; 0a 00
// for the overall ""); the response's field 1 (status) is SERVING = 1 (08 01) or NOT_SERVING = 2
// (08 02).
std::string CheckHealth(int port, const std::string& service = "") {
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                     grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::CompletionQueue cq;
  grpc::Slice body(std::string("\x0a") + static_cast<char>(service.size()) + service);
  grpc::ByteBuffer request(&body, 1);
  grpc::ByteBuffer response;
  grpc::Status status;
  auto call = stub.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check", request, &cq);
  call->StartCall();
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  if (!cq.Next(&tag, &ok) || !ok) return "no answer";
  if (!status.ok()) return "error " + std::to_string(status.error_code());
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) return "undecodable";
  std::string bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  if (bytes == std::string("\x08\x02", 2)) return "NOT_SERVING";
  return bytes == std::string("\x08\x01", 2) ? "SERVING" : "status bytes " + std::to_string(bytes.size());
}

TEST(ServerRunnerTest, ServesHealthOnEveryEndpointAndDrains) {
  absl::StatusOr<std::unique_ptr<ServerRunner>> runner = ServerRunner::Start(
      {.name = "test", .endpoints = {{.listen = "127.0.0.1:0"}, {.listen = "127.0.0.1:0"}}});
  ASSERT_TRUE(runner.ok()) << runner.status();
  const int internal = (*runner)->Port(0);
  const int admin = (*runner)->Port(1);
  EXPECT_GT(internal, 0);
  EXPECT_GT(admin, 0);
  EXPECT_NE(internal, admin);
  EXPECT_EQ(CheckHealth(internal), "SERVING");
  EXPECT_EQ(CheckHealth(admin), "SERVING");
  (*runner)->Shutdown(absl::Seconds(5));
  (*runner)->Wait();
  EXPECT_NE(CheckHealth(internal), "SERVING");
}

// docs/services.md: health answers for "" and for each service by name (Kubernetes gRPC probes
// and load balancers name the service), on the endpoint that serves it only.
TEST(ServerRunnerTest, HealthAnswersForEachServiceByName) {
  v1::Dedup::Service dedup;  // unimplemented methods: only its name matters here
  v1::Admin::Service admin;
  absl::StatusOr<std::unique_ptr<ServerRunner>> runner =
      ServerRunner::Start({.name = "test",
                           .endpoints = {{.listen = "127.0.0.1:0", .services = {&dedup}},
                                         {.listen = "127.0.0.1:0", .services = {&admin}}}});
  ASSERT_TRUE(runner.ok()) << runner.status();
  const int first = (*runner)->Port(0);
  const int second = (*runner)->Port(1);
  EXPECT_EQ(CheckHealth(first, "crawler.v1.Dedup"), "SERVING");
  EXPECT_EQ(CheckHealth(second, "crawler.v1.Admin"), "SERVING");
  EXPECT_EQ(CheckHealth(second, ""), "SERVING");
  // NOT_FOUND (5): a name the endpoint does not serve, and gRPC's own services.
  EXPECT_EQ(CheckHealth(first, "crawler.v1.Admin"), "error 5");
  EXPECT_EQ(CheckHealth(first, "grpc.health.v1.Health"), "error 5");
  (*runner)->SetServing(false);
  EXPECT_EQ(CheckHealth(first, "crawler.v1.Dedup"), "NOT_SERVING");
  EXPECT_EQ(CheckHealth(first, ""), "NOT_SERVING");
  (*runner)->SetServing(true);
  EXPECT_EQ(CheckHealth(first, "crawler.v1.Dedup"), "SERVING");
  (*runner)->Shutdown(absl::Seconds(5));
}

TEST(ServerRunnerTest, BadOptionsAreNamed) {
  EXPECT_TRUE(absl::IsInvalidArgument(ServerRunner::Start({.name = "x"}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      ServerRunner::Start({.endpoints = {{.listen = "127.0.0.1:0"}}}).status()));
  absl::StatusOr<std::unique_ptr<ServerRunner>> missing = ServerRunner::Start(
      {.name = "x",
       .endpoints = {{.listen = "127.0.0.1:0",
                      .tls = {.cert_file = "/nonexistent/cert.pem", .key_file = "/nonexistent/k"}}}});
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  absl::StatusOr<std::unique_ptr<ServerRunner>> half =
      ServerRunner::Start({.name = "x", .endpoints = {{.listen = "127.0.0.1:0",
                                                        .tls = {.cert_file = "/c.pem"}}}});
  EXPECT_TRUE(absl::IsInvalidArgument(half.status())) << half.status();
}

TEST(ServerRunnerTest, AnAddressInUseIsUnavailable) {
  absl::StatusOr<std::unique_ptr<ServerRunner>> first =
      ServerRunner::Start({.name = "a", .endpoints = {{.listen = "127.0.0.1:0"}}});
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<ServerRunner>> second = ServerRunner::Start(
      {.name = "b",
       .endpoints = {{.listen = "127.0.0.1:" + std::to_string((*first)->Port(0))}}});
  EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
}

}  // namespace
}  // namespace crawler::grpc_server
