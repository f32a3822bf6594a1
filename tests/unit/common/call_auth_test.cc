// CallAuth over real gRPC on loopback (ServerRunner, port 0): the bearer token a handler checks
// first, the token MakeChannel attaches, the refusals counted and logged at most once a second.
#include "services/common/grpc/call_auth.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crawler/v1/frontier.grpc.pb.h"
#include "gtest/gtest.h"
#include "grpcpp/client_context.h"
#include "lib/clock/fake_clock.h"
#include "lib/log/recording_log_sink.h"
#include "services/common/grpc/channel.h"
#include "services/common/grpc/server_runner.h"

namespace crawler::grpc_common {
namespace {

constexpr char kToken[] = "internal-token-0123456789";

// A service whose one handler does what every crawler handler does first.
class Guarded final : public v1::Frontier::Service {
 public:
  explicit Guarded(CallAuth& auth) : auth_(auth) {}
  grpc::Status GetStats(grpc::ServerContext* context, const v1::GetStatsRequest*,
                        v1::GetStatsResponse*) override {
    return auth_.Check(*context, "GetStats");
  }

 private:
  CallAuth& auth_;
};

class CallAuthTest : public ::testing::Test {
 protected:
  CallAuthTest()
      : auth_({.token = kToken}, clock_, Logger(sink_, "test")), service_(auth_) {
    runner_ = grpc_server::ServerRunner::Start(
                  {.name = "test",
                   .endpoints = {{.listen = "127.0.0.1:0", .services = {&service_}}}})
                  .value();
  }
  ~CallAuthTest() override { runner_->Shutdown(absl::Seconds(1)); }

  grpc::StatusCode Call(const ChannelOptions& options, const std::string& header = "") {
    auto stub = v1::Frontier::NewStub(
        MakeChannel(absl::StrCat("127.0.0.1:", runner_->Port(0)), options).value());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    if (!header.empty()) context.AddMetadata("authorization", header);
    v1::GetStatsResponse response;
    return stub->GetStats(&context, v1::GetStatsRequest(), &response).error_code();
  }
  std::vector<std::string> Lines() { return sink_.lines(); }

  FakeClock clock_;
  RecordingLogSink sink_;
  CallAuth auth_;
  Guarded service_;
  std::unique_ptr<grpc_server::ServerRunner> runner_;
};

TEST_F(CallAuthTest, OnlyCallsCarryingTheTokenPass) {
  EXPECT_EQ(Call({}), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Call({}, "Bearer wrong-token-0123456789"), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Call({}, absl::StrCat("Basic ", kToken)), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Call({}, absl::StrCat("Bearer ", kToken, "x")), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Call({}, absl::StrCat("bearer ", kToken)), grpc::StatusCode::OK);
  // What every role's client does: the channel adds the header to each call.
  EXPECT_EQ(Call({.bearer_token = kToken}), grpc::StatusCode::OK);
  EXPECT_EQ(auth_.refused(), 4u);
  ASSERT_FALSE(Lines().empty());
  EXPECT_NE(Lines()[0].find("refused GetStats from "), std::string::npos) << Lines()[0];
  for (const std::string& line : Lines()) {
    EXPECT_EQ(line.find("0123456789"), std::string::npos) << "a token in the log: " << line;
  }
}

TEST_F(CallAuthTest, RefusalsAreLoggedAtMostOnceASecond) {
  for (int i = 0; i < 200; ++i) Call({}, "Bearer wrong-token-0123456789");
  EXPECT_EQ(auth_.refused(), 200u);
  EXPECT_EQ(Lines().size(), 1u) << "one line for a burst, however long";
  clock_.Advance(absl::Seconds(2));
  Call({});
  ASSERT_EQ(Lines().size(), 2u);
  EXPECT_NE(Lines()[1].find("(and 199 more like it"), std::string::npos) << Lines()[1];
}

}  // namespace
}  // namespace crawler::grpc_common
