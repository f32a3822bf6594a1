// The drain every crawlerd role shares (service_main.h): a first SIGTERM/SIGINT runs the stop
// hook, turns health off, shuts the server down and closes the cores, in that order, and
// returns 0; a failed close returns 1; a second signal during the drain exits at once. Plus the
// common configuration block (service_config.h).
#include "services/common/service/service_main.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/log/recording_log_sink.h"
#include "services/common/config/key_table.h"
#include "services/common/service/service_config.h"

namespace crawler::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Before main, so that every thread of every test (gRPC's among them) inherits the mask and a
// signal sent by a test reaches only sigwait.
const bool kSignalsBlocked = (BlockStopSignals(), true);

std::unique_ptr<grpc_server::ServerRunner> StartRunner() {
  absl::StatusOr<std::unique_ptr<grpc_server::ServerRunner>> runner =
      grpc_server::ServerRunner::Start({.name = "test", .endpoints = {{.listen = "127.0.0.1:0"}}});
  EXPECT_TRUE(runner.ok()) << runner.status();
  return runner.ok() ? *std::move(runner) : nullptr;
}

// Whether something accepts TCP connections on 127.0.0.1:port.
bool Listening(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return connected;
}

class Steps {
 public:
  void Add(std::string step) {
    absl::MutexLock lock(&mu_);
    steps_.push_back(std::move(step));
  }
  std::vector<std::string> Get() {
    absl::MutexLock lock(&mu_);
    return steps_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> steps_;
};

TEST(ServeUntilSignalTest, FirstSignalDrainsInOrderAndReturnsZero) {
  ASSERT_TRUE(kSignalsBlocked);
  std::unique_ptr<grpc_server::ServerRunner> runner = StartRunner();
  ASSERT_NE(runner, nullptr);
  const int port = runner->Port(0);
  ASSERT_TRUE(Listening(port));
  Steps steps;
  RecordingLogSink lines;
  int rc = -1;
  std::thread serve([&] {
    rc = ServeUntilSignal(
        {.log = Logger(lines, "test"),
         .runner = runner.get(),
         .drain_timeout = absl::Seconds(5),
         // The stop hook runs while the server still serves; close runs
         // once it has stopped.
         .stop = [&] { steps.Add(Listening(port) ? "stop" : "stop: not serving"); },
         .close =
             [&] {
               steps.Add(Listening(port) ? "close: still serving" : "close");
               return absl::OkStatus();
             }});
    steps.Add("returned");
  });
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  serve.join();
  EXPECT_EQ(rc, kExitOk);
  EXPECT_THAT(steps.Get(), ElementsAre("stop", "close", "returned"));
  EXPECT_THAT(lines.lines(), ElementsAre("test: SIGTERM received, draining (again to exit at once)",
                                         "test: stopped"));
  runner->Wait();  // already shut down: returns at once
}

TEST(ServeUntilSignalTest, SigintWorksAlikeAndAFailedCloseIsExitOne) {
  std::unique_ptr<grpc_server::ServerRunner> runner = StartRunner();
  ASSERT_NE(runner, nullptr);
  RecordingLogSink lines;
  int rc = -1;
  std::thread serve([&] {
    rc = ServeUntilSignal({.log = Logger(lines, "test"), .runner = runner.get(), .close = [] {
                             return absl::DataLossError("flush failed");
                           }});
  });
  ASSERT_EQ(kill(getpid(), SIGINT), 0);
  serve.join();
  EXPECT_EQ(rc, kExitFailure);
  EXPECT_THAT(lines.lines(), ElementsAre("test: SIGINT received, draining (again to exit at once)",
                                         "test: closing failed: DATA_LOSS: flush failed"));
}

TEST(ServeUntilSignalDeathTest, SecondSignalDuringTheDrainExitsAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        BlockStopSignals();
        std::unique_ptr<grpc_server::ServerRunner> runner = StartRunner();
        absl::Notification never;
        std::thread signaller([] { kill(getpid(), SIGTERM); });
        signaller.detach();
        StderrLogSink sink;
        ServeUntilSignal({.log = Logger(sink, "test"),
                          .runner = runner.get(),
                          // A stop hook that hangs; only the second signal ends the process.
                          .stop = [&never] {
                            kill(getpid(), SIGTERM);
                            never.WaitForNotification();
                          }});
      },
      ::testing::ExitedWithCode(128 + SIGTERM), "received again, exiting without draining");
}

TEST(ValidateHostPortTest, AcceptsHostPortForms) {
  for (const char* ok : {"0.0.0.0:50051", "127.0.0.1:0", "localhost:65535", "[::]:50051", "[::1]:1",
                         "dedup-0.dedup.crawler.svc:50051"}) {
    EXPECT_TRUE(ValidateHostPort("listen", ok).ok()) << ok;
  }
}

TEST(ValidateHostPortTest, RejectsOthersNamingTheKey) {
  for (const char* bad : {"", "50051", ":50051", "host:", "host:65536", "host:-1", "host:80x",
                          "::1:50051", "[::1:50051", "host:123456"}) {
    absl::Status s = ValidateHostPort("metrics_listen", bad);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << bad;
    EXPECT_THAT(std::string(s.message()), HasSubstr("metrics_listen")) << bad;
  }
}

TEST(ServiceCommonConfigTest, DefaultsAreValidAndTlsFilesGoTogether) {
  ServiceCommonConfig c;
  EXPECT_TRUE(c.Validate().ok());
  c.tls_key_file = "key.pem";
  EXPECT_THAT(std::string(c.Validate().message()), HasSubstr("tls_cert_file"));
  c.tls_cert_file = "cert.pem";
  EXPECT_TRUE(c.Validate().ok());
  c = {};
  c.tls_client_ca_file = "ca.pem";
  EXPECT_THAT(std::string(c.Validate().message()), HasSubstr("tls_client_ca_file"));
  c = {};
  c.metrics_listen = "nowhere";
  EXPECT_THAT(std::string(c.Validate().message()), HasSubstr("metrics_listen"));
}

TEST(ServiceCommonConfigTest, KeysLoadFromYamlAndMakeTheEndpoint) {
  ServiceCommonConfig c;
  ASSERT_TRUE(ServiceCommonKeys()
                  .Load(YAML::Load("listen: 127.0.0.1:7001\ndrain_timeout: 3s\n"
                                   "tls_cert_file: c.pem\ntls_key_file: k.pem\n"),
                        c)
                  .ok());
  EXPECT_EQ(c.drain_timeout, absl::Seconds(3));
  const grpc_server::Endpoint endpoint = c.InternalEndpoint({});
  EXPECT_EQ(endpoint.listen, "127.0.0.1:7001");
  EXPECT_EQ(endpoint.tls.cert_file, "c.pem");
  EXPECT_EQ(endpoint.tls.key_file, "k.pem");
  EXPECT_TRUE(endpoint.tls.ca_file.empty());
}

}  // namespace
}  // namespace crawler::service
